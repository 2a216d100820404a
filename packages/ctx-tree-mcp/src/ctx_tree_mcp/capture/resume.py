"""The resume digest (docs/capture.md, "Resume after compaction"): what a session did, from the
store, within a token budget, for the SessionStart hook to inject after ``compact``,
``resume`` or ``clear``.

The capture walker writes it after each ingest that stored something, as
``<spool>/digest/<session>.txt`` and ``digest/latest.txt`` (text, redacted, no more than
``budget`` tokens): the hook only reads a file (stdlib, no store, no start-up cost).

It lists, each item with the node id that gets the rest (``ctx_tree_get``): the last prompts
(what was asked), each with the start of its answer, the files read, the commands that failed
(exit code and the last line of their output), and the notes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tree_mcp.wire.spool import DIGEST_MAX_CHARS

if TYPE_CHECKING:
    from ctx_tree_schema import Node
    from ctx_tree_store import Store

#: The digest's default budget (tokens, ctx-tree's estimate).
BUDGET = 800
#: Most characters of a digest: what the SessionStart hook reads of the file (the protocol's
#: ``wire.spool.DIGEST_MAX_CHARS``).
MAX_CHARS = DIGEST_MAX_CHARS
PROMPTS = 5
FILES = 15
FAILED = 5
NOTES = 5
#: Characters of a prompt shown, and of its answer: the newest answer more, since the turn
#: cut off by a compaction is the one most worth resuming.
PROMPT_CHARS = 160
ANSWER_CHARS = 160
NEWEST_ANSWER_CHARS = 480
#: Node statuses whose content a digest shows (a pruned node's content is gone).
_SHOWN = ("pending", "live", "stale")


def _short(text: str, width: int) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def _answers(children: list[Node], prompts: list[Node]) -> dict[str, Node]:
    """Per prompt id, its answer: the response naming the prompt's ``prompt_id``, else the last
    response stored after the prompt and before the next one (hosts that send no prompt id)."""
    responses = [n for n in children if n.kind.value == "response" and n.status.value in _SHOWN]
    by_pid = {str(n.metadata.get("prompt_id")): n for n in responses if n.metadata.get("prompt_id")}
    order = [n for n in children if n.kind.value == "prompt"]
    out: dict[str, Node] = {}
    for prompt in prompts:
        pid = str(prompt.metadata.get("prompt_id") or "")
        found = by_pid.get(pid) if pid else None
        if found is None:
            later = [p.id for p in order if p.id > prompt.id]
            upto = later[0] if later else None
            turn = [n for n in responses if n.id > prompt.id and (upto is None or n.id < upto)]
            found = turn[-1] if turn else None
        if found is not None:
            out[prompt.id] = found
    return out


def digest(store: Store, session_key: str, budget: int = BUDGET) -> str:
    """The digest of session ``session_key`` in at most ``budget`` tokens and
    :data:`MAX_CHARS` characters; '' when the store holds nothing of it.

    Sections, each newest first: what was asked, each prompt with the start of its answer;
    the files read; the commands that failed; the notes. When they do not all fit, the
    sections take items in turn (a prompt and its answer are one item), so each keeps a share
    of the budget; a section cut short ends with ``- …``."""
    from ctx_tree_schema import EdgeKind

    session = store.latest_by_source(f"session://{session_key}")
    if session is None:
        return ""
    children = store.children(session.id)
    prompts = [n for n in children if n.kind.value == "prompt"][-PROMPTS:]
    answers = _answers(children, prompts)
    failed = [
        n
        for n in children
        if n.kind.value == "tool_output"
        and isinstance(n.metadata.get("exit_code"), int)
        and n.metadata.get("exit_code") != 0
    ][-FAILED:]
    notes = [n for n in children if n.kind.value == "note"][-NOTES:]
    files = [
        nb.node
        for nb in store.neighbors(session.id, 1, [EdgeKind.REFERENCES], "out", 200, spine=False)
        if nb.node.kind.value == "file_chunk" and nb.node.metadata.get("is_file_root")
    ][-FILES:]
    sections: list[tuple[str, list[list[str]]]] = []
    if prompts:
        turns = []
        for k, n in enumerate(reversed(prompts)):
            turn = [f"- {_short(n.content, PROMPT_CHARS)} (id {n.id})"]
            answer = answers.get(n.id)
            if answer is not None:
                width = NEWEST_ANSWER_CHARS if k == 0 else ANSWER_CHARS
                turn.append(f"  answered: {_short(answer.content, width)} (id {answer.id})")
            turns.append(turn)
        sections.append(("asked, newest first, and the start of each answer:", turns))
    if files:
        rows = [
            [f"- {n.metadata.get('relpath', n.source_uri)} (id {n.id})"] for n in reversed(files)
        ]
        sections.append(("files read:", rows))
    if failed:
        items = []
        for n in reversed(failed):
            command = _short(str(n.metadata.get("command", "")), 80)
            first = _short(n.content.strip().splitlines()[-1] if n.content.strip() else "", 100)
            items.append([f"- `{command}` exit {n.metadata.get('exit_code')}: {first} (id {n.id})"])
        sections.append(("commands that failed:", items))
    if notes:
        sections.append(
            (
                "notes:",
                [[f"- {_short(n.content, PROMPT_CHARS)} (id {n.id})"] for n in reversed(notes)],
            )
        )
    if not sections:
        return ""
    head = (
        "ctx-tree resume digest of this session (each id: ctx_tree_get(node_id=...) gets the "
        "rest; ctx_tree_recent and ctx_tree_search find more):"
    )
    return _fit(head, sections, budget)


#: What a section cut short ends with.
_MORE = "- …"


def _fit(head: str, sections: list[tuple[str, list[list[str]]]], budget: int) -> str:
    """``head`` and the sections, as many items of each as fit in ``budget`` tokens and
    :data:`MAX_CHARS` characters, taken in turn across the sections (the first item of a
    section brings its title; room for a closing ``- …`` is kept while items are left)."""
    from ctx_tree_compose import estimate_tokens

    def cost(lines: list[str]) -> tuple[int, int]:
        return sum(estimate_tokens(x) + 1 for x in lines), sum(len(x) + 1 for x in lines)

    more_tokens, more_chars = cost([_MORE])
    tokens, chars = cost([head])
    taken = [0] * len(sections)
    open_ = [bool(items) for _, items in sections]
    while any(open_):
        for s, (title, items) in enumerate(sections):
            if not open_[s]:
                continue
            lines = items[taken[s]] if taken[s] else [title, *items[0]]
            t, c = cost(lines)
            left = taken[s] + 1 < len(items)  # a "- …" must still fit after this item
            if (
                tokens + t + (more_tokens if left else 0) > budget
                or chars + c + (more_chars if left else 0) > MAX_CHARS
            ):
                open_[s] = False
                continue
            tokens, chars = tokens + t, chars + c
            taken[s] += 1
            open_[s] = taken[s] < len(items)
    out = [head]
    for (title, items), n in zip(sections, taken, strict=True):
        if not n:
            continue
        out += [title, *(line for item in items[:n] for line in item)]
        if n < len(items):
            out.append(_MORE)
    return "\n".join(out) + "\n"


def write_digest(store: Store, base: Path, session_key: str, budget: int = BUDGET) -> None:
    """Write the digest of ``session_key`` as ``base/digest/<session>.txt`` and
    ``base/digest/latest.txt`` (0600, atomically); nothing when it is empty."""
    from ctx_tree_mcp.wire.redact import redact_text

    text = redact_text(digest(store, session_key, budget))
    if not text:
        return
    if len(text) > MAX_CHARS:  # a redaction mark longer than what it hid: whole lines only
        text = text[: text.rindex("\n", 0, MAX_CHARS) + 1]
    from ctx_tree_mcp.wire.spool import digest_file

    folder = base / "digest"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in (Path(digest_file(base, key)).name for key in (session_key, "latest")):
        tmp = folder / f".{name}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, folder / name)
