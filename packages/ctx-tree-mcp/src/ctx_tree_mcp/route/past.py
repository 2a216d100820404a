"""What routing would have saved on a host's past sessions (docs/routing.md, "What it saved").

Claude Code keeps each session as a JSONL transcript under
``$CLAUDE_CONFIG_DIR/projects/<project>/`` (else ``~/.claude/projects/``; ``<project>`` is the
project's path with every character but letters and digits replaced by ``-``). For every
``Bash`` call of them that routing would take (``wire/route.py``), the recorded output is
answered as a routed command's would be, in a throw-away store, and both are counted with
ctx-tree's token estimator.

"Kept" is judged as the delivered measurement judges it: the references the session's next
action made to the output (the lines the next edit replaced, and the identifiers quoted in the
next message or call that stand in the output and nowhere before it) must all stand in the
answer. A read is answered from the file as it is now; when the file changed since, it is
answered as a run's output is.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ctx_tree_mcp.wire import route

#: Identifiers, as the delivered measurement reads them.
IDENT = re.compile(r"(?<![\w./-])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?![\w-])")
_STOP_WORDS = """self None True False return import from class def elif else while with print
    assert lambda yield raise except finally async await pass break continue global nonlocal
    this that then there these those which where when what have will would should could been
    being about after before other their them they into only also just like some more most such
    than very file files line lines code test tests function method value values true false null
    undefined const let var type interface export default string number boolean object array"""
STOP = set(_STOP_WORDS.split())
_LINE_PREFIX = re.compile(r"^\s*\d+(?:\t|→|:|-(?=\S)|\s{2,})")


@dataclass
class Call:
    """One ``Bash`` call of a transcript: the command, where it ran, what it printed, what the
    session did next (its text and its next call's input) and everything before it."""

    command: str
    cwd: str
    output: str
    next_text: str = ""
    next_input: dict[str, object] = field(default_factory=dict)
    prior: str = ""


def transcript_dir(root: Path, env: dict[str, str] | None = None) -> Path:
    """Where Claude Code keeps the transcripts of the project at ``root``."""
    env = dict(os.environ) if env is None else env
    base = Path(
        env.get("CLAUDE_CONFIG_DIR") or Path(env.get("HOME") or "~").expanduser() / ".claude"
    )
    return base / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root))


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(c.get("text", ""))
            for c in content
            if isinstance(c, dict) and c.get("type") == "text"
        )
    return ""


def calls(path: Path) -> Iterator[Call]:
    """The ``Bash`` calls of one transcript, in order, with what came after each."""
    uses: dict[str, Call] = {}
    order: list[Call] = []
    prior: list[str] = []
    pending: list[Call] = []  # calls whose next action is not seen yet
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if message.get("role") == "assistant" and kind == "text":
                text = str(block.get("text") or "")
                for call in pending:
                    call.next_text += text + "\n"
                prior.append(text)
            elif message.get("role") == "assistant" and kind == "tool_use":
                given = block.get("input")
                tool_input: dict[str, object] = given if isinstance(given, dict) else {}
                for call in pending:
                    call.next_input = tool_input
                pending = []
                prior.append(json.dumps(tool_input))
                command = tool_input.get("command")
                if block.get("name") == "Bash" and isinstance(command, str):
                    new = Call(command, str(entry.get("cwd") or ""), "")
                    new.prior = "\n".join(prior)
                    uses[str(block.get("id"))] = new
            elif kind == "tool_result":
                text = _text(block.get("content"))
                prior.append(text)
                done = uses.pop(str(block.get("tool_use_id")), None)
                if done is not None:
                    done.output = re.sub(r"^Exit code \d+\n", "", text)
                    order.append(done)
                    pending.append(done)
    yield from order


