"""One-line descriptions of nodes, shared by the listing tools (search, recent, neighbors…).

A line reads ``<path>:<start>-<end> <symbol> <kind> node_id=<id>`` for file chunks, and
``<kind> <source> node_id=<id>`` otherwise, so both people and parsers find where it points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctx_tree_schema import Node


#: Characters of a pattern, title or URI a label shows; the rest is counted, not shown.
LABEL_CHARS = 120


def _short(text: str) -> str:
    if len(text) <= LABEL_CHARS:
        return text
    return f"{text[:LABEL_CHARS]}… ({len(text):,} characters)"


def quoted(text: str) -> str:
    r"""``text`` in quotes as typed: a grep of ``\bfoo\b`` reads ``'\bfoo\b'``, where ``repr``
    doubled every backslash; ``repr`` still for text with control characters or both quotes."""
    if text.isprintable():
        for quote in ("'", '"'):
            if quote not in text:
                return f"{quote}{text}{quote}"
    return repr(text)


def where(node: Node) -> str:
    """``path:start-end symbol`` for a file chunk, a short source label otherwise (a grep
    pattern, note title or URI past :data:`LABEL_CHARS` characters is cut, with its length)."""
    meta = node.metadata
    rel = meta.get("relpath") or meta.get("path")
    if node.kind.value == "file_chunk" and rel:
        if meta.get("is_file_root"):
            return f"{rel}:1-{meta.get('total_lines', 0)} (file root)"
        s, e = meta.get("lines", [0, 0])
        return f"{rel}:{s}-{e} {meta.get('symbol') or meta.get('kind') or ''}".rstrip()
    if node.kind.value == "tool_output" and meta.get("pattern") is not None:
        pattern = _short(quoted(str(meta["pattern"])))
        return f"grep {pattern} in {meta.get('path', '.')} ({meta.get('match_count', 0)} matches)"
    if node.kind.value == "tool_output" and isinstance(meta.get("command"), str):
        return f"$ {_short(meta['command'])}"  # the command, not its cmd:// hash
    if node.kind.value == "note":
        return f"note {_short(meta.get('title') or '')}".rstrip()
    if node.kind.value == "session":
        from ctx_tree_store import now_ms

        started = when(int(meta.get("started_at", 0)), now_ms())
        return f"session {meta.get('session_id', '')} started {started}"
    return _short(node.source_uri or "")


def when(epoch_ms: int, now_ms: int) -> str:
    """``2026-11-30T09:10:11Z (3 min ago)``: an epoch-ms time as ISO 8601 UTC and its age."""
    import datetime

    stamp = datetime.datetime.fromtimestamp(epoch_ms / 1000, datetime.UTC)
    age = max(0, now_ms - epoch_ms) // 1000
    for unit, seconds in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if age >= seconds:
            ago = f"{age // seconds} {unit} ago"
            break
    else:
        ago = f"{age} s ago"
    return f"{stamp:%Y-%m-%dT%H:%M:%SZ} ({ago})"


def line(node: Node, extra: str = "") -> str:
    """One listing line for ``node``."""
    from ctx_tree_mcp.answers.render import one_line

    status = "" if node.status.value == "live" else f" [{node.status.value}]"
    return one_line(f"{where(node)} {node.kind.value}{status} node_id={node.id}{extra}")
