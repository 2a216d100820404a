"""The capture hooks' work: a Claude-format payload becomes a spool event (``wire/events.py``),
its command is checked against the denylist, its text redacted and cut, and the event is
written into the project's spool (``wire/spool.py``). See docs/capture.md.
"""

import time

from ctx_tree_mcp.wire import spool
from ctx_tree_mcp.wire.events import build_event
from ctx_tree_mcp.wire.fastjson import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ctx_tree_mcp.wire.payload import Reader

#: Fields of an event holding free text: redacted before it is written.
REDACTED_FIELDS = ("text", "command", "pattern", "glob", "title", "url", "path")
#: Characters from the most to the least common in code and command output: a trigger is
#: looked for around its least common character first.
_COMMON_CHARS = " etaoinsrlcdhupmfgybw.,_()=:/-\"'0123456789kvx\n[]{}jqz;>$<*#@!%&?+|\\^~`"
#: A trigger's least common character is tried at most this often before a plain search.
ANCHOR_TRIES = 4
_ANCHORS: "dict[str, tuple[str, int]]" = {}


def capture_event(
    event: str,
    payload: "Reader",
    home: str,
    root: str,
    cfg: "dict[str, dict[str, Any]]",
    log: "Callable[[str, str], None]",
    state: "dict[str, Any]",
) -> str:
    """Spool what ``payload`` (of ctx-tree's hook ``event``) holds for the store, if anything;
    a refused command leaves the session's mark instead. Logs what it drops and why; returns
    the kind of what it kept ('' for nothing). ``state`` is the hook's own (what it is doing,
    and an event ready to spool, for its alarm: ``hook_main._STATE``)."""
    base = spool.spool_dir(home, root)
    session = payload.ident("session_id")
    # an answer ends the turn: a refused command's mark holds until then, captured or not
    refused = event == "stop" and spool.take_refused(base, session)
    record = build_event(event, payload, cfg["capture"])
    if record is None:
        lagged = payload.text("transcript_path") and not payload.text("last_assistant_message")
        if event == "stop" and cfg["capture"]["response"] and lagged:
            log(home, "stop: no answer of this turn in the transcript yet; not stored")
        return ""
    kind = str(record["kind"])
    where = "%s %s" % (event, kind)
    if kind == "bash":
        from ctx_tree_mcp.wire.routed import is_routed

        if is_routed(record["command"]):
            return ""  # ctx-tree answered it and stored its whole output (docs/routing.md)
        reason = refused_command(record["command"], cfg["bash"]["deny"])
        if reason and reason != "UNKNOWN":
            # env, printenv, bash.deny: nothing of it is kept, and the answer that may quote
            # its output is redacted strictly
            try:
                spool.mark_refused(base, session)
            except OSError as exc:
                log(home, "%s: refused command not remembered: %s" % (where, exc.strerror or exc))
            return kind
        record["command_checked"] = reason is None
    elif refused:
        record["env_refused"] = True
    record.update(
        v=spool.SPOOL_VERSION,
        session_id=session,
        prompt_id=payload.ident("prompt_id"),
        tool_use_id=payload.ident("tool_use_id"),
        cwd=payload.text("cwd") or root,
        duration_ms=payload.number("duration_ms"),
        at=int(time.time() * 1000),
    )
    if kind != "read":
        # past its checks: should the alarm ring while redacting, the event is spooled
        # unredacted (0600) and the ingester redacts it
        state["pending"] = (base, root, dict(record, redacted=False))
        state["stage"] = "redacting"
        redact_event(record)
        text = record.get("text")
        if isinstance(text, str) and len(text) > cfg["capture"]["maxBytes"]:
            from ctx_tree_mcp.wire.cut import cut_redacted

            cut_redacted(record, cfg["capture"]["maxBytes"])
    state["pending"] = None
    state["stage"] = "writing the spool"
    try:
        write_event(base, root, record)
    except OSError as exc:
        log(home, "%s: dropped: cannot write the spool: %s" % (where, exc.strerror or exc))
        return ""
    return kind


def write_event(base: str, root: str, record: "dict[str, Any]") -> None:
    """Write ``record`` into the project's spool. Raises ``OSError``."""
    spool.write_event(base, root, dumps(record, ascii_only=False).encode("utf-8", "surrogatepass"))