def _norm(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        line = " ".join(_LINE_PREFIX.sub("", line, count=1).split())
        if line:
            out.append(line)
    return out


def _word(text: str, token: str) -> bool:
    pattern = r"(?<![A-Za-z0-9_])" + re.escape(token) + r"(?![A-Za-z0-9_])"
    return re.search(pattern, text) is not None


def references(call: Call) -> list[tuple[str, str]]:
    """``(kind, value)`` the next action used from the output: ``edit`` lines the next edit
    replaced, ``ident`` identifiers it quoted that stand in the output and nowhere before."""
    refs: list[tuple[str, str]] = []
    native = "\n".join(_norm(call.output))
    old = call.next_input.get("old_string")
    if isinstance(old, str):
        refs += [
            ("edit", ln) for ln in _norm(old) if len(ln.replace(" ", "")) >= 3 and ln in native
        ]
    source = call.next_text + "\n" + json.dumps(call.next_input)
    quoted = {q.strip() for q in re.findall(r"`([^`\n]{2,80})`", source)}
    for token in sorted(set(IDENT.findall(source)) | quoted):
        token = token.strip(".")
        interesting = len(token) >= 4 and token.lower() not in STOP and not token.isdigit()
        if interesting and token not in quoted:
            interesting = "_" in token or "." in token or bool(re.search(r"[a-z][A-Z]", token))
        if (
            interesting
            and _word(call.output, token)
            and not _word(call.prior, token)
            and not _word(call.command, token)
        ):
            refs.append(("ident", token))
    return refs


def kept(refs: list[tuple[str, str]], answer: str) -> bool:
    """Whether every reference stands in ``answer``."""
    lines = "\n".join(_norm(answer))
    return all((v in lines) if k == "edit" else _word(answer, v) for k, v in refs)


@dataclass
class Tally:
    """Totals of one kind of routed command."""

    calls: int = 0
    native: int = 0
    routed: int = 0
    judged: int = 0
    kept: int = 0


def measure(paths: list[Path], root: Path, budget: int, run_budget: int) -> dict[str, Tally]:
    """Per kind (read, grep, run): the calls routing would take, their tokens as the host
    passed them and as routing would have, and how many kept what the next action used."""
    from ctx_tree_mcp.answers.budget import estimate_tokens
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.route.answers import Routed, answer

    tallies: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory() as home:
        app = App(root, home=Path(home))
        try:
            for path in paths:
                for call in calls(path):
                    cwd = call.cwd or str(root)
                    try:
                        shape = route.classify(call.command, cwd)
                    except route.Skip:
                        continue
                    if not call.output.strip() or "<persisted-output>" in call.output:
                        continue
                    where = route.workdir(shape, cwd)
                    b = run_budget if shape.kind == route.RUN else budget
                    got = answer(
                        app, Routed(shape, call.command, where, "", 0.0), call.output.encode(), b
                    )
                    text = call.output if got is None else got
                    t = tallies.setdefault(shape.kind, Tally())
                    t.calls += 1
                    t.native += estimate_tokens(call.output)
                    t.routed += estimate_tokens(text)
                    refs = references(call)
                    if refs:
                        t.judged += 1
                        t.kept += kept(refs, text)
        finally:
            app.close()
    return tallies


def report(root: Path, paths: list[Path], budget: int, run_budget: int) -> str:
    """The table of :func:`measure`, with a totals row."""
    from tabulate import tabulate

    tallies = measure(paths, root, budget, run_budget)
    if not tallies:
        return f"no command routing would take in {len(paths)} transcript(s)\n"
    total = Tally()
    rows = []
    for kind in sorted(tallies):
        t = tallies[kind]
        for name in ("calls", "native", "routed", "judged", "kept"):
            setattr(total, name, getattr(total, name) + getattr(t, name))
        rows.append(_row(kind, t))
    rows.append(_row("all", total))
    head = ["kind", "commands", "native tokens", "routed", "ratio", "kept"]
    return (
        f"{len(paths)} transcript(s) of {root}\n\n"
        + tabulate(rows, headers=head)
        + "\n\nkept: calls whose next action's references all stand in the answer (of those with any)\n"
    )


def _row(kind: str, t: Tally) -> list[object]:
    ratio = f"{t.routed / t.native:.2f}" if t.native else "-"
    kept_text = f"{t.kept}/{t.judged}" if t.judged else "-"
    return [kind, t.calls, f"{t.native:,}", f"{t.routed:,}", ratio, kept_text]
