"""Redaction cost: ``redact()`` over real source trees, this tree's rules beside a baseline's.

The baseline is ``redact.py`` as another commit has it (``git show REV:…``, loaded as a module
of its own), measured in the same run, rounds interleaved, CPU time of this process (best
round). Each file is redacted whole, as the index does; a file whose redaction takes longer
than ``--cap`` CPU seconds is stopped there and counted (``re`` checks for signals while it
matches, so a backtracking pattern is stopped too): its cost is counted as the cap.

Printed per corpus: files, MB, CPU seconds and ms per MB for each side, the files stopped at
the cap, the slowest file, and how many files the two sides redact differently.

Corpora: the running Python's standard library (not its tests) and any ``--tree DIR`` (for
example a checkout of a PHP framework: ``git archive`` of a snapshot). Nothing is downloaded.

    uv run python bench/redact.py [--baseline REV] [--tree DIR ...] [--rounds 3] [--cap 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
MODULE = "packages/ctx-tree-mcp/src/ctx_tree_mcp/{}/redact.py"
#: Source and text files of a tree, as the index reads them.
SUFFIXES = {".py", ".php", ".js", ".ts", ".go", ".rs", ".java", ".rb", ".c", ".h", ".md", ".rst",
            ".txt", ".json", ".yaml", ".yml", ".toml", ".ini", ".xml", ".html", ".twig", ".sh",
            ".lock", ".cfg", ".env.dist", ".xlf"}  # fmt: skip


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def baseline(rev: str, into: Path) -> ModuleType:
    """``redact.py`` at ``rev`` (under ``guard/`` or ``wire/``)."""
    for package in ("wire", "guard"):
        shown = subprocess.run(
            ["git", "show", f"{rev}:{MODULE.format(package)}"],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        if shown.returncode == 0:
            path = into / "redact_baseline.py"
            path.write_text(shown.stdout)
            return load(path, "redact_baseline")
    sys.exit(f"no redact.py at {rev}")


def current() -> ModuleType:
    for package in ("wire", "guard"):
        path = ROOT / MODULE.format(package)
        if path.exists():
            return load(path, "redact_current")
    sys.exit("no redact.py in this tree")


def stdlib() -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    texts = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("test", "site-packages", "idlelib") or "tests" in rel.parts:
            continue
        texts.append(path.read_text("utf-8", errors="replace"))
    return texts


def tree(root: Path) -> list[str]:
    texts = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in SUFFIXES and path.stat().st_size <= 1_000_000:
            texts.append(path.read_text("utf-8", errors="replace"))
    return texts


class Stopped(Exception):
    pass


@contextmanager
def cap(seconds: float) -> Iterator[None]:
    def stop(_signum: int, _frame: object) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def one_round(
    redact: Callable[[str], tuple[str, dict[str, int]]], texts: list[str], limit: float
) -> tuple[float, int, float, list[object]]:
    """CPU seconds, files stopped at the cap, the slowest file's seconds, each file's result."""
    total, stopped, slowest = 0.0, 0, 0.0
    results: list[object] = []
    for text in texts:
        start = time.process_time()
        try:
            with cap(limit):
                results.append(redact(text))
        except Stopped:
            stopped += 1
            results.append(None)
        spent = min(time.process_time() - start, limit)
        total += spent
        slowest = max(slowest, spent)
    return total, stopped, slowest, results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="bd15663", help="git revision of the baseline")
    ap.add_argument("--tree", type=Path, action="append", default=[], help="a source tree")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cap", type=float, default=2.0, help="CPU seconds a file may take")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"baseline": baseline(args.baseline, Path(tmp)), "this tree": current()}
    corpora = {"stdlib": stdlib(), **{str(t): tree(t) for t in args.tree}}
    print(f"baseline {args.baseline}; best of {args.rounds} interleaved rounds; cap {args.cap} s")
    print("| corpus | files | MB | side | CPU s | ms / MB | stopped at cap | slowest file s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, texts in corpora.items():
        mb = sum(map(len, texts)) / 1e6
        best: dict[str, tuple[float, int, float, list[object]]] = {}
        for _ in range(args.rounds):
            for side, module in sides.items():
                got = one_round(module.redact, texts, args.cap)
                if side not in best or got[0] < best[side][0]:
                    best[side] = got
        for side, (total, stopped, slowest, _) in best.items():
            print(f"| {name} | {len(texts):,} | {mb:.1f} | {side} | {total:.2f} | "
                  f"{total / mb * 1000:.1f} | {stopped} | {slowest:.2f} |")  # fmt: skip
        differ = sum(
            a != b
            for a, b in zip(best["baseline"][3], best["this tree"][3], strict=True)
            if a is not None
        )
        print(f"| {name} | files redacted differently (of those the baseline finished): {differ} |")


if __name__ == "__main__":
    main()
