"""Storing a command's output as a ``tool_output`` node with monitor metadata.

The one place that persists command output, whoever ran the command: ``ctx_tree_bash``, and
the capture hooks for the host's own Bash, Grep and Glob results. The output is redacted
first (``redact.py``), then, when it is longer than ``capture.maxBytes`` (UTF-8 bytes), its
first and last parts are kept around a one-line marker: a command's verdict (test summary,
error, exit status) is usually at its end. The node hangs under the session, is written in one
transaction, and has ``source_uri`` ``cmd://<sha256 of cwd and command>`` (see
``docs/data-model.md``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctx_tree_mcp.wire.redact import redact_key_bodies, redact_text

if TYPE_CHECKING:
    from ctx_tree_schema import MonitorMeta

    from ctx_tree_mcp.engines.parts import SessionParts


__all__ = ["Recorded", "command_uri", "keep_head_and_tail", "record_output"]


#: Statuses an older run's node may have to be superseded by a newer run.
_SUPERSEDABLE = ("live", "stale")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What was stored: the node id and its exact content (redacted, possibly cut), so an
    answer's line numbers and ``ctx_tree_get`` offsets refer to the stored text."""

    node_id: str
    content: str
    original_bytes: int
    truncated: bool


def command_uri(command: str, cwd: str) -> str:
    """``cmd://<sha256 hex of cwd NUL command>``: the same command in the same directory
    always gets the same source."""
    key = f"{cwd}\x00{command}".encode("utf-8", "surrogatepass")
    return "cmd://" + hashlib.sha256(key).hexdigest()


#: Most lines reporting a problem kept from the left-out middle of a long output, and the
#: share of ``capture.maxBytes`` they may take.
MIDDLE_LINES = 40
MIDDLE_SHARE = 8


def keep_head_and_tail(text: str, max_bytes: int, original_bytes: int | None = None) -> str:
    """``text`` when it fits ``max_bytes`` UTF-8 bytes, else its first and last parts (cut at
    line ends where there is one) around a marker naming the bytes left out, followed by the
    lines of the left-out part that report a problem (errors, failures, assertions: at most
    :data:`MIDDLE_LINES`, and 1/:data:`MIDDLE_SHARE` of ``max_bytes``).

    ``original_bytes``: the size of the whole output when ``text`` is already a shortened
    copy (the marker then counts from it). The result is at most ``max_bytes`` bytes.
    """
    from ctx_tree_mcp.engines.shell.digest import MAX_LINE_CHARS, problem_lines

    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    whole = max(original_bytes or 0, len(raw))
    room = max(0, max_bytes - 240)
    middle_room = room // MIDDLE_SHARE
    half = (room - middle_room) // 2
    head = raw[:half]
    cut = head.rfind(b"\n")
    head = head[: cut + 1] if cut > half // 2 else head
    tail = raw[len(raw) - half :] if half else b""
    cut = tail.find(b"\n")
    tail = tail[cut + 1 :] if 0 <= cut < half // 2 else tail
    dropped = raw[len(head) : len(raw) - len(tail)].decode("utf-8", "ignore")
    found, count = problem_lines(dropped, MIDDLE_LINES)
    kept: list[str] = []
    size = 0
    for line in found:
        line = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
        size += len(line.encode("utf-8", "surrogatepass")) + 1
        if size > middle_room:
            break
        kept.append(line + "\n")
    omitted = whole - len(head) - len(tail)
    marker = f"[… {omitted:,} bytes left out here: the store keeps the first and last parts (capture.maxBytes)"
    if kept:
        more = f" (the first {len(kept)} of {count:,} found)" if len(kept) < count else ""
        marker += f"; the lines among them that report a problem{more}: …]\n"
        marker += "".join(kept) + "[… end of the left-out part …]\n"
    else:
        marker += " …]\n"
    if head and not head.endswith(b"\n"):
        marker = "\n" + marker
    return head.decode("utf-8", "ignore") + marker + tail.decode("utf-8", "ignore")


def record_output(
    app: SessionParts,
    output: str,
    *,
    command: str,
    cwd: str,
    source: str,
    exit_code: int | None = None,
    duration_ms: int | None = None,
    original_bytes: int | None = None,
    metadata: MonitorMeta | None = None,
    parent_id: str | None = None,
) -> Recorded:
    """Store ``output`` of ``command`` (run in ``cwd``) as a ``tool_output`` node.

    ``source`` names who ran it (``"ctx_tree_bash"``, ``"hook:Bash"``, ...); ``exit_code``
    and ``duration_ms`` (milliseconds) are None when unknown; ``original_bytes`` is the size
    of the whole output when ``output`` is already a shortened copy; ``metadata`` adds keys.
    An earlier live or stale node of the same command in the same ``cwd`` is marked
    superseded by it (a ``supersedes`` edge), in the same transaction. The node's metadata holds ``command``, ``exit_code``, ``duration_ms``, ``cwd``,
    ``source``, ``output_bytes`` and ``lines`` (of the stored text), redacted like the
    content. Returns the :class:`Recorded` node; store errors propagate (nothing is written).
    """
    max_bytes = app.config.data["capture"]["maxBytes"]
    redacted = redact_key_bodies(redact_text(output))
    given = len(output.encode("utf-8", "surrogatepass"))
    whole = max(original_bytes or 0, given)
    content = keep_head_and_tail(redacted, max_bytes, whole)
    # Cut means bytes of the output are missing from the store: the caller passed a shortened
    # copy or the head-and-tail rule dropped a middle. Redaction shortens text but cuts nothing.
    cut = whole > given or content != redacted
    meta: MonitorMeta = {
        "command": command,
        "exit_code": exit_code,
        "duration_ms": duration_ms,
        "cwd": cwd,
        "source": source,
        "output_bytes": whole,
        "lines": content.count("\n") + (1 if content and not content.endswith("\n") else 0),
    }
    meta.update(metadata or {})
    from ctx_tree_schema import NodeKind

    uri = command_uri(command, cwd)
    store = app.store
    with store.transaction():
        previous = store.latest_by_source(uri)
        node_id = app.recorder.capture(
            NodeKind.TOOL_OUTPUT,
            content,
            source_uri=uri,
            metadata=meta,
            parent_id=parent_id,
            terms=command,
            original_bytes=whole if cut else None,
            redacted=True,
        )
        # The newer run of the same command supersedes the older one (a pending one is left
        # to the filter walker: pending cannot become superseded).
        if previous is not None and previous.id != node_id and previous.status in _SUPERSEDABLE:
            store.supersede(node_id, previous.id)
    return Recorded(node_id, content, whole, cut)
