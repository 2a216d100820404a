"""The store as compose's GraphSource: adjacency both ways, sizes from content length, BM25."""

from __future__ import annotations

from ctx_tree_compose import DictGraph, GraphSource, NodeInfo, compose
from ctx_tree_mcp.engines.files.store_graph import StoreGraph
from ctx_tree_schema import EdgeKind, NodeKind
from ctx_tree_store import NewNode, new_id


def test_store_graph_is_a_graph_source(app):
    store = app.store
    s, root, c1, note = (new_id() for _ in range(4))
    store.insert(
        [
            NewNode(NodeKind.SESSION, "", id=s),
            NewNode(NodeKind.FILE_CHUNK, "root", id=root, parent_id=s),
            NewNode(NodeKind.FILE_CHUNK, "c1 line\nsecond\n", id=c1, parent_id=root),
            NewNode(NodeKind.NOTE, "note about c1", id=note, parent_id=s),
        ],
        [(note, c1, EdgeKind.DERIVED_FROM)],
    )
    graph = StoreGraph(store)
    assert isinstance(graph, GraphSource)
    adjacency = graph.neighbors([c1, root])
    assert set(adjacency[c1]) == {root, note}
    assert set(adjacency[root]) == {s, c1}
    info = graph.info([c1, note, "missing"])
    assert set(info) == {c1, note}
    assert info[c1] == NodeInfo(c1, tokens=4, updated_at=info[c1].updated_at, status="live")
    assert info[note].tokens == 4 and graph.newlines == {c1: 2, note: 0}
    assert set(graph.fts_rank("note", [note, c1])) == {note}
    # compose plans the same over the store as over an in-memory graph of the same shape
    plan = compose(graph, [c1], budget_tokens=100, depth=1)
    assert {i.id for i in plan.included} == {c1, root, note}
    memory = DictGraph()
    for nid in (s, root, c1, note):
        memory.add(graph.info([nid])[nid], parent={root: s, c1: root, note: s}.get(nid))
    memory.link(note, c1)
    assert {i.id for i in compose(memory, [c1], budget_tokens=100, depth=1).included} == {
        c1,
        root,
        note,
    }
