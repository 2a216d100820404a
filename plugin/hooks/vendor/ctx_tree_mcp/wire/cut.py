"""Where text longer than ``capture.maxBytes`` is cut, so that a secret across the cut is
replaced whole instead of kept in part (docs/capture.md, docs/security.md).

Text is redacted before it is cut: the part kept and :data:`REDACT_MARGIN` characters past it
are redacted together, then the margin goes. The hooks cut a captured event's text this way
(:func:`cut_event`, :func:`cut_redacted`); a read of a file stores its head the same way
(``engines/files/filecache.py``). Standard library only, Python 3.8+ (loaded by the hooks).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Characters (or bytes) past the limit redacted with the part kept (the longest one-line
#: secrets are a few hundred characters; PEM bodies are found without their END line).
REDACT_MARGIN = 4096


def head(text: str, size: int) -> str:
    """The first ``size`` characters of ``text`` and up to :data:`REDACT_MARGIN` more, to a
    line end when there is one in the margin."""
    end = text.rfind("\n", size, size + REDACT_MARGIN)
    return text[: end + 1 if end >= 0 else size + REDACT_MARGIN]


def tail(text: str, size: int) -> str:
    """The last ``size`` characters of ``text`` and up to :data:`REDACT_MARGIN` more, from a
    line start when there is one in the margin."""
    start = text.find("\n", max(0, len(text) - size - REDACT_MARGIN), len(text) - size)
    return text[start + 1 if start >= 0 else max(0, len(text) - size - REDACT_MARGIN) :]


def cut_event(event: "dict[str, Any]", limit: int) -> None:
    """Cut the ``text`` of a captured event longer than ``limit`` characters to its windows, in
    place, and record what the whole held (``original_chars``, ``original_bytes``: UTF-8,
    ``original_lines``) for the stored node and a grep's match count. A command's output keeps
    its first and last halves (its verdict is at the end: engines/shell/record.py), unless
    they overlap (then it goes whole, or their common part would be stored twice); any other
    text keeps its head. Characters are at least UTF-8 bytes, so the ingester cuts exactly."""
    text = event.get("text")
    if not isinstance(text, str) or len(text) <= limit:
        return
    event["original_chars"] = len(text)
    event["original_bytes"] = len(text.encode("utf-8", "surrogatepass"))
    event["original_lines"] = text.count("\n") + (0 if text.endswith("\n") else 1)
    if event.get("kind") == "bash":
        half = limit // 2
        first, last = head(text, half), tail(text, half)
        if len(first) + len(last) < len(text):
            event["text"] = first + ("" if first.endswith("\n") else "\n") + last
    else:
        event["text"] = head(text, limit)


def cut_redacted(event: "dict[str, Any]", limit: int) -> None:
    """Cut a redacted event's text to ``limit`` characters, in place. An unredacted one, and a
    command's output, keep their windows past the limit: the ingester redacts them, then cuts
    (a command's output around the middle, keeping its end)."""
    if event.get("kind") == "bash" or not event.get("redacted"):
        return
    text = event.get("text")
    if isinstance(text, str) and len(text) > limit:
        event["text"] = text[:limit]
