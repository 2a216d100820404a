"""Bench semantic and hybrid search at scale, excluding the query's embedding call.

    uv run python bench/vectors.py [--nodes 100000] [--dims 384] [--runs 30] [--dir DIR]

Builds one store of ``--nodes`` file chunks (40-line windows of the CPython standard library,
repeated, as ``bench/store.py`` does) and gives each a ``--dims`` vector: a random unit vector
per source file plus per-chunk noise, so chunks of one file cluster as real embeddings do.
Then, over the same query set, it times (p50 / p95 over ``--runs`` queries each):

* ``keyword``: ``Store.search`` (BM25), the baseline measured in the same run;
* ``semantic``: ``Store.vector_search`` (sign-bit scan, then exact cosine over the candidates);
* ``hybrid``: the tool's retrieval path (BM25's and the vectors' 50 candidates and the symbol
  ranking of their union, fused by the default convex combination; ``hybrid, RRF`` the same
  fused by RRF, ``search.fusion = "rrf"``, alternated query by query) with an in-process embedder that returns a precomputed vector
  at once: the embedding call excluded. Each chunk gets the ``symbol`` and ``doc`` metadata a
  read would store (its first ``def``/``class`` and that one's docstring line), so the symbol
  ranking does the work it does on real code.

It also reports vectors written per second (``Store.put_vectors``, batches of 500).
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from store import QUERIES, generate, load_corpus

_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.M)
_DOCSTRING = re.compile(r'^\s*[rRbB]?(?:"""|\'\'\')\s*([^\n]+)', re.M)


def with_symbols(gen: Iterator[tuple[Any, Any, bool]]) -> Iterator[tuple[Any, Any, bool]]:
    """``generate``'s nodes, each chunk given ``symbol`` and ``doc`` metadata as a read gives
    them (its first definition's name and docstring line)."""
    for node, edge, is_chunk in gen:
        if is_chunk:
            name = _DEF.search(node.content)
            if name:
                node.metadata["symbol"] = name.group(1)
                doc = _DOCSTRING.search(node.content, name.end())
                if doc:
                    node.metadata["doc"] = doc.group(1).strip(" \"'")
        yield node, edge, is_chunk


def unit(v: list[float]) -> list[float]:
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class InstantEmbedder:
    """Returns a fixed vector at once: hybrid timing without the provider's latency."""

    model = "bench"

    def __init__(self, vector: list[float]) -> None:
        self.vector = vector
        self.dimensions = len(vector)

    def embed_query(self, text: str) -> list[float]:
        return self.vector

    def embed(self, texts):
        return [self.vector for _ in texts]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--dims", type=int, default=384)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.search.retrieval import search as retrieval_search
    from ctx_tree_schema import Filters

    rng = random.Random(1)
    corpus = load_corpus(Path(sysconfig.get_paths()["stdlib"]))
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="ctx-vec-bench-"))
    root = workdir / "proj"
    root.mkdir(parents=True, exist_ok=True)
    app = App(root, home=workdir / "home")
    store = app.store
    started = time.perf_counter()
    gen = with_symbols(generate(corpus))
    batch, edges, chunks = [], [], 0
    while chunks < args.nodes:
        node, edge, is_chunk = next(gen)
        batch.append(node)
        if edge:
            edges.append(edge)
        chunks += is_chunk
        if len(batch) >= 2000:
            store.insert(batch, edges)
            batch, edges = [], []
    if batch:
        store.insert(batch, edges)
    print(f"inserted {chunks} chunks in {time.perf_counter() - started:.0f} s", file=sys.stderr)

    d = args.dims
    centers: dict[str, list[float]] = {}

    def center(key: str) -> list[float]:
        if key not in centers:
            centers[key] = unit([rng.gauss(0, 1) for _ in range(d)])
        return centers[key]

    noise = 0.6 / math.sqrt(d)
    put_seconds, written, after = 0.0, 0, 0
    while True:
        todo = store.missing_vectors("bench", limit=500, after_rowid=after)
        if not todo:
            break
        after = todo[-1][0]
        items = []
        for _, node in todo:
            c = center((node.source_uri or "").split("#")[0])
            items.append((node.id, node.content_hash, unit([x + rng.gauss(0, noise) for x in c])))
        t0 = time.perf_counter()
        written += store.put_vectors("bench", items)
        put_seconds += time.perf_counter() - t0
    print(f"{written} vectors written", file=sys.stderr)

    queries = [q for qs in QUERIES.values() for q in qs]
    keys = list(centers)
    times: dict[str, list[float]] = {"keyword": [], "semantic": [], "hybrid": [], "hybrid, RRF": []}

    def hybrid(q: str, fusion: str) -> None:
        app.config.data["search"]["fusion"] = fusion
        retrieval_search(app, q, "hybrid", 10, Filters())

    for q in queries:
        qv = unit([x + rng.gauss(0, noise) for x in center(rng.choice(keys))])
        app.__dict__["_embedder"] = (InstantEmbedder(qv), None)
        store.search(q, limit=10)  # warm
        store.vector_search("bench", qv, 10)
        for _ in range(max(1, args.runs // len(queries) + 1)):
            for mode, call in (
                ("keyword", lambda q=q: store.search(q, limit=10)),
                ("semantic", lambda qv=qv: store.vector_search("bench", qv, 10)),
                ("hybrid", lambda q=q: hybrid(q, "convex")),
                ("hybrid, RRF", lambda q=q: hybrid(q, "rrf")),
            ):
                t0 = time.perf_counter()
                call()
                times[mode].append((time.perf_counter() - t0) * 1000)
    print(f"| {chunks:,} chunks x {d} dims | p50 ms | p95 ms |")
    print("|---|---|---|")
    for mode, ts in times.items():
        print(f"| {mode} | {statistics.median(ts):.1f} | {pct(ts, 0.95):.1f} |")
    print(f"\nvectors written: {written / put_seconds:.0f}/s (put_vectors, batches of 500)")
    app.close()


if __name__ == "__main__":
    main()
