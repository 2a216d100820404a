"""Tool round trips through the official MCP client over stdio.

1. cached ``ctx_tree_read(symbol=…)``: p50/p95 of N calls after a first (parsing) read;
2. ``ctx_tree_grep`` over the CPython standard library vs plain ``rg -n`` of the same
   pattern in the same run (ratio of medians);
3. tokens returned vs native whole-file Read and plain ``rg -n`` for those calls.

    uv run python bench/tools.py [--runs 50] [--tree /path/to/python3.11]
        [--file argparse.py --symbol ArgumentParser.parse_known_args]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
PATTERNS = [r"def __init__\(", r"class \w+Error\b", "import threading", r"\bself\.assert\w+"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(v: float) -> str:
    return f"{v * 1000:.2f} ms"


async def main(runs: int, tree: Path, file: str, symbol: str) -> None:
    from ctx_tree_compose import estimate_tokens
    from ctx_tree_mcp.engines.grep.ripgrep import find_rg
    from mcp import Client, StdioServerParameters

    rg = find_rg()
    with tempfile.TemporaryDirectory() as home:
        env = {"CTX_TREE_HOME": home, "PATH": os.environ.get("PATH", ""), "HOME": home}
        params = StdioServerParameters(command=SERVER, cwd=str(tree), env=env)
        async with Client(params, mode="legacy") as client:
            args = {"path": file, "symbol": symbol}
            first = await client.call_tool("ctx_tree_read", args)
            assert not first.is_error, first
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                r = await client.call_tool("ctx_tree_read", args)
                times.append(time.perf_counter() - t0)
            text = r.content[0].text
            native = estimate_tokens(
                "".join(
                    f"{n:6d}\t{ln}\n"
                    for n, ln in enumerate((tree / file).read_text().splitlines()[:2000], 1)
                )
            )
            print(
                f"cached ctx_tree_read(symbol) round trip: p50 {ms(statistics.median(times))}, p95 {ms(pct(times, 0.95))} over {runs} calls"
            )
            print(
                f"  tokens: {estimate_tokens(text)} returned vs {native} for a native whole-file Read ({estimate_tokens(text) * 100 / native:.1f}%)"
            )

            for pattern in PATTERNS:
                ours, theirs = [], []
                for _ in range(max(3, runs // 10)):
                    t0 = time.perf_counter()
                    g = await client.call_tool(
                        "ctx_tree_grep", {"pattern": pattern, "budget_tokens": 2000}
                    )
                    ours.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    out = subprocess.run(
                        [rg, "-n", "--no-heading", "--", pattern],
                        cwd=tree,
                        capture_output=True,
                        text=True,
                        check=False,
                    )
                    theirs.append(time.perf_counter() - t0)
                ratio = statistics.median(ours) / statistics.median(theirs)
                print(
                    f"grep {pattern!r}: ctx-tree p50 {ms(statistics.median(ours))} vs rg -n {ms(statistics.median(theirs))} "
                    f"(x{ratio:.2f}); tokens {estimate_tokens(g.content[0].text)} vs {estimate_tokens(out.stdout)}"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--tree", type=Path, default=Path(os.__file__).parent, help="default: the CPython stdlib"
    )
    parser.add_argument("--file", default="argparse.py", help="file under --tree read by symbol")
    parser.add_argument(
        "--symbol", default="ArgumentParser.parse_known_args", help="symbol of --file to read"
    )
    ns = parser.parse_args()
    if not (ns.tree / ns.file).is_file():
        parser.error(f"{ns.tree / ns.file} does not exist: give --file (and --symbol) under --tree")
    asyncio.run(main(ns.runs, ns.tree, ns.file, ns.symbol))
