"""Bench the compose algorithm alone (no SQLite) on a 100k-node in-memory graph.

    uv run python bench/compose_algo.py [--nodes 100000] [--runs 50] [--seed 7]

Builds a DictGraph shaped like a ctx-tree store — sessions → file roots → chunks on the
spine, plus random lateral edges — then times ``compose`` at depth 2 from 1–3 random
seeds, and from a single session root (the widest fan-out), with a one-word query and a
4,000-token budget. Prints p50/p95 wall time in ms per scenario.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ctx_tree_compose import DictGraph, NodeInfo, compose, render_manifest

HOUR_MS = 3_600_000
WORDS = [f"w{i}" for i in range(300)]
STATUSES = ["live"] * 17 + ["stale", "superseded", "pending"]


def build(n_nodes: int, rng: random.Random, now: int) -> tuple[DictGraph, list[str]]:
    g = DictGraph()
    ids: list[str] = []

    def add(parent: str | None) -> str:
        node_id = f"n{len(ids):07d}"
        g.add(
            NodeInfo(
                node_id,
                tokens=rng.randint(20, 2000),
                updated_at=now - rng.randint(0, 48 * HOUR_MS),
                status=rng.choice(STATUSES),
            ),
            parent=parent,
            text=" ".join(rng.choices(WORDS, k=8)),
        )
        ids.append(node_id)
        return node_id

    n_sessions = max(1, n_nodes // 1000)
    n_files = max(1, n_nodes // 50)
    sessions = [add(None) for _ in range(n_sessions)]
    files = [add(rng.choice(sessions)) for _ in range(n_files)]
    while len(ids) < n_nodes:
        add(rng.choice(files))
    for _ in range(n_nodes // 2):
        g.link(rng.choice(ids), rng.choice(ids))
    return g, ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    now = 1_750_000_000_000
    t0 = time.perf_counter()
    graph, ids = build(args.nodes, rng, now)
    build_s = time.perf_counter() - t0

    print(f"graph: {len(graph):,} nodes, built in {build_s:.1f}s")
    random_seeds = [rng.sample(ids, rng.randint(1, 3)) for _ in range(args.runs)]
    session_seeds = [[rng.choice(ids[: max(1, args.nodes // 1000)])] for _ in range(args.runs)]
    plan = None
    for label, seed_sets in (("random seeds", random_seeds), ("session seed", session_seeds)):
        timings: list[float] = []
        candidates: list[int] = []
        capped = 0
        for seeds in seed_sets:
            query = rng.choice(WORDS)
            t = time.perf_counter()
            plan = compose(graph, seeds, budget_tokens=4000, depth=2, query=query, now_ms=now)
            timings.append((time.perf_counter() - t) * 1000)
            candidates.append(len(plan.included) + len(plan.dropped) + (plan.truncated is not None))
            capped += plan.capped
        timings.sort()
        p95 = timings[min(len(timings) - 1, round(0.95 * (len(timings) - 1)))]
        print(
            f"{label}: compose depth=2 budget=4000 +query, {len(timings)} runs: "
            f"p50={statistics.median(timings):.2f}ms p95={p95:.2f}ms max={timings[-1]:.2f}ms; "
            f"candidates median={statistics.median(candidates):.0f} max={max(candidates)}, "
            f"capped {capped}/{len(timings)}"
        )
    if plan is not None:
        print("last manifest:")
        print(render_manifest(plan, max_dropped=5))


if __name__ == "__main__":
    main()
