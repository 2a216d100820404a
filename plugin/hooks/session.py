"""The SessionStart hook's note: what the store holds from earlier sessions (at most 100
tokens), or after a compaction, ``/clear`` or a resume, the session's digest the server wrote
(``capture/resume.py``). Old spool files are swept first. See docs/capture.md.
"""

import os
import time

from ctx_tree_mcp.wire import spool
from ctx_tree_mcp.wire.fastjson import load_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer
    from ctx_tree_mcp.wire.payload import Reader

#: SessionStart sources after which the session's digest is injected, not the short note.
RESUME_SOURCES = ("compact", "resume", "clear")
#: The store's node kinds the note counts, with their names for people.
LABELS = (
    ("prompt", "prompt", "prompts"),
    ("response", "answer", "answers"),
    ("file", "file", "files"),
    ("tool_output", "command/grep output", "command/grep outputs"),
    ("web_chunk", "web page", "web pages"),
    ("summary", "agent result", "agent results"),
    ("note", "note", "notes"),
)


def _ago(ms: int) -> str:
    s = max(0, time.time() - ms / 1000)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return "%d %s ago" % (s // size, unit)
    return "just now"


def _count(n: int, one: str, many: str) -> str:
    return "%d %s" % (n, one if n == 1 else many)


def session_note(state: "dict[str, Any]", waiting: int) -> str:
    """At most 100 tokens on what the store holds from earlier sessions, or '' when nothing."""
    counts = state.get("counts") if isinstance(state.get("counts"), dict) else {}

    def n(key: str) -> int:
        value = counts.get(key) if counts else None
        return value if isinstance(value, int) else 0

    parts = [_count(n(key), one, many) for key, one, many in LABELS if n(key)]
    if waiting:
        parts.append(_count(waiting, "capture not yet stored", "captures not yet stored"))
    if not parts:
        return ""
    last = state.get("last_capture_at")
    when = " (last %s)" % _ago(last) if isinstance(last, int) else ""
    sessions = " from " + _count(n("session"), "session", "sessions") if n("session") else ""
    return (
        "ctx-tree store for this project holds %s%s%s. Recall before re-reading: "
        'ctx_tree_recent(kind="prompt"), ctx_tree_search(query="..."), then ctx_tree_compose on the hits.'
        % (", ".join(parts), sessions, when)
    )


def resume_digest(base: str, session_id: str) -> str:
    """The digest the server wrote for ``session_id`` (else the latest one), or ''."""
    for path in (spool.digest_file(base, session_id), spool.digest_file(base, "latest")):
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(spool.DIGEST_MAX_CHARS)
        except (OSError, UnicodeDecodeError):
            continue
        if text.strip():
            return text
    return ""


def session_start(
    payload: "Reader", home: str, root: str, log: "Callable[[str, str], None]"
) -> "Answer | None":
    """Sweep the project's spool (``log``: what was deleted), then the note (or the digest)
    as text for the model; None when there is nothing to say."""
    base = spool.spool_dir(home, root)
    gone = spool.sweep(base)
    if gone:
        log(
            home,
            "session-start: deleted %d spool files older than %d days (never ingested)"
            % (gone, spool.SPOOL_MAX_AGE_S // 86400),
        )
    note = session_note(load_file(os.path.join(base, "state.json")), len(spool.waiting(base)))
    if payload.text("source") in RESUME_SOURCES:
        note = resume_digest(base, payload.ident("session_id")) or note
    if not note:
        return None
    from ctx_tree_mcp.wire.answer import Answer

    return Answer(context=note)
