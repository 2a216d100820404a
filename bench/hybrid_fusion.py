"""Recall@10 and hit@1 of fusion variants, on the stores ``bench/eval_modes.py`` embedded.

    uv run python bench/hybrid_fusion.py --homes bench/results/eval-modes-homes \\
        --embedding-url http://127.0.0.1:8765/v1 [--only '^ts-'] [--k 60,20,5] [--weights 1,1.5,2]

For every public task whose package store is under ``--homes`` (the corpus read and embedded
by a semantic run), it takes the three rankings hybrid search fuses once: BM25 (50, nodes with
every word first), the vectors (50) and the symbol ranking of their union
(``ctx_tree_mcp.engines.search.symbol_rank``), then scores offline: each alone, the default convex
combination of normalized scores (``ctx_tree_mcp.engines.search.fusion.convex``), the two-way RRF of BM25
and vectors, and the three-way RRF ``Σ w_i / (k + rank_i)`` for each ``k`` and vector weight. A hit counts as the driver's
metadata check does: the task's file, with a line range holding the gold start line. Use it
to choose ``search.rrfK``; with few tasks, expect to overfit.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fuse(rankings: list[tuple[list[str], float]], k: int) -> list[str]:
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, node_id in enumerate(ids, 1):
            scores[node_id] = scores.get(node_id, 0.0) + weight / (k + rank)
    return [i for i, _ in sorted(scores.items(), key=lambda item: -item[1])]


def first_good(ids: list[str], good: set[str], n: int = 10) -> int | None:
    return next((r for r, i in enumerate(ids[:n], 1) if i in good), None)


def summary(ranks: list[int | None]) -> str:
    n = len(ranks)
    recall = sum(1 for r in ranks if r is not None) / n
    hit1 = sum(1 for r in ranks if r == 1) / n
    return f"recall@10 {100 * recall:5.1f}%  hit@1 {100 * hit1:5.1f}%"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--homes", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/ctx-eval-corpus"))
    ap.add_argument(
        "--tasks", type=Path, default=ROOT.parent / "shared" / "eval" / "tasks-public.jsonl"
    )
    ap.add_argument("--embedding-url", required=True)
    ap.add_argument("--model", default="multilingual-e5-small-q4")
    ap.add_argument("--only", default="")
    ap.add_argument("--k", default="60,20,10,5")
    ap.add_argument("--weights", default="1,1.5")
    args = ap.parse_args()

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.search.fusion import convex
    from ctx_tree_mcp.engines.search.symbol_rank import rank as symbol_rank
    from ctx_tree_mcp.providers import embedder_from_config
    from ctx_tree_schema import Filters, merge_config

    config = merge_config(
        (
            "bench",
            {
                "embeddingModel": args.model,
                "embedding": {
                    "provider": "openai",
                    "baseUrl": args.embedding_url,
                    "queryInputType": "query",
                    "documentInputType": "passage",
                },
            },
        )
    )
    embedder = embedder_from_config(config)
    tasks = [json.loads(line) for line in args.tasks.read_text().splitlines() if line.strip()]
    tasks = [
        t for t in tasks if re.search(args.only, t["id"]) and (args.homes / t["corpus"]).is_dir()
    ]
    rows = []
    convex_ranks: list[int | None] = []
    for t in tasks:
        app = App(args.corpus / t["corpus"], home=args.homes / t["corpus"])
        try:
            keyword = app.store.search(t["query"], 50, Filters(), snippets=False)
            query_vector = embedder.embed_query(t["query"])
            vector = app.store.vector_search(args.model, query_vector, 50)
            pool = {h.node.id: h.node for h in keyword} | {h.node.id: h.node for h in vector}
            scored = symbol_rank(t["query"], list(pool.values()), app.store.index_words)
            symbols = [i for i, _ in scored]
            similarity = app.store.vector_similarities(args.model, query_vector, list(pool))
            by_scores = [
                i
                for i, _ in convex(
                    list(pool),
                    {h.node.id: h.score for h in keyword},
                    {h.node.id: h.coverage for h in keyword},
                    similarity,
                    dict(scored),
                )
            ]
        finally:
            app.close()

        def good(node, t=t) -> bool:
            lines = node.metadata.get("lines")
            return (
                (node.metadata.get("relpath") == t["file"])
                and bool(lines)
                and (lines[0] <= t["gold_start"] <= lines[1])
            )

        gold = {h.node.id for h in keyword if good(h.node)} | {
            h.node.id for h in vector if good(h.node)
        }
        rows.append(([h.node.id for h in keyword], [h.node.id for h in vector], symbols, gold))
        convex_ranks.append(first_good(by_scores, gold))
    print(f"{len(rows)} tasks")
    print(f"keyword          {summary([first_good(k, g) for k, _, _, g in rows])}")
    print(f"semantic         {summary([first_good(v, g) for _, v, _, g in rows])}")
    print(f"symbols          {summary([first_good(s, g) for _, _, s, g in rows])}")
    print(f"convex (default) {summary(convex_ranks)}")
    for k in (int(x) for x in args.k.split(",")):
        two = [first_good(fuse([(kw, 1.0), (v, 1.0)], k), g) for kw, v, _, g in rows]
        print(f"2-way k={k:<3}      {summary(two)}")
        for w in (float(x) for x in args.weights.split(",")):
            ranks = [first_good(fuse([(kw, 1.0), (v, w), (s, 1.0)], k), g) for kw, v, s, g in rows]
            print(f"3-way k={k:<3} w={w:<4} {summary(ranks)}")


if __name__ == "__main__":
    main()
