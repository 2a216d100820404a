"""Status machine of docs/data-model.md through the store: legal moves, typed errors, atomicity."""

from __future__ import annotations

import itertools

import pytest
from ctx_tree_schema import EdgeKind, NodeKind, NodeStatus, can_transition
from ctx_tree_store import IllegalTransition, NewNode, NodeNotFound, Store


def statuses(store: Store, ids: list[str]) -> list[str]:
    return [store.require(i).status.value for i in ids]


def test_the_spec_chain(store: Store):
    (nid,) = store.insert([NewNode(NodeKind.TOOL_OUTPUT, "out", status=NodeStatus.PENDING)])
    for status in ("live", "stale", "superseded", "pruned"):
        assert store.set_status([nid], status) == 1
        assert store.require(nid).status.value == status
    assert store.set_status([nid], "pruned") == 0  # already there: no change, no error


@pytest.mark.parametrize(("old", "new"), list(itertools.product(NodeStatus, NodeStatus)))
def test_every_pair_follows_the_table(store: Store, old: NodeStatus, new: NodeStatus):
    (nid,) = store.insert([NewNode(NodeKind.NOTE, "x", status=old)])
    before = store.require(nid)
    if old == new or can_transition(old, new):
        store.set_status([nid], new, at=before.updated_at + 5)
        after = store.require(nid)
        assert after.status == new
        if old != new:
            assert after.updated_at == before.updated_at + 5
    else:
        with pytest.raises(IllegalTransition, match=f"{old.value} → {new.value}"):
            store.set_status([nid], new)
        assert store.require(nid) == before


def test_one_illegal_move_in_a_batch_changes_nothing(store: Store):
    ids = store.insert([NewNode(NodeKind.NOTE, str(i)) for i in range(3)])
    store.set_status([ids[1]], NodeStatus.STALE)
    store.set_status([ids[1]], NodeStatus.SUPERSEDED)
    with pytest.raises(IllegalTransition):
        store.set_status(ids, NodeStatus.STALE)  # ids[1]: superseded → stale is illegal
    assert statuses(store, ids) == ["live", "superseded", "live"]
    with pytest.raises(NodeNotFound):
        store.set_status([ids[0], "missing"], NodeStatus.STALE)
    assert statuses(store, ids) == ["live", "superseded", "live"]


def test_drop_deletes_only_pending(store: Store):
    pending, live = store.insert(
        [
            NewNode(NodeKind.TOOL_OUTPUT, "dropme", status=NodeStatus.PENDING),
            NewNode(NodeKind.TOOL_OUTPUT, "keepme"),
        ]
    )
    with pytest.raises(IllegalTransition, match="only pending"):
        store.drop([pending, live])
    assert store.get(pending) is not None
    assert store.drop([pending, "unknown"]) == 1
    assert store.get(pending) is None
    assert store.search("dropme") == []
    assert store.integrity() == ("ok", True)


def test_supersede_writes_edge_and_status_together(store: Store):
    old, new = store.insert([NewNode(NodeKind.NOTE, "v1"), NewNode(NodeKind.NOTE, "v2")])
    store.supersede(new, old)
    assert store.require(old).status is NodeStatus.SUPERSEDED
    edges = store.con.execute("SELECT src_id, dst_id, kind FROM edges").fetchall()
    assert edges == [(new, old, "supersedes")]


def test_supersede_many_and_failures_change_nothing(store: Store):
    a, b, c, new = store.insert([NewNode(NodeKind.NOTE, x) for x in "abcn"])
    store.set_status([b], NodeStatus.STALE)
    store.supersede(new, [a, b])
    assert statuses(store, [a, b]) == ["superseded", "superseded"]
    store.set_status([c], NodeStatus.STALE)
    store.set_status([c], NodeStatus.PRUNED)
    edges_before = store.con.execute("SELECT count(*) FROM edges").get
    for bad_old in ([c], [new], ["missing"]):
        with pytest.raises((IllegalTransition, NodeNotFound)):
            store.supersede(new, bad_old)
    with pytest.raises(NodeNotFound):
        store.supersede("missing", [a])
    (d,) = store.insert([NewNode(NodeKind.NOTE, "d")])
    with pytest.raises(IllegalTransition):
        store.supersede(new, [d, c])  # d would be fine, c is pruned: neither changes
    assert store.require(d).status is NodeStatus.LIVE
    assert store.con.execute("SELECT count(*) FROM edges").get == edges_before == 2
    assert {r[0] for r in store.con.execute("SELECT kind FROM edges")} == {EdgeKind.SUPERSEDES}


def test_delete_removes_only_pruned(store: Store):
    a, b = store.insert([NewNode(NodeKind.NOTE, "a"), NewNode(NodeKind.NOTE, "b")])
    store.set_status([a], NodeStatus.PRUNED)
    assert store.delete([a, b]) == 1
    assert store.get(a) is None and store.get(b) is not None
    assert store.integrity() == ("ok", True)
