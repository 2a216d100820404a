"""``ctx_tree_bash``, measured against the command run alone in the same run.

    uv run python bench/bash.py [--rounds 9]

1. ``seq 1 200000`` (1.3 MB of output): the handler (run, redact, store, digest) against the
   same command through ``$SHELL -c`` with its output read into memory (``subprocess.run``),
   interleaved rounds, medians; the answer must fit its budget. Also the runner alone (no
   store, no digest) to show where the time goes.
2. ``sleep 100`` with ``timeout_s=1``: time to answer, and processes of its group left.
3. Binary output (``head -c 200000 /dev/urandom``): the answer is valid UTF-8 within budget.
4. A command that reads stdin (``cat; read x``): time to answer.
5. Long test-run output: a generated package of 400 pytest tests, one failing in the middle,
   run with ``pytest -v``; and a generated 20,000-line build log with one compiler error in
   the middle. Tokens of the answer against the raw output; the failing test's name and its
   assertion (the error and its file:line) must be in the answer.

Everything runs in process on a temporary store (``CTX_TREE_HOME``) and project directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def _group_left(pgid: int) -> int:
    left = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        left += fields[0] != "Z" and int(fields[2]) == pgid
    return left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctx-bench-bash-"))
    os.environ["CTX_TREE_HOME"] = str(tmp / "home")
    root = tmp / "proj"
    root.mkdir()

    from ctx_tree_mcp.answers.budget import estimate_tokens
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.shell.run import run_command, user_shell
    from ctx_tree_mcp.tools.bash import bash

    app = App(root, session_key="bench")
    shell = user_shell()
    bash(app, "true")  # open the store, create the session

    print(f"shell {shell}; python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}")
    command = "seq 1 200000"
    alone, runner, tool, sizes = [], [], [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        out = subprocess.run([shell, "-c", command], stdout=subprocess.PIPE, check=True)
        alone.append(time.perf_counter() - t)
        t = time.perf_counter()
        run_command(command, root, timeout_s=60, keep_bytes=app.config.get("capture", "maxBytes"))
        runner.append(time.perf_counter() - t)
        t = time.perf_counter()
        answer = bash(app, command, budget_tokens=2000)
        tool.append(time.perf_counter() - t)
        sizes.append(estimate_tokens(answer))
    a, r, b = (statistics.median(x) for x in (alone, runner, tool))
    print(f"\n1. {command} ({len(out.stdout):,} bytes), median of {args.rounds}")
    print(f"   command alone ($SHELL -c, output read): {_ms(a)}")
    print(f"   runner alone (process group, head+tail kept): {_ms(r)}  x{r / a:.2f}")
    print(f"   ctx_tree_bash (run+redact+store+digest): {_ms(b)}  x{b / a:.2f} (aim <= x1.2)")
    print(f"   answer: {max(sizes):,} tokens (budget 2,000; raw {len(out.stdout) // 4:,})")
    _breakdown(app, root, command, args.rounds)

    t = time.perf_counter()
    from ctx_tree_mcp.engines.shell.run import run_command as rc

    res = rc("sleep 100", root, timeout_s=1, keep_bytes=1000)
    took = time.perf_counter() - t
    answer = bash(app, "echo before; sleep 100", timeout_s=1)
    print("\n2. sleep 100, timeout_s=1")
    print(f"   returned in {_ms(took)} (aim <= 2 s); processes of its group left: "
          f"{_group_left(res.pgid)}; answer starts {answer.splitlines()[0]!r}")  # fmt: skip

    answer = bash(app, "head -c 200000 /dev/urandom", budget_tokens=1000)
    answer.encode("utf-8")
    print("\n3. head -c 200000 /dev/urandom")
    print(f"   answer valid UTF-8, {estimate_tokens(answer):,} tokens (budget 1,000); "
          f"binary note: {'looks binary' in answer}")  # fmt: skip

    t = time.perf_counter()
    answer = bash(app, "cat; read x; echo stdin-closed")
    print("\n4. cat; read x")
    print(f"   answered in {_ms(time.perf_counter() - t)}: {answer.splitlines()[0]!r}, "
          f"{'stdin-closed' in answer}")  # fmt: skip

    print("\n5. long test-run output")
    _pytest_scenario(app, root, bash, estimate_tokens)
    _log_scenario(app, root, bash, estimate_tokens)
    app.close()


def _breakdown(app, root: Path, command: str, rounds: int) -> None:
    """Where the time over the runner goes: decode, redact + store, digest."""
    from ctx_tree_mcp.engines.shell.record import record_output
    from ctx_tree_mcp.engines.shell.run import output_text, run_command
    from ctx_tree_mcp.tools.bash import _render

    keep = app.config.get("capture", "maxBytes")
    result = run_command(command, root, timeout_s=60, keep_bytes=keep)
    parts: dict[str, list[float]] = {"decode": [], "redact+store": [], "digest": []}
    for i in range(rounds):
        t = time.perf_counter()
        text, binary = output_text(result)
        parts["decode"].append(time.perf_counter() - t)
        t = time.perf_counter()
        rec = record_output(app, text + f"\n{i}", command=command, cwd=str(root), source="bench")
        parts["redact+store"].append(time.perf_counter() - t)
        t = time.perf_counter()
        _render(app, result, rec, binary, 2000)
        parts["digest"].append(time.perf_counter() - t)
    print(
        "   breakdown: " + ", ".join(f"{k} {_ms(statistics.median(v))}" for k, v in parts.items())
    )


def _pytest_scenario(app, root: Path, bash, estimate_tokens) -> None:
    pkg = root / "suite"
    (pkg / "tests").mkdir(parents=True)
    (pkg / "pytest.ini").write_text("[pytest]\n")
    body = []
    for i in range(400):
        if i == 213:
            body.append(
                "def test_invoice_total_includes_tax():\n"
                "    subtotal, rate = 100, 0.2\n"
                "    assert subtotal * (1 + rate) == 125\n\n\n"
            )
        else:
            body.append(f"def test_case_{i:03d}():\n    assert {i} + 1 == {i + 1}\n\n\n")
    (pkg / "tests" / "test_billing.py").write_text("".join(body))
    command = f"cd suite && {sys.executable} -m pytest -v -p no:cacheprovider tests"
    raw = subprocess.run(
        ["sh", "-c", command], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ).stdout.decode()
    for budget in (1000, 2000):
        answer = bash(app, command, budget_tokens=budget)
        name = "test_invoice_total_includes_tax" in answer
        assertion = "assert (100 * (1 + 0.2)) == 125" in answer
        print(f"   pytest -v, 400 tests, 1 failing (budget {budget:,}): "
              f"{estimate_tokens(answer):,} tokens vs raw {estimate_tokens(raw):,} "
              f"(x{estimate_tokens(answer) / estimate_tokens(raw):.2f}); "
              f"failing test named: {name}; assertion shown: {assertion}")  # fmt: skip


def _log_scenario(app, root: Path, bash, estimate_tokens) -> None:
    log = root / "build.log"
    lines = [f"[{i:05d}] CC src/module_{i:05d}.c -o build/module_{i:05d}.o" for i in range(20000)]
    lines[11234] = "src/net/socket.c:482:17: error: 'SO_REUSEPORT' undeclared (first use)"
    lines.append("make: *** [Makefile:40: build/net/socket.o] Error 1")
    log.write_text("\n".join(lines) + "\n")
    raw = log.read_text()
    answer = bash(app, "cat build.log; exit 2", budget_tokens=2000)
    print(f"   20,000-line build log, 1 error at line 11,235 (budget 2,000): "
          f"{estimate_tokens(answer):,} tokens vs raw {estimate_tokens(raw):,} "
          f"(x{estimate_tokens(answer) / estimate_tokens(raw):.3f}); error shown: "
          f"{'socket.c:482:17' in answer}; make verdict shown: {'Error 1' in answer}")  # fmt: skip


if __name__ == "__main__":
    main()
