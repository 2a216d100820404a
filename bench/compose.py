"""Compose over a real store: depth-2 ``ctx_tree_compose`` from random chunk seeds.

Builds (once, cached under --home) a store by reading every Python file of the CPython
standard library through the ``ctx_tree_read`` handler, so the nodes are real chunks, then
times the compose handler (BFS, scoring with a query, packing, rendering) in process.

    uv run python bench/compose.py [--home /tmp/ctx-bench-compose] [--runs 50]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import time
from pathlib import Path

STDLIB = Path(os.__file__).parent


def build(app, limit_files: int) -> int:
    from ctx_tree_mcp.errors import ToolInputError
    from ctx_tree_mcp.tools.read import read

    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)[:limit_files]
    t0 = time.perf_counter()
    for n, path in enumerate(files, 1):
        with contextlib.suppress(ToolInputError):  # binary or undecodable files
            read(app, path.relative_to(STDLIB).as_posix(), budget_tokens=100)
        if n % 200 == 0:
            print(f"  read {n}/{len(files)} files, {time.perf_counter() - t0:.0f}s", flush=True)
    return len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/ctx-bench-compose"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--files", type=int, default=5000)
    args = parser.parse_args()
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.tools.compose import compose

    app = App(STDLIB, home=args.home)
    nodes = sum(c for c, _ in app.store.counts().values())
    if nodes < 1000:
        print(f"building the store from {STDLIB} …")
        build(app, args.files)
        nodes = sum(c for c, _ in app.store.counts().values())
    print(f"store: {nodes:,} nodes, {app.store.size_bytes() / 1e6:.0f} MB")
    ids = [
        r[0]
        for r in app.store.con.execute(
            "SELECT id FROM nodes WHERE kind = 'file_chunk' AND parent_id IS NOT NULL AND status = 'live'"
        ).fetchall()
    ]
    rng = random.Random(7)
    queries = [
        "parse arguments",
        "socket timeout",
        "unicode decode error",
        "thread lock",
        "http header",
    ]
    times = []
    for i in range(args.runs):
        seeds = rng.sample(ids, 1 + i % 3)
        t0 = time.perf_counter()
        compose(app, seeds, query=queries[i % len(queries)], budget_tokens=4000, depth=2)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(
        f"compose depth 2, budget 4000, query: p50 {statistics.median(times) * 1000:.1f} ms, "
        f"p95 {times[int(0.95 * len(times)) - 1] * 1000:.1f} ms over {args.runs} runs"
    )
    app.close()


if __name__ == "__main__":
    main()
