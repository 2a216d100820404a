"""The resume digest (docs/capture.md, "Resume after compaction"): what a session did, from the
store, within a token budget, for the SessionStart hook to inject after ``compact``,
``resume`` or ``clear``.

The capture walker writes it after each ingest that stored something, as
``<spool>/digest/<session>.txt`` and ``digest/latest.txt`` (text, redacted, no more than
``budget`` tokens): the hook only reads a file (stdlib, no store, no start-up cost).

It lists, each item with the node id that gets the rest (``ctx_tree_get``): the last prompts
(what was asked), the files read and their symbols asked for, the commands that failed (exit
code and the first line of their output), and the notes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctx_tree_store import Store

#: The digest's default budget (tokens, ctx-tree's estimate).
BUDGET = 800
PROMPTS = 5
FILES = 15
FAILED = 5
NOTES = 5


def _short(text: str, width: int) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def digest(store: Store, session_key: str, budget: int = BUDGET) -> str:
    """The digest of session ``session_key`` in at most ``budget`` tokens; '' when the store
    holds nothing of it."""
    from ctx_tree_compose import estimate_tokens
    from ctx_tree_schema import EdgeKind

    session = store.latest_by_source(f"session://{session_key}")
    if session is None:
        return ""
    children = store.children(session.id)
    prompts = [n for n in children if n.kind.value == "prompt"][-PROMPTS:]
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
    sections: list[list[str]] = []
    if prompts:
        sections.append(
            ["asked:", *(f"- {_short(n.content, 160)} (id {n.id})" for n in reversed(prompts))]
        )
    if files:
        sections.append(
            [
                "files read:",
                *(f"- {n.metadata.get('relpath', n.source_uri)} (id {n.id})" for n in files),
            ]
        )
    if failed:
        rows = ["commands that failed:"]
        for n in reversed(failed):
            command = _short(str(n.metadata.get("command", "")), 80)
            first = _short(n.content.strip().splitlines()[-1] if n.content.strip() else "", 100)
            rows.append(f"- `{command}` exit {n.metadata.get('exit_code')}: {first} (id {n.id})")
        sections.append(rows)
    if notes:
        sections.append(["notes:", *(f"- {_short(n.content, 160)} (id {n.id})" for n in notes)])
    if not sections:
        return ""
    head = (
        "ctx-tree resume digest of this session (each id: ctx_tree_get(node_id=...) gets the "
        "rest; ctx_tree_recent and ctx_tree_search find more):"
    )
    out = [head]
    used = estimate_tokens(head)
    for rows in sections:
        for i, row in enumerate(rows):
            cost = estimate_tokens(row) + 1
            if used + cost > budget:
                if i == 0:
                    break
                out.append("- …")
                break
            out.append(row)
            used += cost
    return "\n".join(out) + "\n"


def write_digest(store: Store, base: Path, session_key: str, budget: int = BUDGET) -> None:
    """Write the digest of ``session_key`` as ``base/digest/<session>.txt`` and
    ``base/digest/latest.txt`` (0600, atomically); nothing when it is empty."""
    from ctx_tree_mcp.wire.redact import redact_text

    text = redact_text(digest(store, session_key, budget))
    if not text:
        return
    from ctx_tree_mcp.wire.spool import digest_file

    folder = base / "digest"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in (Path(digest_file(base, key)).name for key in (session_key, "latest")):
        tmp = folder / f".{name}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, folder / name)
