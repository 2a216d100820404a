"""Typed shapes of ``nodes.metadata`` per node kind (docs/data-model.md, "Kinds").

These are :class:`typing.TypedDict` s that the writers annotate their metadata with, so a key
written under a wrong name or type is a type error. The store keeps ``metadata`` as a free
JSON object and does not validate it at run time. Every shape but :class:`SessionMeta` is
``total=False``: writers omit what they do not know (a captured grep has no ``engine``).
Times are epoch ms; ``lines`` of a chunk is a 1-based inclusive ``[start, end]`` pair.
"""

from __future__ import annotations

from typing import TypedDict


class SessionMeta(TypedDict):
    """``session`` (tree root, ``source_uri`` ``session://<session key>``)."""

    session_id: str
    cwd: str
    started_at: int


class FileRootMeta(TypedDict, total=False):
    """``file_chunk`` with ``is_file_root`` true: the file's root node (``file:///abs/path``),
    its content the outline. ``size`` and ``truncated_at_bytes`` are bytes; ``symbols`` holds
    ``[name, kind, start_line, def_line, end_line]`` rows; ``rendered`` says the lines are
    those of a rendering (a notebook's cells as text), not of the file's bytes; ``encoding``
    names a file's encoding when it was not UTF-8 (its text is stored as UTF-8); ``imports``
    holds ``[local name, module, imported name or null]`` rows and ``bases`` each class's base
    classes as written, for the reference graph (docs/search.md)."""

    path: str
    relpath: str
    lang: str | None
    is_file_root: bool
    total_chunks: int
    total_lines: int
    size: int
    file_sha256: str
    has_errors: bool
    rendered: bool
    symbols: list[list[str | int]]
    truncated_at_bytes: int
    encoding: str
    imports: list[list[str | None]]
    bases: dict[str, list[str]]


class FileChunkMeta(TypedDict, total=False):
    """``file_chunk`` child of a file root (``file:///abs/path#Symbol`` or ``#L10-40``).
    ``doc`` is the doc summary of the symbol the chunk starts (first paragraph of its
    docstring or doc comments, at most 300 characters), present only when there is one;
    ``refs`` the names its code uses (``name``, ``receiver.name``, ``*.name``), present only
    when it uses any (docs/search.md, "References between symbols")."""

    path: str
    relpath: str
    lang: str | None
    lines: list[int]
    chunk_index: int
    symbol: str | None
    kind: str
    chunking: str
    doc: str
    refs: list[str]


class GrepMeta(TypedDict, total=False):
    """``tool_output`` of ``ctx_tree_grep`` (``grep://<hash>``), or of a native Grep / Glob
    call captured by a hook (``grep://``, ``glob://``; with ``output_mode``, ``type`` and
    ``session_id``)."""

    tool: str
    pattern: str
    path: str
    file_glob: str | None
    ignore_case: bool
    fixed_strings: bool
    context_lines: int | None
    #: ``ctx_tree_grep`` with different context before and after a match (``-B``/``-A``)
    before_context: int
    after_context: int
    multiline: bool
    engine: str
    match_count: int
    file_count: int
    cwd: str
    timed_out: bool
    capped: bool
    type: str | None
    output_mode: str
    session_id: str


class MonitorMeta(TypedDict, total=False):
    """``tool_output`` of a command (``cmd://<hash>``): ``ctx_tree_bash`` or a captured
    host tool call. ``exit_code`` and ``duration_ms`` (milliseconds) are None when unknown
    or when the command was killed; ``source`` names who ran it (``ctx_tree_bash``,
    ``hook:Bash``); ``output_bytes`` is the whole output's size, ``lines`` the stored text's.
    ``ctx_tree_bash`` adds ``timed_out``, ``signal``, ``shell`` and ``binary``; a captured
    call adds ``interrupted`` and ``session_id``."""

    command: str
    exit_code: int | None
    duration_ms: int | None
    cwd: str
    source: str
    output_bytes: int
    lines: int
    timed_out: bool
    signal: int | None
    shell: str
    binary: bool
    interrupted: bool
    session_id: str


class WebChunkMeta(TypedDict, total=False):
    """``web_chunk`` captured from a host's web tool (``source_uri`` is the URL)."""

    tool: str | None
    url: str
    title: str
    fetched_at: int
    session_id: str


class PromptMeta(TypedDict, total=False):
    """``prompt`` (``prompt://<session key>/<prompt id>``); ``turn_index`` counts from 1."""

    session_id: str
    title: str
    cwd: str | None
    turn_index: int
    prompt_id: str


class ResponseMeta(TypedDict, total=False):
    """``response`` to a prompt (``response://<session key>/<prompt id>``); ``turn_index``
    is its prompt's, None when the prompt was not captured."""

    session_id: str
    title: str
    turn_index: int | None
    prompt_id: str


class SummaryMeta(TypedDict, total=False):
    """``summary``: written by the summarizer walker under the subtree root it summarizes
    (``model``, ``covers`` nodes, the call's ``input_tokens`` / ``output_tokens``), or a
    captured Task / Agent result (``agent://<tool use id>``: ``title``, ``subagent_type``,
    ``session_id``)."""

    model: str
    covers: int
    input_tokens: int
    output_tokens: int
    title: str
    subagent_type: str | None
    session_id: str


class NoteMeta(TypedDict, total=False):
    """``note`` (``note://<ulid>``)."""

    title: str
    session_id: str


__all__ = [
    "FileChunkMeta",
    "FileRootMeta",
    "GrepMeta",
    "MonitorMeta",
    "NoteMeta",
    "PromptMeta",
    "ResponseMeta",
    "SessionMeta",
    "SummaryMeta",
    "WebChunkMeta",
]
