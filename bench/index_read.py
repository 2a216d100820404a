"""A cached ``ctx_tree_read`` by symbol while the server's background index works, vs idle.

    uv run python bench/index_read.py                 # 700 stdlib .py files, 6 rounds
    uv run python bench/index_read.py --rounds 4 --edit 700

The real server (``ctx-tree-mcp``) over stdio through the official MCP client, on a temporary
copy of the standard library's files (as bench/index.py). The read is
``ctx_tree_read(argparse.py, symbol=ArgumentParser.parse_known_args)`` after a first read that
stored it and the start-up index of every file. Each round: reads back to back for
``--idle-s`` seconds while the index is idle (``idle``), then ``--edit`` files are edited (a
comment appended; the next ones each round), so the watcher re-indexes them (with the worker
pool above 64 files), and the same reads run until the index has recorded that run
(``indexing``). Idle and indexing windows alternate, so a shared machine's load drifts into
both. Prints p50/p95 of both, their ratio
(the aim: indexing p50 <= 1.25x idle p50), and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from index import STDLIB, stdlib_files

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
FILE, SYMBOL = "argparse.py", "ArgumentParser.parse_known_args"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def index_runs(home: Path) -> int:
    """How many index runs the store has recorded (read-only, another process's commits)."""
    from ctx_tree_store._db import connect_readonly

    stores = list(home.glob("*/store.db"))
    if not stores:
        return 0
    con = connect_readonly(stores[0])
    try:
        return int(con.execute("SELECT count(*) FROM walker_runs WHERE walker = 'index'").get)
    finally:
        con.close()


async def main(n_files: int, rounds: int, idle_s: float, edit: int) -> None:
    from mcp import Client, StdioServerParameters

    work = Path(tempfile.mkdtemp(prefix="ctx-index-read-"))
    home, proj = work / "home", work / "proj"
    files = stdlib_files(n_files)
    if STDLIB / FILE not in files:
        files.append(STDLIB / FILE)
    for p in files:
        dst = proj / p.relative_to(STDLIB)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dst)
    env = {"CTX_TREE_HOME": str(home), "PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    if os.environ.get("PYTHONPATH"):  # another checkout's code, for a before/after run
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=SERVER, cwd=str(proj), env=env)
    idle: list[float] = []
    busy: list[float] = []
    index_s: list[float] = []
    try:
        async with Client(params, mode="legacy") as client:
            args = {"path": FILE, "symbol": SYMBOL}

            async def read() -> float:
                t0 = time.perf_counter()
                r = await client.call_tool("ctx_tree_read", args)
                took = time.perf_counter() - t0
                assert not r.is_error, r
                return took

            await read()
            deadline = time.monotonic() + 300
            while index_runs(home) < 1:  # the start-up index of every file
                if time.monotonic() > deadline:
                    raise SystemExit("the server's index did not finish in 300 s")
                await asyncio.sleep(0.2)
            for r in range(rounds):
                await asyncio.sleep(0.5)  # the watcher's echo of the last run settles
                t0 = time.perf_counter()
                while time.perf_counter() - t0 < idle_s:
                    idle.append(await read())
                before = index_runs(home)
                t0 = time.perf_counter()
                for p in files[r * edit % len(files) :][:edit]:
                    dst = proj / p.relative_to(STDLIB)
                    with open(dst, "a", encoding="utf-8") as fh:
                        fh.write(f"\n# edited by the bench at {t0}\n")
                while index_runs(home) == before:
                    busy.append(await read())
                    if time.perf_counter() - t0 > 300:
                        raise SystemExit("the re-index did not finish in 300 s")
                index_s.append(time.perf_counter() - t0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    p50_idle, p50_busy = statistics.median(idle), statistics.median(busy)
    print(
        f"files: {len(files)}; {rounds} rounds of {idle_s:.0f} s idle, then {edit} files "
        f"edited; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"idle:     p50 {p50_idle * 1000:.2f} ms, p95 {pct(idle, 0.95) * 1000:.2f} ms "
        f"({len(idle)} reads)"
    )
    print(
        f"indexing: p50 {p50_busy * 1000:.2f} ms, p95 {pct(busy, 0.95) * 1000:.2f} ms "
        f"({len(busy)} reads during re-index runs of {statistics.median(index_s):.1f} s median)"
    )
    print(f"ratio of p50s: {p50_busy / p50_idle:.2f}x (aim <= 1.25x)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=700)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--idle-s", type=float, default=5.0, help="seconds of idle reads a round")
    ap.add_argument("--edit", type=int, default=200, help="files edited (re-indexed) a round")
    ns = ap.parse_args()
    asyncio.run(main(ns.files, ns.rounds, ns.idle_s, ns.edit))
