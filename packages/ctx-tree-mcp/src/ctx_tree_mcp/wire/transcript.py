"""The answer of the turn that just ended, from a host's transcript file, which lags its Stop
event: Claude Code's JSON lines here, Copilot CLI's ``events.jsonl`` in ``hosts/copilot.py``
(docs/capture.md). Standard library only, Python 3.8+ (loaded by the hooks).
"""

import time

from ctx_tree_mcp.wire.fastjson import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

#: A Stop whose transcript holds no answer after the turn's prompt yet (the host writes it
#: a moment later) reads it again, this often and at most this long, then stores nothing.
TRANSCRIPT_WAIT_S = 1.0
TRANSCRIPT_POLL_S = 0.1
#: The transcript's end read, in bytes (bounded: a device never ends).
TAIL_BYTES = 262144


def _is_prompt(entry: "dict[str, Any]") -> bool:
    """A user entry that is a prompt typed by the user (not a tool result)."""
    message = entry.get("message")
    if entry.get("type") != "user" or not isinstance(message, dict) or entry.get("isMeta"):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        kinds = [b.get("type") for b in content if isinstance(b, dict)]
        return "text" in kinds and "tool_result" not in kinds
    return False


def tail_lines(path: str, tail_bytes: int = TAIL_BYTES) -> "list[bytes]":
    """The lines of the last ``tail_bytes`` of the file at ``path``. Raises ``OSError``
    (``FileNotFoundError`` when there is none yet)."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - tail_bytes))
        return fh.read(tail_bytes).splitlines()


def newest_entries(lines: "list[bytes]") -> "Iterator[dict[str, Any]]":
    """The JSON objects among ``lines`` (a JSON-lines transcript), last first; other lines
    are skipped. Parsed one at a time, as the caller reads on."""
    for raw in reversed(lines):
        try:
            entry = loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def _turn_answer(transcript_path: str, tail_bytes: int) -> "tuple[str, bool]":
    """``(answer, found)``: the last assistant text after the transcript's last prompt;
    ``found`` is False when that prompt has no answer yet (the transcript lags)."""
    try:
        lines = tail_lines(transcript_path, tail_bytes)
    except (OSError, ValueError):
        return "", True
    for entry in newest_entries(lines):
        if _is_prompt(entry):
            return "", False  # this turn's prompt, and no answer after it (yet)
        message = entry.get("message")
        if entry.get("type") == "assistant" and isinstance(message, dict):
            blocks = message.get("content")
            texts = [
                b["text"]
                for b in (blocks if isinstance(blocks, list) else [])
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
            ]
            if any(texts):
                return "\n".join(texts), True
    return "", True


def last_answer(
    transcript_path: str, tail_bytes: int = TAIL_BYTES, wait_s: float = TRANSCRIPT_WAIT_S
) -> str:
    """The answer of the turn that just ended, from a Claude Code transcript (JSON lines):
    the last assistant text after the last prompt, or ''. When the transcript does not hold
    it yet, it is read again every :data:`TRANSCRIPT_POLL_S` for at most ``wait_s``; then ''
    (nothing stored rather than the previous turn's answer). '' for no path."""
    if not transcript_path:
        return ""
    return wait_for_answer(lambda: _turn_answer(transcript_path, tail_bytes), wait_s)


def wait_for_answer(
    read: "Callable[[], tuple[str, bool]]", wait_s: float, poll_s: float = TRANSCRIPT_POLL_S
) -> str:
    """``read()`` -> ``(answer, found)``, called again every ``poll_s`` until ``found`` or
    ``wait_s`` seconds have passed; the last answer."""
    deadline = time.monotonic() + wait_s
    while True:
        text, found = read()
        if found or time.monotonic() >= deadline:
            return text
        time.sleep(poll_s)
