"""Bench the inspector on a large store: page load in chromium and every JSON endpoint.

    uv run --group browser python bench/inspector.py [--nodes 100000] [--runs 7] [--dir DIR]

Builds (once; reused from ``--dir``) a store of ``--nodes`` nodes from CPython standard library
windows: file roots with their 40-line chunks (``bench/store.py``'s corpus) and sessions holding
greps and notes (one session holds half of them), plus 30 days of usage rows and 300 walker
runs. A baseline store of 200 nodes is built the same way. Then, against ``ctx-tree inspect``
serving each store, it measures:

* each endpoint's latency over HTTP on 127.0.0.1 (median and p95 of ``--runs``), the spine
  including the first and a deep page of the biggest session;
* page load in headless chromium (``/usr/bin/chromium`` or ``$CTX_TREE_CHROMIUM``): from
  navigation to the spine's roots shown (``body[data-ready]``), median of ``--runs`` loads;
  then expanding the biggest session and opening a node.

Prints Markdown with the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests-e2e"))
from e2e_support import CHROMIUM_ARGS  # the flags the browser test uses
from store import load_corpus  # bench/store.py

CLI = [sys.executable, "-c", "from ctx_tree_mcp.cli.main import main; main()"]
DAY_MS = 86_400_000


def build(root: Path, home: Path, nodes: int) -> tuple[str, str]:
    """Fill the store of ``root`` (under ``home``) with ``nodes`` nodes; returns the id of the
    biggest session and of one chunk. Reuses a store already that size."""
    from ctx_tree_schema import EdgeKind, NodeKind, NodeStatus
    from ctx_tree_store import NewNode, Store, new_id, now_ms, store_path

    path = store_path(root, home)
    with Store.open(path) as store:
        have = store.con.execute("SELECT count(*) FROM nodes").get
        if have >= nodes:
            big = store.con.execute(
                "SELECT parent_id FROM nodes WHERE kind = 'note' GROUP BY parent_id "
                "ORDER BY count(*) DESC LIMIT 1"
            ).get
            chunk = store.con.execute(
                "SELECT id FROM nodes WHERE kind = 'file_chunk' AND parent_id IS NOT NULL LIMIT 1"
            ).get
            return big, chunk
        corpus = load_corpus(Path(sysconfig.get_paths()["stdlib"]))
        sessions = [new_id() for _ in range(10)]
        session_nodes = [
            NewNode(
                NodeKind.SESSION,
                "",
                source_uri=f"session://bench{i}",
                metadata={"session_id": f"bench{i}", "cwd": str(root), "started_at": 0},
                id=sid,
            )
            for i, sid in enumerate(sessions)
        ]
        made, batch, edges, i, root_id, current = 0, [], [], 0, "", None
        roots: list[str] = []
        chunk_target = nodes * 6 // 10  # 60% file chunks and roots, 40% greps and notes
        while made < nodes:
            rel, start, end, text = corpus[i % len(corpus)]
            i += 1
            if made < chunk_target:
                copy = i // len(corpus)
                uri = f"file://{root}/copy{copy}/{rel}"
                if (copy, rel) != current:
                    current, root_id = (copy, rel), new_id()
                    roots.append(root_id)
                    batch.append(
                        NewNode(
                            NodeKind.FILE_CHUNK,
                            f"{rel} (python)",
                            source_uri=uri,
                            metadata={"path": uri[7:], "relpath": rel, "is_file_root": True},
                            id=root_id,
                        )
                    )
                    made += 1
                batch.append(
                    NewNode(
                        NodeKind.FILE_CHUNK,
                        text,
                        parent_id=root_id,
                        source_uri=f"{uri}#L{start}-{end}",
                        metadata={"path": uri[7:], "relpath": rel, "lines": [start, end]},
                    )
                )
            else:
                if session_nodes:  # the sessions are the newest roots, as in real use
                    store.insert(batch)
                    batch, made = session_nodes, made + len(session_nodes)
                    session_nodes = []
                    # each session references some of the file roots (lateral edges)
                    edges = [
                        (sessions[k % 10], r, EdgeKind.REFERENCES) for k, r in enumerate(roots)
                    ]
                    store.insert(batch, edges)
                    batch, edges = [], []
                # half to the first session, the rest spread over the others
                sid = sessions[0] if i % 2 == 0 else sessions[1 + i % 9]
                note = i % 3 == 0
                batch.append(
                    NewNode(
                        NodeKind.NOTE if note else NodeKind.TOOL_OUTPUT,
                        text,
                        parent_id=sid,
                        source_uri=f"note://{i}" if note else f"grep://{i}",
                        metadata={"title": f"{rel}:{start}"}
                        if note
                        else {"pattern": rel.split("/")[-1], "path": ".", "match_count": 3},
                        status=NodeStatus.LIVE,
                    )
                )
            made += 1
            if len(batch) >= 500:
                store.insert(batch, edges)
                batch, edges = [], []
        store.insert(batch, edges)
        now = now_ms()
        for day in range(30):
            at = now - day * DAY_MS
            store.record_usage(
                {
                    ("read", "tokens_served"): 4000 + 97 * day,
                    ("read", "tokens_source"): 40000 + 311 * day,
                    ("grep", "tokens_served"): 1500 + 13 * day,
                    ("grep", "tokens_source"): 9000 + 71 * day,
                    ("get", "tokens_served"): 600 + day,
                },
                at=at,
            )
        for run in reversed(range(300)):  # oldest first, as walkers record them
            store.record_walker_run(
                "filter", now - run * 60_000, now - run * 60_000 + 4, "bench", {"promoted": 3}
            )
        return build(root, home, nodes)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def serve(root: Path, home: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [*CLI, "inspect", str(root), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "CTX_TREE_HOME": str(home)},
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    return proc, proc.stdout.readline().strip()


def endpoints(url: str, big: str, chunk: str, runs: int) -> list[tuple[str, float, float]]:
    base, token = url.split("/?token=")
    client = httpx.Client(base_url=base, headers={"X-Ctx-Tree-Token": token}, timeout=60)
    deep = None
    after = None
    for _ in range(20):  # the 21st page of the biggest session (newest first, 50 a page)
        page = client.get("/api/children", params={"parent": big, "after": after}).json()
        after = page["next"]
    deep = after
    calls = {
        "version (poll)": ("/api/version", {}),
        "summary": ("/api/summary", {}),
        "spine roots": ("/api/children", {}),
        "biggest session, first page": ("/api/children", {"parent": big}),
        "biggest session, page 21": ("/api/children", {"parent": big, "after": deep}),
        "session filtered: notes": ("/api/children", {"parent": big, "kind": "note"}),
        "node detail (a chunk)": (f"/api/node/{chunk}", {}),
        "node detail (the session)": (f"/api/node/{big}", {}),
        "search 'socket connection'": ("/api/search", {"q": "socket connection", "limit": 50}),
        "recent + 48 h activity": ("/api/recent", {"limit": 100, "hours": 48}),
        "walkers": ("/api/walkers", {"limit": 500}),
        "savings": ("/api/savings", {"days": 30}),
        "compose preview (a chunk)": ("/api/compose", {"seed": chunk}),
    }
    out = []
    for name, (path, params) in calls.items():
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            res = client.get(path, params=params)
            times.append((time.perf_counter() - t) * 1000)
            assert res.status_code == 200, (name, res.text)
        out.append((name, statistics.median(times), pct(times, 0.95)))
    return out


def page_load(url: str, big: str, runs: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CTX_TREE_CHROMIUM", "/usr/bin/chromium")
    loads, expands, opens = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            t = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']")
            loads.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            page.click(f"#spine > .node[data-id='{big}'] > .row .twisty")
            page.wait_for_selector(f"#spine > .node[data-id='{big}'] .children .row")
            expands.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            page.click(f"#spine > .node[data-id='{big}'] .children .row")
            page.wait_for_selector("#content")
            opens.append((time.perf_counter() - t) * 1000)
            page.close()
        browser.close()
    return {
        "load": statistics.median(loads),
        "expand": statistics.median(expands),
        "open": statistics.median(opens),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--baseline", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "ctx-tree-bench-inspector"
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    results = {}
    for label, size in (("baseline", args.baseline), ("large", args.nodes)):
        root = args.dir / f"proj-{size}"
        root.mkdir(parents=True, exist_ok=True)
        home = args.dir / "home"
        t = time.perf_counter()
        big, chunk = build(root, home, size)
        built = time.perf_counter() - t
        proc, url = serve(root, home)
        try:
            time.sleep(0.5)
            results[label] = {
                "nodes": size,
                "build_s": built,
                "api": endpoints(url, big, chunk, args.runs),
                "page": page_load(url, big, args.runs),
            }
        finally:
            proc.terminate()
            proc.wait(10)
    load_after = os.getloadavg()
    base, large = results["baseline"], results["large"]
    print(f"# inspector bench: {large['nodes']:,} nodes vs a {base['nodes']}-node baseline\n")
    print(
        f"load average (1/5/15 min) before: {load_before[0]:.2f}/{load_before[1]:.2f}/"
        f"{load_before[2]:.2f}; after: {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f}"
        f"; {os.cpu_count()} cores\n"
    )
    print(
        f"| in chromium (median of {args.runs}) | {large['nodes']:,} nodes | {base['nodes']} nodes |"
    )
    print("|---|---|---|")
    for key, what in (
        ("load", "page load → spine roots shown"),
        ("expand", "expand the biggest session"),
        ("open", "open a node (content, edges, graph)"),
    ):
        print(f"| {what} | {large['page'][key]:.0f} ms | {base['page'][key]:.0f} ms |")
    print(
        f"\n| endpoint, p50 / p95 over {args.runs} calls | {large['nodes']:,} nodes | {base['nodes']} nodes |"
    )
    print("|---|---|---|")
    for (name, p50, p95), (_n, b50, b95) in zip(large["api"], base["api"], strict=True):
        print(f"| {name} | {p50:.1f} / {p95:.1f} ms | {b50:.1f} / {b95:.1f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
