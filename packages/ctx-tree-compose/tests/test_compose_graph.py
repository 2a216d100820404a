"""NodeInfo and the in-memory DictGraph."""

from __future__ import annotations

import doctest

import ctx_tree_compose._graph as graph_module
import pytest
from ctx_tree_compose import DictGraph, GraphSource, NodeInfo


def node(node_id: str, tokens: int = 10, status: str = "live") -> NodeInfo:
    return NodeInfo(node_id, tokens=tokens, updated_at=0, status=status)


@pytest.fixture
def graph() -> DictGraph:
    g = DictGraph()
    g.add(node("s"))
    g.add(node("f"), parent="s", text="def Main(): pass")
    g.add(node("c1"), parent="f", text="main main helper")
    g.add(node("c2"), parent="f", text="unrelated")
    g.add(node("n"), parent="s")
    g.link("n", "c2")
    return g


def test_neighbors_are_parent_children_and_edges_both_ways(graph: DictGraph) -> None:
    got = graph.neighbors(["s", "f", "c2", "n", "missing"])
    assert got == {
        "s": ["f", "n"],
        "f": ["s", "c1", "c2"],
        "c2": ["f", "n"],
        "n": ["s", "c2"],
    }


def test_link_is_idempotent_and_ignores_self_loops(graph: DictGraph) -> None:
    graph.link("c2", "n")
    graph.link("c1", "c1")
    assert graph.neighbors(["c2", "c1"]) == {"c2": ["f", "n"], "c1": ["f"]}


def test_info_omits_unknown_ids(graph: DictGraph) -> None:
    got = graph.info(["c1", "nope"])
    assert got == {"c1": node("c1")}


def test_fts_rank_counts_terms_case_insensitively(graph: DictGraph) -> None:
    assert graph.fts_rank("MAIN helper", ["s", "f", "c1", "c2"]) == {"f": 1.0, "c1": 3.0}
    assert graph.fts_rank("   ", ["f"]) == {}


def test_add_rejects_duplicates_and_unknown_parents(graph: DictGraph) -> None:
    with pytest.raises(ValueError, match="'s' already added"):
        graph.add(node("s"))
    with pytest.raises(KeyError, match="ghost"):
        graph.add(node("x"), parent="ghost")
    with pytest.raises(KeyError, match="ghost"):
        graph.link("s", "ghost")
    assert len(graph) == 5
    assert "x" not in graph


def test_dict_graph_satisfies_the_protocol(graph: DictGraph) -> None:
    assert isinstance(graph, GraphSource)


def test_node_info_rejects_negative_tokens() -> None:
    with pytest.raises(ValueError, match="tokens"):
        NodeInfo("a", tokens=-1, updated_at=0, status="live")


def test_docstring_example_runs() -> None:
    result = doctest.testmod(graph_module)
    assert result.attempted > 0
    assert result.failed == 0
