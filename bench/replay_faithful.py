"""The replay harness with its *faithful* mapping: the ctx-tree call of each native call passes
the native arguments the harness parses and drops.

    python bench/replay_faithful.py HARNESS_DIR run --mirrors ... --out DIR --budget 2000

runs the harness's own ``replay.py`` (imported as a module, not edited) with one change: its
``CtxTree.equivalent`` (native call → ctx-tree argv) is wrapped so that

- a read the harness records as format ``cat`` (``cat F``, ``sed -n 'A,Bp' F``, ``head -n N F``:
  no line numbers) gets ``--no-numbers``; ``cat -n``, ``nl -ba`` and Claude's ``Read`` stay
  numbered;
- a shell grep gets ``--head-limit N`` for ``| head -n N``, ``-A N``/``-B N`` as themselves
  (the harness turns either into ``--context`` of the larger), ``-C N`` as ``--context N``, and
  ``--no-numbers`` when it has no ``-n``/``--line-number``.

The judge gets one rule more, for the un-numbered answers this mode asks for: a ``range``
reference (the next read zoomed into lines this read showed) is held when the answer says it
holds those lines (:func:`holds_range`): it has no manifest, or its manifest names them as
shown, or they lie outside every range it says it left out. The harness's judge looks for
numbered lines (``^N\t``) or a manifest ``L12-40``, which neither ``sed -n`` nor
``read --no-numbers`` prints. The meta's ``"range_refs_by_manifest"`` counts the judgements
that rule changed.

What a call passes is read only from the recorded command (``classify``'s ``fmt`` and the grep's
``native_cmd``), never from its output or what came after. Everything else (which calls, the
commit, the judge, the token counts) is the harness's. The results' ``meta.json`` gains
``"mapping": "faithful"``. docs/benchmarks.md ("Mapping modes") states the limits.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

#: classify's grep regex: the command, its arguments and an optional ``| head -n N``.
_GREP = re.compile(r"^(grep|egrep|rg|git grep)\s+(.*?)(?:\s*\|\s*head\s+(?:-n\s*)?-?(\d+))?$")
#: Options of grep, rg and git grep that take a value (as the harness's ``translate_grep``).
_WITH_VALUE = {
    "-e", "-A", "-B", "-C", "-m", "--include", "--exclude", "--exclude-dir", "-g", "-t",
    "--glob", "--type", "--max-count", "--after-context", "--before-context", "--context",
    "--regexp",
}  # fmt: skip
_MOST_CONTEXT = 10  # ctx_tree_grep's range


def grep_intent(native_cmd: str) -> dict[str, Any]:
    """What a recorded shell grep asked for beyond its pattern: ``{"after", "before",
    "context"}`` (lines, or None when not given), ``numbers`` (``-n``/``--line-number``
    given) and ``head`` (``| head -n N``, or None)."""
    m = _GREP.match(native_cmd)
    out: dict[str, Any] = {"after": None, "before": None, "context": None, "numbers": False}
    out["head"] = int(m.group(3)) if m and m.group(3) else None
    if not m:
        return out
    try:
        tokens = shlex.split(m.group(2))
    except ValueError:
        return out
    side = {"A": "after", "B": "before", "C": "context"}
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t == "--":
            break
        if t.startswith("--"):
            name, eq, value = t.partition("=")
            if name in _WITH_VALUE and not eq:
                k += 1
                value = tokens[k] if k < len(tokens) else ""
            if name == "--line-number":
                out["numbers"] = True
            key = {"--after-context": "after", "--before-context": "before"}.get(name)
            key = key or ("context" if name == "--context" else None)
            if key and value.isdigit():
                out[key] = int(value)
        elif t.startswith("-") and len(t) > 1:
            body = t[1:]
            for j, ch in enumerate(body):
                if ch in "ABCmegt":  # takes a value: the rest of the token, else the next one
                    value = body[j + 1 :]
                    if not value:
                        k += 1
                        value = tokens[k] if k < len(tokens) else ""
                    if ch in side and value.isdigit():
                        out[side[ch]] = int(value)
                    break
                if ch == "n":
                    out["numbers"] = True
        k += 1
    return out


def faithful(argv: list[str], c: dict[str, Any]) -> list[str]:
    """One literal ctx-tree argv (``CtxTree.equivalent``'s) with the native arguments of the
    recorded call ``c`` (``classify``'s dict) added before ``--budget``."""
    extra: list[str] = []
    if c["kind"] == "read" and c.get("fmt") == "cat":
        extra = ["--no-numbers"]
    elif c["kind"] == "grep" and c["rg"].get("native_cmd"):
        want = grep_intent(c["rg"]["native_cmd"])
        # the harness's --context (the largest of -A/-B/-C) is replaced by the sides asked
        if "--context" in argv:
            at = argv.index("--context")
            argv = argv[:at] + argv[at + 2 :]
        if want["context"]:
            extra += ["--context", str(min(want["context"], _MOST_CONTEXT))]
        for key, flag in (("after", "--after-context"), ("before", "--before-context")):
            if want[key] is not None:
                extra += [flag, str(min(want[key], _MOST_CONTEXT))]
        if want["head"]:
            extra += ["--head-limit", str(want["head"])]
        if not want["numbers"]:
            extra.append("--no-numbers")
    if not extra:
        return argv
    at = argv.index("--budget") if "--budget" in argv else len(argv)
    return [*argv[:at], *extra, *argv[at:]]


#: A line range an answer says it left out: a cut range's ``…\t(lines 576-624 not shown)`` gap
#: line and its manifest's ``truncated: lines 576-624 not shown``.
_LEFT_OUT = re.compile(r"lines (\d+)-(\d+) not shown")
#: What a manifest's first line says a cut whole read shows: ``shown: outline, lines 2587-2630``.
_SHOWN = re.compile(r"^-- ctx-tree:.*?; shown: (.*)$", re.M)


def holds_range(answer: str, start: int, end: int) -> bool:
    """Whether a read's answer holds lines ``start..end`` of what it was asked, by what the
    answer says of itself (docs/tools.md, "Footer and manifest"): every line when it has no
    manifest; else, when the manifest names what it shows (a whole read), lines inside one
    of those ranges; else (a cut range read), lines outside every range it says it left out."""
    if not answer.strip():
        return False
    if not answer.startswith("-- ctx-tree:") and "\n-- ctx-tree:" not in answer:
        return True
    shown = _SHOWN.search(answer)
    if shown:
        spans = re.findall(r"lines (\d+)-(\d+)", shown.group(1))
        return any(int(a) <= start and end <= int(b) for a, b in spans)
    gaps = [(int(a), int(b)) for a, b in _LEFT_OUT.findall(answer)]
    return bool(gaps) and all(end < a or b < start for a, b in gaps)


def judge_by_manifest(judge: Any, rescued: list[int]) -> Any:
    """The harness's ``judge(refs, answer) -> list[bool]``, with a ``range`` reference also
    found when :func:`holds_range` says the answer holds its lines; ``rescued[0]`` counts
    the judgements that changed."""

    def wrapped(refs: list[dict[str, Any]], answer: str) -> list[bool]:
        found = judge(refs, answer)
        out = []
        for ref, ok in zip(refs, found, strict=True):
            if not ok and ref["kind"] == "range" and holds_range(answer, ref["start"], ref["end"]):
                rescued[0] += 1
                ok = True
            out.append(ok)
        return out

    return wrapped


def load_harness(harness: Path) -> Any:
    """The harness's ``replay.py`` as a module (``replay_harness``), its ``CtxTree.equivalent``
    wrapped by :func:`faithful` and its ``run`` verb marking the results' meta."""
    spec = importlib.util.spec_from_file_location("replay_harness", harness / "replay.py")
    if spec is None or spec.loader is None:
        sys.exit(f"cannot load {harness / 'replay.py'}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_harness"] = module
    spec.loader.exec_module(module)
    literal = module.CtxTree.equivalent

    def equivalent(self: Any, c: dict[str, Any], run_file: Path | None = None) -> list[list[str]]:
        return [faithful(argv, c) for argv in literal(self, c, run_file)]

    module.CtxTree.equivalent = equivalent
    rescued = [0]
    module.judge = judge_by_manifest(module.judge, rescued)
    run = module.cmd_run

    def cmd_run(args: Any) -> None:
        run(args)
        meta = Path(args.out) / f"results-b{args.budget}.meta.json"
        data = json.loads(meta.read_text())
        data["mapping"] = "faithful"
        data["range_refs_by_manifest"] = rescued[0]
        meta.write_text(json.dumps(data, indent=1))

    module.cmd_run = cmd_run
    return module


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: replay_faithful.py HARNESS_DIR run|report|extract [harness arguments]")
    module = load_harness(Path(sys.argv[1]).resolve())
    sys.argv = [str(Path(sys.argv[1]) / "replay.py"), *sys.argv[2:]]
    module.main()


if __name__ == "__main__":
    main()
