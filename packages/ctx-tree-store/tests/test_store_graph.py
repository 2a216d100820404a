"""Spine and edge walks: children, path_to_root (cycle-safe), neighbors; node sizes."""

from __future__ import annotations

import pytest
from ctx_tree_schema import EdgeKind, NodeKind
from ctx_tree_store import NewNode, NodeNotFound, Store, new_id


@pytest.fixture
def tree(store: Store) -> dict[str, str]:
    """session → root → (c1, c2); session → note; note --derived_from--> c1;
    c2 --references--> other (under a second session)."""
    s, root, c1, c2, note = (new_id() for _ in range(5))
    s2, other = new_id(), new_id()
    store.insert(
        [
            NewNode(NodeKind.SESSION, "", id=s),
            NewNode(NodeKind.FILE_CHUNK, "root", id=root, parent_id=s),
            NewNode(NodeKind.FILE_CHUNK, "c1", id=c1, parent_id=root),
            NewNode(NodeKind.FILE_CHUNK, "c2", id=c2, parent_id=root),
            NewNode(NodeKind.NOTE, "note", id=note, parent_id=s),
            NewNode(NodeKind.SESSION, "", id=s2),
            NewNode(NodeKind.NOTE, "other", id=other, parent_id=s2),
        ],
        [(note, c1, EdgeKind.DERIVED_FROM), (c2, other, EdgeKind.REFERENCES)],
    )
    return dict(s=s, root=root, c1=c1, c2=c2, note=note, s2=s2, other=other)


def ids(found) -> dict[str, tuple[int, str]]:
    return {n.node.id: (n.depth, n.via) for n in found}


def test_path_to_root(store: Store, tree):
    assert [n.id for n in store.path_to_root(tree["c1"])] == [tree["c1"], tree["root"], tree["s"]]
    assert [n.id for n in store.path_to_root(tree["s"])] == [tree["s"]]
    with pytest.raises(NodeNotFound):
        store.path_to_root("missing")


def test_path_to_root_survives_a_cycle(store: Store, tree):
    # A cycle cannot be made through the API; make one with raw SQL: s → c1 → root → s.
    store.con.execute("UPDATE nodes SET parent_id = ? WHERE id = ?", (tree["c1"], tree["s"]))
    chain = [n.id for n in store.path_to_root(tree["c1"])]
    assert chain == [tree["c1"], tree["root"], tree["s"]]
    self_loop = tree["other"]
    store.con.execute("UPDATE nodes SET parent_id = id WHERE id = ?", (self_loop,))
    assert [n.id for n in store.path_to_root(self_loop)] == [self_loop]
    found = ids(store.neighbors(tree["c1"], depth=5))
    assert tree["c1"] not in found and len(found) == len(set(found))


def test_neighbors_depth_one_spine_and_edges(store: Store, tree):
    found = ids(store.neighbors(tree["c1"]))
    assert found == {tree["root"]: (1, "parent"), tree["note"]: (1, "derived_from:in")}
    found = ids(store.neighbors(tree["root"]))
    assert found == {tree["s"]: (1, "parent"), tree["c1"]: (1, "child"), tree["c2"]: (1, "child")}


def test_neighbors_deeper_nearest_first(store: Store, tree):
    found = store.neighbors(tree["c1"], depth=3)
    depths = [n.depth for n in found]
    assert depths == sorted(depths)
    got = ids(found)
    assert got[tree["c2"]] == (2, "child")
    assert got[tree["s"]][0] == 2
    assert got[tree["other"]] == (3, "references:out")
    assert tree["s2"] not in got  # four hops away
    assert tree["s2"] in ids(store.neighbors(tree["c1"], depth=4))


def test_neighbors_edge_kinds_direction_spine_limit(store: Store, tree):
    only_edges = ids(store.neighbors(tree["note"], depth=5, spine=False))
    assert only_edges == {tree["c1"]: (1, "derived_from:out")}
    assert ids(store.neighbors(tree["c1"], spine=False, direction="out")) == {}
    assert ids(store.neighbors(tree["c1"], spine=False, direction="in")) == {
        tree["note"]: (1, "derived_from:in")
    }
    kinds = ids(store.neighbors(tree["c2"], edge_kinds=[EdgeKind.DERIVED_FROM], spine=False))
    assert kinds == {}
    assert len(store.neighbors(tree["s"], depth=5, limit=2)) == 2


@pytest.mark.parametrize("depth", [0, 6, -1, True, 2.5])
def test_neighbors_rejects_bad_depth(store: Store, tree, depth):
    with pytest.raises(ValueError, match="depth"):
        store.neighbors(tree["c1"], depth=depth)


def test_neighbors_rejects_unknown_start_and_direction(store: Store, tree):
    with pytest.raises(NodeNotFound):
        store.neighbors("missing")
    with pytest.raises(ValueError, match="direction"):
        store.neighbors(tree["c1"], direction="sideways")


def test_sizes_without_content(store: Store, tree):
    sizes = store.sizes([tree["note"], tree["root"], "missing"])
    assert set(sizes) == {tree["note"], tree["root"]}
    note = store.get(tree["note"])
    assert sizes[tree["note"]].chars == len(note.content)
    assert sizes[tree["note"]].newlines == note.content.count("\n")
    assert sizes[tree["note"]].updated_at == note.updated_at
    assert sizes[tree["note"]].status == "live"
