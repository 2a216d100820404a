"""render_manifest: the terse plain-text manifest."""

from __future__ import annotations

import pytest
from ctx_tree_compose import (
    ComposePlan,
    DictGraph,
    Dropped,
    Included,
    NodeInfo,
    Truncated,
    compose,
    estimate_tokens,
    render_manifest,
)


def full_plan() -> ComposePlan:
    return ComposePlan(
        included=(Included("01J9", 0.912, 120), Included("01K2", 0.88, 1300)),
        truncated=Truncated("01M4", 0.5, 200, 900),
        dropped=(Dropped("01N7", 0.404, 800, "budget"), Dropped("01P3", 0.3, 50, "status")),
        budget_tokens=4000,
        used_tokens=1620,
    )


def test_manifest_lists_every_section() -> None:
    assert render_manifest(full_plan()) == (
        "-- manifest: 1,620/4,000 tokens; 2 included, 1 truncated, 2 dropped\n"
        "included: 01J9(0.91, 120t) 01K2(0.88, 1300t)\n"
        "truncated: 01M4 kept 200/900t\n"
        "dropped: 01N7(0.40, 800t, budget) 01P3(0.30, 50t, status)\n"
    )


def test_empty_sections_are_left_out() -> None:
    plan = ComposePlan((Included("a", 0.9, 3),), None, (), budget_tokens=10, used_tokens=3)
    assert render_manifest(plan) == (
        "-- manifest: 3/10 tokens; 1 included, 0 truncated, 0 dropped\nincluded: a(0.90, 3t)\n"
    )


def test_long_dropped_lists_are_elided_but_counted() -> None:
    dropped = tuple(Dropped(f"d{i}", 0.1, 5, "budget") for i in range(25))
    plan = ComposePlan((), None, dropped, budget_tokens=10, used_tokens=0)
    text = render_manifest(plan, max_dropped=2)
    assert text == (
        "-- manifest: 0/10 tokens; 0 included, 0 truncated, 25 dropped\n"
        "dropped: d0(0.10, 5t, budget) d1(0.10, 5t, budget) +23 more\n"
    )
    assert render_manifest(plan).count("budget)") == 20
    assert render_manifest(plan, max_dropped=None).count("budget)") == 25
    with pytest.raises(ValueError, match="max_dropped"):
        render_manifest(plan, max_dropped=-1)


def test_capped_plans_say_so() -> None:
    g = DictGraph()
    g.add(NodeInfo("r", 1, 0, "live"))
    for i in range(5):
        g.add(NodeInfo(f"c{i}", 1, 0, "live"), parent="r")
    plan = compose(g, ["r"], budget_tokens=100, max_candidates=3, now_ms=0)
    assert render_manifest(plan).splitlines()[0] == (
        "-- manifest: 3/100 tokens; 3 included, 0 truncated, 0 dropped; candidates capped"
    )


def test_manifest_costs_few_tokens_per_node() -> None:
    # ULIDs: the per-node cost is dominated by the id itself (26 characters, ~20 BPE tokens)
    ids = [f"01M8NX465PSRBPBX6FMHHJA{i:03d}" for i in range(10)]
    plan = ComposePlan(
        tuple(Included(i, 0.5, 100) for i in ids), None, (), budget_tokens=2000, used_tokens=1000
    )
    assert estimate_tokens(render_manifest(plan)) <= 20 + 35 * 10
