"""What a hook reads out of a host's payload: the text of a tool response, and the answer of
the turn that just ended (from the host's transcript, which lags its Stop event). Shared by
``hook_main.py`` (Claude Code) and ``host_adapters.py`` (the other hosts). Standard library
only, Python 3.8+; docs/capture.md.
"""

import time

from fastjson import loads

#: The keys of a Claude Code tool response that hold its text, first found wins.
TEXT_KEYS = ("text", "content", "result", "output")


def text_of(value, keys=TEXT_KEYS):
    """Text out of a tool response: a string, a list of text blocks, or a dict holding one
    under the first of ``keys`` it has (another host's keys: host_adapters.py)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(v, keys) for v in value) if t)
    if isinstance(value, dict):
        for key in keys:
            if key in value:
                return text_of(value[key], keys)
    return ""


#: A Stop whose transcript holds no answer after the turn's prompt yet (Claude Code writes it
#: a moment later) reads it again, this often and at most this long, then stores nothing.
TRANSCRIPT_WAIT_S = 1.0
TRANSCRIPT_POLL_S = 0.1


def _is_prompt(entry):
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


def tail_lines(path, tail_bytes):
    """The lines of the last ``tail_bytes`` of the file at ``path`` (bounded: a device never
    ends). Raises ``OSError`` (``FileNotFoundError`` when there is none yet) and ``TypeError``
    for a ``path`` that is not one."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - tail_bytes))
        return fh.read(tail_bytes).splitlines()


def newest_entries(lines):
    """The JSON objects among ``lines`` (a JSON-lines transcript), last first; other lines
    are skipped. Parsed one at a time, as the caller reads on."""
    for raw in reversed(lines):
        try:
            entry = loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def _turn_answer(transcript_path, tail_bytes):
    """``(answer, found)``: the last assistant text after the transcript's last prompt;
    ``found`` is False when that prompt has no answer yet (the transcript lags)."""
    try:
        lines = tail_lines(transcript_path, tail_bytes)
    except (OSError, TypeError):
        return "", True
    for entry in newest_entries(lines):
        if _is_prompt(entry):
            return "", False  # this turn's prompt, and no answer after it (yet)
        message = entry.get("message")
        if entry.get("type") == "assistant" and isinstance(message, dict):
            blocks = message.get("content")
            texts = (
                [
                    b.get("text", "")
                    for b in blocks
                    if isinstance(b, dict) and b.get("type") == "text"
                ]
                if isinstance(blocks, list)
                else []
            )
            if any(texts):
                return "\n".join(texts), True
    return "", True


def last_answer(transcript_path, tail_bytes=262144, wait_s=TRANSCRIPT_WAIT_S):
    """The answer of the turn that just ended, from a Claude Code transcript (JSON lines):
    the last assistant text after the last prompt, or ''. When the transcript does not hold
    it yet (it lags the Stop event), it is read again every TRANSCRIPT_POLL_S for at most
    ``wait_s``; then '' (nothing stored rather than the previous turn's answer)."""
    return wait_for_answer(lambda: _turn_answer(transcript_path, tail_bytes), wait_s)


def wait_for_answer(read, wait_s, poll_s=TRANSCRIPT_POLL_S):
    """``read()`` -> ``(answer, found)``, called again every ``poll_s`` until ``found`` or
    ``wait_s`` seconds have passed; the last answer (a host writes its transcript a moment
    after its Stop hook starts: Claude Code's, Copilot CLI's in host_adapters.py)."""
    deadline = time.monotonic() + wait_s
    while True:
        text, found = read()
        if found or time.monotonic() >= deadline:
            return text
        time.sleep(poll_s)
