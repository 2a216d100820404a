"""Typed shapes of ``nodes.metadata`` per node kind (docs/data-model.md, "Node kind reference").

These are :class:`typing.TypedDict` s: documentation and static checking only. The store keeps
``metadata`` as a free JSON object and does not validate it at run time, so callers may add keys
(every shape is ``total=False`` beyond the keys the seed always shows). Times are epoch ms;
``lines`` is a 1-based inclusive ``[start, end]`` pair.
"""

from __future__ import annotations

from typing import TypedDict


class SessionMeta(TypedDict):
    """``session`` (tree root, ``source_uri`` ``session://<session_id>``)."""

    session_id: str
    cwd: str
    started_at: int


class FileRootMeta(TypedDict, total=False):
    """``file_chunk`` with ``is_file_root`` true: the file's root node (``file:///abs/path``)."""

    path: str
    lang: str
    is_file_root: bool
    total_chunks: int


class FileChunkMeta(TypedDict, total=False):
    """``file_chunk`` child of a file root (``file:///abs/path#Symbol``)."""

    path: str
    lang: str
    lines: list[int]
    chunk_index: int
    symbol: str | None
    chunking: str


class GrepMeta(TypedDict, total=False):
    """``tool_output`` of ``ctx_tree_grep`` (``grep://<hash>``)."""

    pattern: str
    path: str
    file_glob: str
    match_count: int
    cwd: str


class MonitorMeta(TypedDict, total=False):
    """``tool_output`` of a command (``cmd://<hash>``): ``ctx_tree_bash`` or a captured
    host tool call. ``exit_code`` and ``duration_ms`` (milliseconds) are None when unknown
    or when the command was killed; ``source`` names who ran it (``ctx_tree_bash``,
    ``hook:Bash``); ``output_bytes`` is the whole output's size, ``lines`` the stored text's."""

    command: str
    exit_code: int | None
    duration_ms: int | None
    cwd: str
    source: str
    output_bytes: int
    lines: int
    timed_out: bool


class WebChunkMeta(TypedDict, total=False):
    """``web_chunk`` (``source_uri`` is the URL)."""

    url: str
    title: str
    description: str
    headings: list[str]
    fetched_at: int


class PromptMeta(TypedDict, total=False):
    """``prompt`` (and the same shape for ``thinking`` / ``response``)."""

    session_id: str
    title: str
    cwd: str
    turn_index: int


class SummaryMeta(TypedDict, total=False):
    """``summary`` (child of the subtree root it summarizes)."""

    session_id: str
    source_node_ids: list[str]
    model: str
    subtree_size: int


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
    "SessionMeta",
    "SummaryMeta",
    "WebChunkMeta",
]
