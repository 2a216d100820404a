"""Invariants of compose() on random graphs (hypothesis)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import pytest
from ctx_tree_compose import (
    MIN_TRUNCATE_TOKENS,
    ComposePlan,
    DictGraph,
    NodeInfo,
    UnknownSeedError,
    compose,
)
from hypothesis import given, settings
from hypothesis import strategies as st

STATUSES = ("live", "stale", "superseded", "pruned", "pending")
NOW = 1_700_000_000_000
WORDS = ("auth", "main", "parse", "cache")


@dataclass
class Case:
    graph: DictGraph
    seeds: list[str]
    budget: int
    depth: int
    query: str | None
    include: frozenset[str]
    overhead: int


@st.composite
def cases(draw: st.DrawFn) -> Case:
    n = draw(st.integers(1, 40))
    g = DictGraph()
    for i in range(n):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None
        g.add(
            NodeInfo(
                f"n{i:02d}",
                tokens=draw(st.integers(0, 300)),
                updated_at=NOW - draw(st.integers(-10_000_000, 50_000_000)),
                status=draw(st.sampled_from(STATUSES)),
            ),
            parent=None if parent is None else f"n{parent:02d}",
            text=" ".join(draw(st.lists(st.sampled_from(WORDS), max_size=5))),
        )
    for a, b in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n)):
        g.link(f"n{a:02d}", f"n{b:02d}")
    seeds = [f"n{i:02d}" for i in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))]
    return Case(
        graph=g,
        seeds=seeds,
        budget=draw(st.integers(1, 2000)),
        depth=draw(st.integers(0, 5)),
        query=draw(st.one_of(st.none(), st.sampled_from(WORDS))),
        include=frozenset(draw(st.sets(st.sampled_from(STATUSES), min_size=1))),
        overhead=draw(st.sampled_from([0, 0, 3])),
    )


def reference_distances(g: DictGraph, seeds: list[str], depth: int) -> dict[str, int]:
    """Plain one-node-at-a-time BFS, including the ring at depth + 1."""
    dist = dict.fromkeys(seeds, 0)
    queue = deque(seeds)
    while queue:
        node_id = queue.popleft()
        if dist[node_id] > depth:
            continue
        for m in g.neighbors([node_id]).get(node_id, []):
            if m not in dist:
                dist[m] = dist[node_id] + 1
                queue.append(m)
    return dist


def run(case: Case, max_candidates: int = 2000) -> ComposePlan:
    return compose(
        case.graph,
        case.seeds,
        budget_tokens=case.budget,
        depth=case.depth,
        query=case.query,
        now_ms=NOW,
        include_statuses=case.include,
        overhead_tokens=(lambda _id: case.overhead) if case.overhead else None,
        max_candidates=max_candidates,
    )


def plan_ids(plan: ComposePlan) -> list[str]:
    ids = [i.id for i in plan.included] + [d.id for d in plan.dropped]
    if plan.truncated is not None:
        ids.append(plan.truncated.id)
    return ids


def check_packing(case: Case, plan: ComposePlan, dist: dict[str, int]) -> None:
    info = case.graph.info(plan_ids(plan))
    assert plan.budget_tokens == case.budget
    assert plan.used_tokens <= case.budget
    kept = 0 if plan.truncated is None else plan.truncated.kept_tokens
    packed = len(plan.included) + (plan.truncated is not None)
    assert plan.used_tokens == sum(i.tokens for i in plan.included) + kept + packed * case.overhead

    included_scores = [i.score for i in plan.included]
    assert included_scores == sorted(included_scores, reverse=True)
    for i in plan.included:
        assert dist[i.id] <= case.depth
        assert info[i.id].status in case.include
        assert i.tokens == info[i.id].tokens
    if plan.truncated is not None:
        t = plan.truncated
        assert dist[t.id] <= case.depth
        assert info[t.id].status in case.include
        assert MIN_TRUNCATE_TOKENS <= t.kept_tokens < t.total_tokens == info[t.id].tokens
    for d in plan.dropped:
        assert d.tokens == info[d.id].tokens
        if d.reason == "depth":
            assert dist[d.id] == case.depth + 1
        elif d.reason == "status":
            assert dist[d.id] <= case.depth
            assert info[d.id].status not in case.include
        else:
            assert d.reason == "budget"
            assert info[d.id].status in case.include
            # greedy: it did not fit when tried, and the budget only filled up since
            assert plan.used_tokens + d.tokens + case.overhead > case.budget


@settings(max_examples=120, deadline=None)
@given(cases())
def test_every_candidate_once_within_budget_and_depth(case: Case) -> None:
    plan = run(case)
    assert run(case) == plan  # deterministic
    dist = reference_distances(case.graph, list(dict.fromkeys(case.seeds)), case.depth)
    ids = plan_ids(plan)
    assert len(ids) == len(set(ids))
    assert set(ids) == set(dist)
    assert not plan.capped
    check_packing(case, plan, dist)


@settings(max_examples=80, deadline=None)
@given(cases())
def test_scores_follow_the_formula(case: Case) -> None:
    plan = run(case)
    dist = reference_distances(case.graph, list(dict.fromkeys(case.seeds)), case.depth)
    info = case.graph.info(list(dist))
    ranks = case.graph.fts_rank(case.query, list(dist)) if case.query else {}
    best = max(ranks.values(), default=0.0)
    got = {i.id: i.score for i in plan.included} | {d.id: d.score for d in plan.dropped}
    if plan.truncated is not None:
        got[plan.truncated.id] = plan.truncated.score
    for node_id, score in got.items():
        age = max(0, NOW - info[node_id].updated_at)
        q = ranks.get(node_id, 0.0) / best if best else 0.0
        expected = 0.6 / (1 + dist[node_id]) + 0.3 * 0.5 ** (age / 3_600_000) + 0.1 * q
        assert score == pytest.approx(expected)


@settings(max_examples=80, deadline=None)
@given(cases(), st.integers(1, 12))
def test_invariants_hold_under_the_candidate_cap(case: Case, cap: int) -> None:
    plan = run(case, max_candidates=cap)
    dist = reference_distances(case.graph, list(dict.fromkeys(case.seeds)), case.depth)
    ids = plan_ids(plan)
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(dist)
    assert len(ids) <= max(cap, len(set(case.seeds)))
    assert set(case.seeds) <= set(ids)
    assert plan.capped == (set(ids) != set(dist))
    # rings before the capped one are complete, so distances are still exact
    check_packing(case, plan, dist)


@settings(max_examples=40, deadline=None)
@given(cases(), st.lists(st.sampled_from(["zz1", "zz2"]), min_size=1, max_size=2))
def test_unknown_seeds_always_raise(case: Case, unknown: list[str]) -> None:
    with pytest.raises(UnknownSeedError) as err:
        compose(case.graph, case.seeds + unknown, budget_tokens=case.budget, depth=case.depth)
    assert set(err.value.ids) == set(unknown)
