"""compose(): BFS, scoring, status filter and greedy packing (docs/tools.md)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import pytest
from ctx_tree_compose import (
    MIN_TRUNCATE_TOKENS,
    ComposePlan,
    DictGraph,
    Dropped,
    Included,
    NodeInfo,
    Truncated,
    UnknownSeedError,
    Weights,
    compose,
)

NOW = 1_700_000_000_000
HOUR = 3_600_000


def chain(*ids: str, tokens: int = 10) -> DictGraph:
    """ids[0] - ids[1] - ... as a spine path, all live and updated at NOW."""
    g = DictGraph()
    parent = None
    for node_id in ids:
        g.add(NodeInfo(node_id, tokens, NOW, "live"), parent=parent)
        parent = node_id
    return g


def star(sizes: dict[str, int], *, root: str = "r", root_tokens: int = 0) -> DictGraph:
    """A root with one child per entry of ``sizes``; all live, updated at NOW."""
    g = DictGraph()
    g.add(NodeInfo(root, root_tokens, NOW, "live"))
    for node_id, tokens in sizes.items():
        g.add(NodeInfo(node_id, tokens, NOW, "live"), parent=root)
    return g


def scores(plan: ComposePlan) -> dict[str, float]:
    got = {i.id: i.score for i in plan.included}
    got.update({d.id: d.score for d in plan.dropped})
    if plan.truncated is not None:
        got[plan.truncated.id] = plan.truncated.score
    return got


# --- BFS ----------------------------------------------------------------------------


def test_bfs_scores_by_distance_and_reports_one_ring_past_depth() -> None:
    g = chain("s", "a", "b", "c", "d")
    plan = compose(g, ["s"], budget_tokens=1000, now_ms=NOW)
    assert [i.id for i in plan.included] == ["s", "a", "b"]
    assert scores(plan) == pytest.approx({"s": 0.9, "a": 0.6, "b": 0.5, "c": 0.45})
    assert plan.dropped == (Dropped("c", pytest.approx(0.45), 10, "depth"),)
    assert plan.used_tokens == 30


def test_depth_zero_packs_only_seeds() -> None:
    g = chain("s", "a", "b")
    plan = compose(g, ["a"], budget_tokens=1000, depth=0, now_ms=NOW)
    assert [i.id for i in plan.included] == ["a"]
    assert {(d.id, d.reason) for d in plan.dropped} == {("s", "depth"), ("b", "depth")}


def test_distance_is_from_the_nearest_seed() -> None:
    g = chain("a", "b", "c", "d", "e")
    plan = compose(g, ["a", "e"], budget_tokens=1000, depth=1, now_ms=NOW)
    assert scores(plan) == pytest.approx({"a": 0.9, "e": 0.9, "b": 0.6, "d": 0.6, "c": 0.5})
    assert [d.id for d in plan.dropped] == ["c"]


def test_lateral_edges_are_walked_both_ways() -> None:
    g = chain("s", "a")
    g.add(NodeInfo("x", 10, NOW, "live"))
    g.link("x", "a")  # edge points into the walk
    plan = compose(g, ["s"], budget_tokens=1000, depth=2, now_ms=NOW)
    assert [i.id for i in plan.included] == ["s", "a", "x"]


def test_unknown_seeds_raise_naming_them() -> None:
    g = chain("s", "a")
    with pytest.raises(UnknownSeedError) as err:
        compose(g, ["nope", "s", "gone"], budget_tokens=100)
    assert err.value.ids == ("nope", "gone")
    assert str(err.value) == "unknown seed ids: nope, gone"
    assert isinstance(err.value, KeyError)


def test_duplicate_seeds_count_once() -> None:
    plan = compose(chain("s", "a"), ["s", "s"], budget_tokens=100, now_ms=NOW)
    assert [i.id for i in plan.included] == ["s", "a"]


class DanglingSource:
    """A GraphSource whose adjacency names ids it does not know; counts calls."""

    def __init__(self) -> None:
        self.adjacent = {"s": ["a", "ghost"], "a": ["s", "b"], "b": ["a"]}
        self.calls: list[tuple[str, int]] = []

    def neighbors(self, node_ids: Sequence[str]) -> Mapping[str, Sequence[str]]:
        self.calls.append(("neighbors", len(node_ids)))
        return {i: self.adjacent[i] for i in node_ids if i in self.adjacent}

    def info(self, node_ids: Sequence[str]) -> Mapping[str, NodeInfo]:
        self.calls.append(("info", len(node_ids)))
        return {i: NodeInfo(i, 5, NOW, "live") for i in node_ids if i in self.adjacent}

    def fts_rank(self, query: str, node_ids: Sequence[str]) -> Mapping[str, float]:
        self.calls.append(("fts_rank", len(node_ids)))
        return {"b": 7.0, "ghost": 100.0}


def test_dangling_neighbors_are_skipped_and_calls_are_batched_per_ring() -> None:
    src = DanglingSource()
    plan = compose(src, ["s"], budget_tokens=100, depth=1, query="q", now_ms=NOW)
    assert [i.id for i in plan.included] == ["s", "a"]
    # b is the depth ring; "ghost" ranks but is no candidate, so b normalises to 1.0
    assert plan.dropped == (Dropped("b", pytest.approx(0.2 + 0.3 + 0.1), 5, "depth"),)
    assert src.calls == [
        ("info", 1),  # seeds
        ("neighbors", 1),  # ring 1
        ("info", 2),  # a, ghost
        ("neighbors", 1),  # ring 2 (depth ring, not expanded)
        ("info", 1),  # b
        ("fts_rank", 3),
    ]


def test_max_candidates_caps_the_walk_and_says_so() -> None:
    g = star({f"c{i:02d}": 1 for i in range(30)})
    plan = compose(g, ["r"], budget_tokens=1000, max_candidates=11, now_ms=NOW)
    assert len(plan.included) == 11
    assert [i.id for i in plan.included][1:] == [f"c{i:02d}" for i in range(10)]
    assert plan.capped
    assert not compose(g, ["r"], budget_tokens=1000, max_candidates=31, now_ms=NOW).capped


def test_max_candidates_also_bounds_the_depth_ring() -> None:
    g = star({f"c{i:02d}": 1 for i in range(30)})
    plan = compose(g, ["r"], budget_tokens=1000, depth=0, max_candidates=5, now_ms=NOW)
    assert [i.id for i in plan.included] == ["r"]
    assert [d.id for d in plan.dropped] == ["c00", "c01", "c02", "c03"]
    assert plan.capped


# --- scoring ------------------------------------------------------------------------


def test_recency_halves_every_half_life_and_ignores_future_timestamps() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 1, NOW + 5 * HOUR, "live"))  # clock skew: treated as "now"
    g.add(NodeInfo("hour", 1, NOW - HOUR, "live"), parent="s")
    g.add(NodeInfo("two", 1, NOW - 2 * HOUR, "live"), parent="s")
    plan = compose(g, ["s"], budget_tokens=100, now_ms=NOW)
    assert scores(plan) == pytest.approx({"s": 0.9, "hour": 0.3 + 0.15, "two": 0.3 + 0.075})
    plan = compose(g, ["s"], budget_tokens=100, now_ms=NOW, half_life_ms=2 * HOUR)
    assert scores(plan)["two"] == pytest.approx(0.3 + 0.15)


def test_default_now_is_the_wall_clock() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 1, int(time.time() * 1000), "live"))
    plan = compose(g, ["s"], budget_tokens=10)
    assert plan.included[0].score == pytest.approx(0.9, abs=1e-3)


def test_query_rank_is_normalised_over_candidates() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 1, NOW, "live"), text="auth")
    g.add(NodeInfo("a", 1, NOW, "live"), parent="s", text="auth auth auth auth")
    g.add(NodeInfo("b", 1, NOW, "live"), parent="s", text="nothing")
    g.add(NodeInfo("far", 1, NOW, "live"), parent="a", text="auth " * 40)  # depth 2
    plan = compose(g, ["s"], budget_tokens=100, depth=1, query="auth", now_ms=NOW)
    # "far" is a candidate (dropped for depth) and holds the best rank: 40
    assert scores(plan) == pytest.approx(
        {"s": 0.9 + 0.1 / 40, "a": 0.6 + 0.1 * 4 / 40, "b": 0.6, "far": 0.5 + 0.1}
    )


def test_no_query_adds_nothing_and_does_not_renormalise() -> None:
    g = chain("s", "a")
    plain = scores(compose(g, ["s"], budget_tokens=100, now_ms=NOW))
    blank = scores(compose(g, ["s"], budget_tokens=100, query="  ", now_ms=NOW))
    unmatched = scores(compose(g, ["s"], budget_tokens=100, query="zzz", now_ms=NOW))
    assert plain == blank == unmatched == pytest.approx({"s": 0.9, "a": 0.6})


def test_custom_weights() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 1, NOW - HOUR, "live"), text="x")
    g.add(NodeInfo("a", 1, NOW, "live"), parent="s", text="x x")
    w = Weights(dist=0.0, recency=1.0, query=2.0)
    plan = compose(g, ["s"], budget_tokens=100, weights=w, query="x", now_ms=NOW)
    assert [i.id for i in plan.included] == ["a", "s"]
    assert scores(plan) == pytest.approx({"a": 1.0 + 2.0, "s": 0.5 + 1.0})


def test_ties_break_by_distance_then_id() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 1, NOW - HOUR, "live"))  # 0.6 + 0.15 = 0.75 (seed, dist 0)
    g.add(NodeInfo("b", 1, NOW, "live"), parent="s")  # 0.3 + 0.3 = 0.6
    g.add(NodeInfo("a", 1, NOW, "live"), parent="s")
    w = Weights(dist=0.6, recency=0.3, query=0.0)
    plan = compose(g, ["s"], budget_tokens=100, weights=w, now_ms=NOW)
    assert [i.id for i in plan.included] == ["s", "a", "b"]
    # equal score, different distance: a seed at dist 0 wins over a node at dist 1
    g2 = DictGraph()
    g2.add(NodeInfo("z", 1, NOW, "live"))  # seed: 0.6 + recency
    g2.add(NodeInfo("y", 1, NOW, "live"), parent="z")  # 0.3 + 0.3
    w2 = Weights(dist=0.6, recency=0.0, query=0.0)
    plan2 = compose(g2, ["z"], budget_tokens=100, weights=w2, depth=1, now_ms=NOW)
    assert [i.id for i in plan2.included] == ["z", "y"]


# --- status -------------------------------------------------------------------------


def test_excluded_statuses_are_dropped_but_walked_through() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 10, NOW, "stale"))
    g.add(NodeInfo("old", 10, NOW, "superseded"), parent="s")
    g.add(NodeInfo("leaf", 10, NOW, "live"), parent="old")
    plan = compose(g, ["s"], budget_tokens=100, now_ms=NOW)
    assert [i.id for i in plan.included] == ["leaf"]
    assert [(d.id, d.reason) for d in plan.dropped] == [("s", "status"), ("old", "status")]
    assert plan.used_tokens == 10


def test_include_statuses_widens_what_is_packed() -> None:
    g = DictGraph()
    g.add(NodeInfo("s", 10, NOW, "stale"))
    g.add(NodeInfo("p", 10, NOW, "pending"), parent="s")
    plan = compose(g, ["s"], budget_tokens=100, include_statuses={"live", "stale"}, now_ms=NOW)
    assert [i.id for i in plan.included] == ["s"]
    assert plan.dropped == (Dropped("p", pytest.approx(0.6), 10, "status"),)


def test_depth_reason_wins_over_status_past_the_cap() -> None:
    g = chain("s", "a")
    g.add(NodeInfo("p", 10, NOW, "pruned"), parent="a")
    plan = compose(g, ["s"], budget_tokens=100, depth=1, now_ms=NOW)
    assert plan.dropped == (Dropped("p", pytest.approx(0.5), 10, "depth"),)
    plan = compose(g, ["a"], budget_tokens=100, depth=0, now_ms=NOW)
    assert {(d.id, d.reason) for d in plan.dropped} == {("s", "depth"), ("p", "depth")}


# --- packing ------------------------------------------------------------------------


def packing_graph() -> DictGraph:
    """Root r (seed, 0 tokens) and children whose order is fixed by recency."""
    g = DictGraph()
    g.add(NodeInfo("r", 0, NOW, "live"))
    for rank, (node_id, tokens) in enumerate([("a", 50), ("b", 80), ("c", 30), ("d", 60)]):
        g.add(NodeInfo(node_id, tokens, NOW - rank * HOUR, "live"), parent="r")
    return g


def test_greedy_packs_by_score_truncates_first_misfit_then_keeps_fitting() -> None:
    plan = compose(packing_graph(), ["r"], budget_tokens=100, now_ms=NOW)
    assert [(i.id, i.tokens) for i in plan.included] == [("r", 0), ("a", 50)]
    assert plan.truncated == Truncated("b", pytest.approx(0.45), kept_tokens=50, total_tokens=80)
    assert [(d.id, d.reason) for d in plan.dropped] == [("c", "budget"), ("d", "budget")]
    assert plan.used_tokens == 100


def test_smaller_nodes_still_fit_after_truncation() -> None:
    g = packing_graph()
    g.add(NodeInfo("tiny", 5, NOW - 9 * HOUR, "live"), parent="r")  # lowest score
    plan = compose(g, ["r"], budget_tokens=120, now_ms=NOW)
    # a fits (50); b (80) misfits and is cut to the 70 left; nothing else fits
    assert plan.truncated == Truncated("b", pytest.approx(0.45), 70, 80)
    assert [d.id for d in plan.dropped] == ["c", "d", "tiny"]
    assert plan.used_tokens == 120
    # with room left after the cut node, later smaller nodes are packed whole
    plan = compose(g, ["r"], budget_tokens=150, now_ms=NOW)
    # r, a, b = 130 fit; c (30) misfits -> cut to the 20 left; d and tiny dropped
    assert [i.id for i in plan.included] == ["r", "a", "b"]
    assert plan.truncated == Truncated("c", pytest.approx(0.375), 20, 30)
    plan = compose(g, ["r"], budget_tokens=145, now_ms=NOW)
    # c misfits with 15 left: under the minimum, not cut; d misfits; tiny (5) fits
    assert plan.truncated is None
    assert [i.id for i in plan.included] == ["r", "a", "b", "tiny"]
    assert [d.id for d in plan.dropped] == ["c", "d"]
    assert plan.used_tokens == 135


def test_no_truncation_below_minimum_and_packing_goes_on() -> None:
    remaining = MIN_TRUNCATE_TOKENS - 1
    plan = compose(packing_graph(), ["r"], budget_tokens=50 + remaining, now_ms=NOW)
    assert plan.truncated is None
    assert [i.id for i in plan.included] == ["r", "a"]
    assert [(d.id, d.reason) for d in plan.dropped] == [
        ("b", "budget"),
        ("c", "budget"),
        ("d", "budget"),
    ]
    plan = compose(packing_graph(), ["r"], budget_tokens=50 + MIN_TRUNCATE_TOKENS, now_ms=NOW)
    assert plan.truncated == Truncated("b", pytest.approx(0.45), MIN_TRUNCATE_TOKENS, 80)


def test_only_the_first_misfit_may_be_truncated() -> None:
    # budget 40: a (50) misfits first with 40 left -> truncated to 40; b is never cut
    plan = compose(packing_graph(), ["r"], budget_tokens=40, now_ms=NOW)
    assert plan.truncated == Truncated("a", pytest.approx(0.6), 40, 50)
    assert [(d.id, d.reason) for d in plan.dropped] == [
        ("b", "budget"),
        ("c", "budget"),
        ("d", "budget"),
    ]


def test_overhead_is_charged_per_packed_node() -> None:
    plan = compose(
        packing_graph(), ["r"], budget_tokens=100, now_ms=NOW, overhead_tokens=lambda _id: 5
    )
    # r: 0+5; a: 50+5 (used 60); b: 80+5 misfits -> cut to 100-60-5 = 35
    assert [(i.id, i.tokens) for i in plan.included] == [("r", 0), ("a", 50)]
    assert plan.truncated == Truncated("b", pytest.approx(0.45), 35, 80)
    assert plan.used_tokens == 100
    assert [d.id for d in plan.dropped] == ["c", "d"]


def test_overhead_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="overhead_tokens"):
        compose(chain("s"), ["s"], budget_tokens=10, overhead_tokens=lambda _id: -1)


def test_dropped_are_in_score_order_across_reasons() -> None:
    g = packing_graph()
    g.add(NodeInfo("st", 1, NOW - HOUR // 2, "stale"), parent="r")
    plan = compose(g, ["r"], budget_tokens=50, now_ms=NOW)
    got = [d.score for d in plan.dropped]
    assert got == sorted(got, reverse=True)
    assert ("st", "status") in [(d.id, d.reason) for d in plan.dropped]


def test_plan_shapes() -> None:
    plan = compose(chain("s", "a"), ["s"], budget_tokens=15, now_ms=NOW)
    assert plan == ComposePlan(
        included=(Included("s", pytest.approx(0.9), 10),),
        truncated=None,
        dropped=(Dropped("a", pytest.approx(0.6), 10, "budget"),),
        budget_tokens=15,
        used_tokens=10,
    )


# --- validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": -5}, "budget_tokens"),
        ({"budget_tokens": 10, "depth": -1}, "depth"),
        ({"budget_tokens": 10, "depth": 6}, "depth"),
        ({"budget_tokens": 10, "depth": 1.5}, "depth"),
        ({"budget_tokens": 10, "half_life_ms": 0}, "half_life_ms"),
        ({"budget_tokens": 10, "max_candidates": 0}, "max_candidates"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        compose(chain("s"), ["s"], **kwargs)


def test_seed_and_status_arguments_are_checked() -> None:
    g = chain("s")
    with pytest.raises(TypeError, match="seed_ids"):
        compose(g, "s", budget_tokens=10)
    with pytest.raises(ValueError, match="seed_ids"):
        compose(g, [], budget_tokens=10)
    with pytest.raises(TypeError, match="include_statuses"):
        compose(g, ["s"], budget_tokens=10, include_statuses="live")


@pytest.mark.parametrize("field", ["dist", "recency", "query"])
@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "1", True])
def test_weights_validation_names_the_field(field: str, bad: object) -> None:
    with pytest.raises(ValueError, match=f"Weights.{field}"):
        Weights(**{field: bad})  # type: ignore[arg-type]


def test_weights_all_zero_rejected_but_some_zero_fine() -> None:
    with pytest.raises(ValueError, match="all zero"):
        Weights(0, 0, 0)
    assert Weights(0, 0, 1).query == 1
    assert Weights() == Weights(0.6, 0.3, 0.1)
