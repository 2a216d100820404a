"""Reads and greps of files with huge lines or of tens of MB: CPU time and peak memory.

    uv run python bench/huge_lines.py                          # this checkout
    git worktree add /tmp/base REV
    uv run python bench/huge_lines.py --baseline /tmp/base     # and REV, in the same run

Three generated files (deterministic): ``dist/app.min.js``, 5 MB of minified JavaScript on
one line (69,048 functions); ``one.json``, a 55 MB JSON array on one line; ``gen.py``, 45 MB
of generated Python on 600,000 lines. Each call is one ``ctx-tree`` process with a fresh,
empty ``CTX_TREE_HOME`` (a first read: nothing stored yet), as a user types it:

- ``read dist/app.min.js --budget 500``, ``read one.json --budget 500`` (no selector);
- ``read gen.py --lines 100:102`` and ``--lines 500000:500002`` (three lines);
- ``grep 6999999`` (a match in the 55 MB line).

Prints per call its user+system CPU seconds and peak RSS (``wait4``'s ``ru_maxrss``) for this
checkout and, with ``--baseline``, for another one run by the same interpreter with its
packages' ``src`` first on ``sys.path``; a call over ``--limit`` seconds is killed and shown
as ``>LIMIT``. Wall time is not shown: the machine is shared. The files are made by a child
process: a child's ``ru_maxrss`` counts the pages its parent had at the fork.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = (
    "ctx-tree-schema",
    "ctx-tree-store",
    "ctx-tree-chunk",
    "ctx-tree-compose",
    "ctx-tree-walkers",
    "ctx-tree-mcp",
)

CALLS = (
    ("read app.min.js (5 MB, 1 line), budget 500", ["read", "dist/app.min.js", "--budget", "500"]),
    ("read one.json (55 MB, 1 line), budget 500", ["read", "one.json", "--budget", "500"]),
    ("read gen.py (45 MB) --lines 100:102", ["read", "gen.py", "--lines", "100:102"]),
    ("read gen.py (45 MB) --lines 500000:500002", ["read", "gen.py", "--lines", "500000:500002"]),
    ("grep 6999999 (55 MB line)", ["grep", "6999999"]),
)


def make_files(proj: Path) -> None:
    """The three files, made once per run."""
    (proj / "dist").mkdir(parents=True, exist_ok=True)
    with open(proj / "dist" / "app.min.js", "w") as fh:
        size, i = 0, 0
        while size < 5_000_000:
            part = f"function f{i}(a,b){{var c=a+b*{i};if(c>{i % 97}){{return g{i}(c)}}return c}};"
            fh.write(part)
            size += len(part)
            i += 1
        fh.write("\n")
    with open(proj / "one.json", "w") as fh:
        fh.write("[" + ",".join(str(n) for n in range(7_500_000)) + "]\n")
    with open(proj / "gen.py", "w") as fh:
        for n in range(600_000):
            fh.write(f"VALUE_{n} = {{'id': {n}, 'name': 'item{n}', 'tags': ['a','b','c']}}\n")


def command(checkout: Path | None) -> list[str]:
    """``ctx-tree`` of this environment, or of ``checkout``'s sources."""
    if checkout is None:
        return [sys.executable, "-c", "from ctx_tree_mcp.cli.main import main; main()"]
    paths = [str(checkout / "packages" / p / "src") for p in PACKAGES]
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path[:0] = {paths!r}; from ctx_tree_mcp.cli.main import main; main()",
    ]


def measure(argv: list[str], proj: Path, limit: float) -> tuple[float, int, bool, str]:
    """``(cpu seconds, peak RSS KB, killed, first line)`` of one call in a fresh home."""
    with tempfile.TemporaryDirectory(prefix="ctx-huge-home-") as home:
        env = dict(os.environ, CTX_TREE_HOME=home)
        proc = subprocess.Popen(
            argv,
            cwd=proj,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        out, killed, end = b"", False, time.monotonic() + limit
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            chunk = proc.stdout.read() or b""
            out += chunk[:4096] if len(out) < 4096 else b""
            if pid:
                break
            if time.monotonic() > end and not killed:
                os.killpg(proc.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.05)
        proc.returncode = status
    first = out.decode("utf-8", "replace").splitlines()[0][:70] if out else ""
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss, killed, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout, run alongside")
    parser.add_argument(
        "--limit", type=float, default=300.0, help="seconds before a call is killed"
    )
    parser.add_argument("--only", help="run only the calls whose label holds this")
    parser.add_argument("--make", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:
        make_files(args.make)
        return
    with tempfile.TemporaryDirectory(prefix="ctx-huge-") as work:
        proj = Path(work) / "proj"
        proj.mkdir()
        subprocess.run([sys.executable, __file__, "--make", str(proj)], check=True)
        sides = [("this", None)] + (
            [("baseline", args.baseline.resolve())] if args.baseline else []
        )
        print(f"# huge lines: CPU s (user+sys) and peak RSS; killed past {args.limit:.0f} s\n")
        head = "| call |" + "".join(f" {name} CPU | {name} RSS |" for name, _ in sides)
        print(head)
        print("|---|" + "---:|---:|" * len(sides))
        for label, call in CALLS:
            if args.only and args.only not in label:
                continue
            cells = []
            for _, checkout in sides:
                cpu, rss, killed, _ = measure(command(checkout) + call, proj, args.limit)
                cpu_text = f">{args.limit:.0f}" if killed else f"{cpu:.2f}"
                cells.append(f" {cpu_text} | {rss / 1024:.0f} MB |")
            print(f"| {label} |" + "".join(cells), flush=True)
        print(f"\nload average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
