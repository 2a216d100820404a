"""Bench the store: batched insert, keyword search, spine/edge walks and bytes on disk.

    uv run python bench/store.py [--sizes 10000,100000,1000000] [--batch 500] [--runs 5]
                                 [--dir DIR] [--no-terms] [--json OUT]

Corpus: the CPython standard library (``--stdlib``, default the interpreter's own ``Lib``;
``site-packages`` and non-UTF-8 files skipped) cut into 40-line windows. Each window becomes a
``file_chunk`` under its file's root node; every "copy" of the library is one ``session`` node
with a ``references`` edge to each file root. Copies repeat (with fresh ids and
``file:///copyN/...`` sources) until the largest size is reached. One store grows through the
sizes; at each size the script measures:

* insert: nodes/s per ``Store.insert`` batch of ``--batch`` nodes (median, p95) and overall;
* search: ``Store.search(q, limit=10)`` latency over a fixed query set (identifiers,
  natural-language phrases, very common words), each query ``--runs`` times (p50, p95, max);
* walks: ``neighbors`` depth 1 and 2 and ``path_to_root`` from 200 random chunks (p50, p95);
* bytes on disk per node (after a WAL checkpoint).

``--no-terms`` inserts with an empty ``terms`` column (identifier splitting skipped) to show its
cost. ``--measure-only STORE_DB --baseline SRC`` times search on an existing bench store by
this checkout and by another copy of the package, alternately (before/after a change):

    git archive main packages/ctx-tree-store/src | tar -x -C /tmp/base
    uv run python bench/store.py --measure-only STORE_DB --runs 7 \\
        --baseline /tmp/base/packages/ctx-tree-store/src

Results print as Markdown; ``--json`` also writes them to a file.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import ctx_tree_store._nodes as nodes_module
from ctx_tree_schema import EdgeKind, NodeKind
from ctx_tree_store import NewNode, Store, new_id
from ctx_tree_store._terms import index_terms

WINDOW = 40
QUERIES = {
    "identifier": ["getaddrinfo", "OrderedDict", "HTTPConnection", "make_archive", "urlparse"],
    "phrase": [
        "parse the config file",
        "open a socket connection",
        "read json from file",
        "how are thread locks released",
        "decode base64 string",
        "compress data with zlib",
    ],
    "common": ["self", "return", "def init", "import os"],
}


def load_corpus(stdlib: Path) -> list[tuple[str, int, int, str]]:
    """``(relative path, first line, last line, text)`` windows of every stdlib ``.py`` file."""
    out: list[tuple[str, int, int, str]] = []
    for path in sorted(stdlib.rglob("*.py")):
        rel = path.relative_to(stdlib)
        if "site-packages" in rel.parts:
            continue
        try:
            lines = path.read_text("utf-8").splitlines(keepends=True)
        except (UnicodeDecodeError, OSError):
            continue
        for i in range(0, len(lines), WINDOW):
            window = lines[i : i + WINDOW]
            out.append((str(rel), i + 1, i + len(window), "".join(window)))
    return out


def generate(corpus: list[tuple[str, int, int, str]]):
    """Yield ``(NewNode, edge or None, is_chunk)`` forever, copy after copy of the corpus."""
    copy = 0
    while True:
        session = new_id()
        meta = {"session_id": f"bench{copy}", "cwd": "/bench", "started_at": 0}
        yield (
            NewNode(
                NodeKind.SESSION, "", source_uri=f"session://bench{copy}", metadata=meta, id=session
            ),
            None,
            False,
        )
        root = ""
        current = None
        for rel, start, end, text in corpus:
            uri = f"file:///copy{copy}/{rel}"
            if rel != current:
                current, root = rel, new_id()
                root_meta = {"path": uri[7:], "lang": "python", "is_file_root": True}
                yield (
                    NewNode(
                        NodeKind.FILE_CHUNK,
                        f"{rel} (python)",
                        source_uri=uri,
                        metadata=root_meta,
                        terms=rel,
                        id=root,
                    ),
                    (session, root, EdgeKind.REFERENCES),
                    False,
                )
            chunk_meta = {"path": uri[7:], "lang": "python", "lines": [start, end]}
            yield (
                NewNode(
                    NodeKind.FILE_CHUNK,
                    text,
                    parent_id=root,
                    source_uri=f"{uri}#L{start}-{end}",
                    metadata=chunk_meta,
                    terms=rel,
                ),
                None,
                True,
            )
        copy += 1


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def measure(store: Store, chunk_ids: list[str], runs: int, rng: random.Random) -> dict:
    out: dict = {}
    per_kind: dict[str, list[float]] = {}
    hits: dict[str, int] = {}
    for kind, queries in QUERIES.items():
        for q in queries:
            store.search(q, limit=10)  # warm the page cache for this query
            for _ in range(runs):
                per_kind.setdefault(kind, []).append(timed(store.search, q, limit=10))
            hits[q] = len(store.search(q, limit=10))
    every = [t for ts in per_kind.values() for t in ts]
    out["search_ms"] = {"all": every, **per_kind}
    out["search_hits"] = hits
    sample = rng.sample(chunk_ids, min(200, len(chunk_ids)))
    out["neighbors1_ms"] = [timed(store.neighbors, n, depth=1) for n in sample]
    out["neighbors2_ms"] = [timed(store.neighbors, n, depth=2, limit=1000) for n in sample]
    out["path_to_root_ms"] = [timed(store.path_to_root, n) for n in sample]
    with store._lock:
        store.con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    count = store.con.execute("SELECT count(*) FROM nodes").get
    out["nodes"] = count
    out["bytes_per_node"] = store.size_bytes() / count
    return out


def load_baseline(src: Path):
    """The ``Store`` class of another copy of ctx-tree-store (its ``src`` directory, e.g. from
    ``git archive main``), imported under a second name beside this checkout's."""
    import importlib.util

    init = src / "ctx_tree_store" / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        "ctx_tree_store_baseline", init, submodule_search_locations=[str(init.parent)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"--baseline: no ctx_tree_store package under {src}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.Store


def compare_search(path: Path, baseline: Path, runs: int) -> int:
    """Search on one store by this checkout and by ``baseline``, each query timed alternately
    (load noise hits both alike); p50/p95 per query kind and hits holding every word."""
    stores = {"baseline": load_baseline(baseline).open(path), "this": Store.open(path)}
    times: dict[str, dict[str, list[float]]] = {name: {} for name in stores}
    print("| query | baseline p50 ms | this p50 ms | hits with every word (baseline / this) |")
    print("|---|---:|---:|---|")
    for kind, queries in QUERIES.items():
        for q in queries:
            per = {name: [] for name in stores}
            for st in stores.values():
                st.search(q, limit=10)  # warm the page cache for this query
            for _ in range(runs):
                for name, st in stores.items():
                    per[name].append(timed(st.search, q, limit=10))
            every = [sum(h.matched_all for h in st.search(q, limit=10)) for st in stores.values()]
            for name, values in per.items():
                times[name].setdefault(kind, []).extend(values)
            print(
                f"| {q} | {statistics.median(per['baseline']):.1f} | "
                f"{statistics.median(per['this']):.1f} | {every[0]} / {every[1]} |"
            )
    nodes = stores["this"].con.execute("SELECT count(*) FROM nodes").get
    print(f"\n| nodes | search | p50 ms | p95 ms | baseline p50 / p95 ms |  ({path})")
    print("|---:|---|---:|---:|---:|")
    for kind in ("all", *QUERIES):
        base, this = (
            [t for k, v in times[n].items() if kind in ("all", k) for t in v] for n in stores
        )
        print(
            f"| {nodes:,} | {kind} | {statistics.median(this):.1f} | {pct(this, 0.95):.1f} | "
            f"{statistics.median(base):.1f} / {pct(base, 0.95):.1f} |"
        )
    for st in stores.values():
        st.close()
    return 0


def measure_only(path: Path, runs: int, rng: random.Random) -> int:
    store = Store.open(path)
    chunk_ids = [
        r[0]
        for r in store.con.execute(
            "SELECT id FROM nodes WHERE parent_id IS NOT NULL AND kind = 'file_chunk' "
            "AND rowid % 97 = 0"
        )
    ]
    m = measure(store, chunk_ids, runs, rng)
    print(f"| nodes | search | p50 ms | p95 ms | max ms |  ({m['nodes']:,} nodes, {path})")
    print("|---:|---|---:|---:|---:|")
    for kind, values in m["search_ms"].items():
        print(
            f"| {m['nodes']:,} | {kind} | {statistics.median(values):.1f} | "
            f"{pct(values, 0.95):.1f} | {max(values):.1f} |"
        )
    for key in ("neighbors1_ms", "neighbors2_ms", "path_to_root_ms"):
        values = m[key]
        print(
            f"| {m['nodes']:,} | {key[:-3]} | {statistics.median(values):.2f} | "
            f"{pct(values, 0.95):.2f} | {max(values):.2f} |"
        )
    print(f"hits: {m['search_hits']}")
    store.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--dir", type=Path, default=None, help="where to build (default: a temp dir)"
    )
    parser.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--no-terms", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--measure-only",
        type=Path,
        default=None,
        metavar="STORE_DB",
        help="skip the build: measure search and walks on an existing bench store",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="SRC",
        help="with --measure-only: time search against the ctx_tree_store package under SRC "
        "too, query by query alternately",
    )
    args = parser.parse_args(argv)
    if args.measure_only and args.baseline:
        return compare_search(args.measure_only, args.baseline, args.runs)
    if args.measure_only:
        return measure_only(args.measure_only, args.runs, random.Random(args.seed))
    sizes = sorted(int(s) for s in args.sizes.split(","))
    rng = random.Random(args.seed)

    t0 = time.perf_counter()
    corpus = load_corpus(args.stdlib)
    chars = sum(len(c[3]) for c in corpus)
    print(
        f"corpus: {len(corpus)} windows of {WINDOW} lines from {args.stdlib}, "
        f"{chars / len(corpus):.0f} chars avg, loaded in {time.perf_counter() - t0:.1f}s",
        file=sys.stderr,
    )
    sample = corpus[: min(5000, len(corpus))]
    start = time.perf_counter()
    for rel, _s, _e, text in sample:
        index_terms(text, rel)
    terms_us = (time.perf_counter() - start) / len(sample) * 1e6
    if args.no_terms:
        nodes_module.index_terms = lambda content, *extra: ""

    workdir = Path(tempfile.mkdtemp(prefix="ctx-tree-bench-", dir=args.dir))
    store = Store.open(workdir / "store.db")
    source = generate(corpus)
    chunk_ids: list[str] = []
    batch_rates: list[float] = []
    inserted = 0
    insert_seconds = 0.0
    results = []
    for size in sizes:
        while inserted < size:
            nodes, edges, chunk_flags = [], [], []
            for _ in range(min(args.batch, size - inserted)):
                node, edge, is_chunk = next(source)
                nodes.append(node)
                chunk_flags.append(is_chunk)
                if edge:
                    edges.append(edge)
            start = time.perf_counter()
            ids = store.insert(nodes, edges)
            elapsed = time.perf_counter() - start
            insert_seconds += elapsed
            batch_rates.append(len(nodes) / elapsed)
            chunk_ids.extend(i for i, flag in zip(ids, chunk_flags, strict=True) if flag)
            inserted += len(nodes)
        m = measure(store, chunk_ids, args.runs, rng)
        m.update(
            size=size,
            insert_overall=inserted / insert_seconds,
            insert_batch_p50=statistics.median(batch_rates),
            insert_batch_p5=pct(batch_rates, 0.05),
        )
        results.append(m)
        s = m["search_ms"]["all"]
        print(
            f"{size}: insert {m['insert_overall']:.0f}/s, search p50 {statistics.median(s):.1f} ms "
            f"p95 {pct(s, 0.95):.1f} ms, {m['bytes_per_node']:.0f} B/node",
            file=sys.stderr,
        )
    ok, fts_ok = store.integrity()
    store.close()

    print(
        f"\nterms: index_terms {terms_us:.0f} us/node ({'skipped' if args.no_terms else 'on'}); "
        f"integrity {ok}, fts {fts_ok}; store at {workdir}\n"
    )
    print("| nodes | insert nodes/s (overall) | per batch median | per batch p5 | bytes/node |")
    print("|---:|---:|---:|---:|---:|")
    for m in results:
        print(
            f"| {m['size']:,} | {m['insert_overall']:,.0f} | {m['insert_batch_p50']:,.0f} | "
            f"{m['insert_batch_p5']:,.0f} | {m['bytes_per_node']:,.0f} |"
        )
    print("\n| nodes | search | p50 ms | p95 ms | max ms |")
    print("|---:|---|---:|---:|---:|")
    for m in results:
        for kind, values in m["search_ms"].items():
            print(
                f"| {m['size']:,} | {kind} | {statistics.median(values):.1f} | "
                f"{pct(values, 0.95):.1f} | {max(values):.1f} |"
            )
    print("\n| nodes | walk | p50 ms | p95 ms |")
    print("|---:|---|---:|---:|")
    for m in results:
        for key in ("neighbors1_ms", "neighbors2_ms", "path_to_root_ms"):
            values = m[key]
            print(
                f"| {m['size']:,} | {key[:-3]} | {statistics.median(values):.2f} | "
                f"{pct(values, 0.95):.2f} |"
            )
    if args.json:
        args.json.write_text(json.dumps({"terms_us": terms_us, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