def refused_command(command: str, deny: "list[str]") -> "str | None":
    """Why the command must not be captured (it prints the environment or is on the
    project's ``bash.deny``: ctx_tree_bash's own rule), or None; ``UNKNOWN`` when the
    denylist could not be loaded (the ingester checks again). The denylist (``re`` and
    ``shlex``: ~5 ms) is loaded only for a command that may be refused (:func:`may_refuse`)."""
    words = spool.generated().get("refusal_words")
    if isinstance(words, list) and words and not may_refuse(command, deny, tuple(words)):
        return None
    try:
        from ctx_tree_mcp.wire.denylist import refusal
    except Exception:
        return "UNKNOWN"
    return refusal(command, deny)


_UNQUOTED = {ord("'"): None, ord('"'): None, ord("\\"): None}


def may_refuse(command: object, deny: object, words: "tuple[str, ...]") -> bool:
    """False when ``ctx_tree_mcp.wire.denylist.refusal`` is certain to return None for
    ``command`` and ``deny``: the command, its quotes and backslashes removed, holds none of
    ``words`` (the module's REFUSAL_WORDS) and no ``deny`` entry's first word. Every word the
    checks compare (a program's name, a script's word after ``sh -c`` or ``eval``, a
    wrapper's command) is a piece of the command with at most quotes and backslashes taken
    out, so it is a substring of that text. True (check it) for a command or ``deny`` of the
    wrong type, an entry holding a quote or a backslash, one whose program is a path, or one
    that is not a string."""
    if not isinstance(command, str) or not isinstance(deny, list):
        return True
    text = command.translate(_UNQUOTED)
    if any(word in text for word in words):
        return True
    for entry in deny:
        if not isinstance(entry, str) or entry.translate(_UNQUOTED) != entry:
            return True
        first = entry.split()[:1]
        if first and (first[0] in text or "/" in first[0]):
            return True
    return False


def _anchor(trigger: str) -> "tuple[str, int]":
    """``(character, its index)``: the least common character of ``trigger``."""
    if trigger not in _ANCHORS:
        rank = [_COMMON_CHARS.find(c) if c in _COMMON_CHARS else 999 for c in trigger]
        index = rank.index(max(rank))
        _ANCHORS[trigger] = trigger[index], index
    return _ANCHORS[trigger]


def triggers_present(lowered: str, triggers: "tuple[str, ...]", letters: str) -> "dict[str, bool]":
    """``{trigger: trigger in lowered}`` for each of ``triggers``, cheaper than scanning for
    each (~0.3M instructions a 100 KB scan): a character test is a memchr (~100x cheaper), so a
    trigger holding a character of ``letters`` the text lacks is absent, and a trigger is
    looked for where its least common character occurs (up to ANCHOR_TRIES places, then by a
    search from there)."""
    absent = {c for c in letters if c not in lowered}
    out = {}
    for trigger in triggers:
        if absent.intersection(trigger):
            out[trigger] = False
            continue
        char, index = _anchor(trigger)
        at, tries, found = lowered.find(char, index), 0, False
        while at >= 0:
            if lowered.startswith(trigger, at - index):
                found = True
                break
            tries += 1
            if tries > ANCHOR_TRIES:  # a common character here: no occurrence starts earlier
                found = lowered.find(trigger, at - index) >= 0
                break
            at = lowered.find(char, at + 1)
        out[trigger] = found
    return out


def redact_event(record: "dict[str, Any]") -> "dict[str, Any]":
    """Redact every free-text field in place; ``record["redacted"]`` says whether it could.

    redact.py runs a rule only when the text holds one of its trigger literals
    (``wire/generated.json``: ``redact_triggers``). Text holding none is returned as redact.py
    would return it, without paying for loading it (~3M instructions), unless the answer
    follows a refused command (``env_refused``: redacted strictly)."""
    data = spool.generated()
    triggers, letters = tuple(data.get("redact_triggers") or ()), data.get("redact_letters")
    fields = [key for key in REDACTED_FIELDS if isinstance(record.get(key), str)]
    strict = record.get("env_refused") is True and isinstance(record.get("text"), str)
    present: dict[str, dict[str, bool]] = {}
    if triggers and isinstance(letters, str):  # else: redact.py looks for each, as ever
        present = {key: triggers_present(record[key].lower(), triggers, letters) for key in fields}
        if not strict and not any(any(found.values()) for found in present.values()):
            record["redacted"] = True
            return record
    try:
        from ctx_tree_mcp.wire import redact
    except Exception:
        record["redacted"] = False
        return record
    for key in fields:
        record[key] = redact.redact_text(record[key], present.get(key))
    if strict:  # after a refused command: its output's NAME=value pairs, whatever they hold
        record["text"] = redact.redact_environment(record["text"])
    record["redacted"] = True
    return record
