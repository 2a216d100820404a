"""Store.capture_file: the file status machine as one store operation."""

from __future__ import annotations

import pytest
from ctx_tree_schema import NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store, new_id

URI = "file:///proj/a.py"


def tree(sha: str, size: int = 10, chunks: int = 2) -> tuple[NewNode, list[NewNode]]:
    root_id = new_id()
    root = NewNode(
        NodeKind.FILE_CHUNK,
        f"a.py outline {sha}",
        source_uri=URI,
        metadata={"is_file_root": True, "file_sha256": sha, "size": size},
        id=root_id,
    )
    kids = [
        NewNode(
            NodeKind.FILE_CHUNK, f"chunk {i} of {sha}", parent_id=root_id, source_uri=URI + f"#L{i}"
        )
        for i in range(chunks)
    ]
    return root, kids


def statuses(store: Store) -> dict[str, str]:
    return dict(store.con.execute("SELECT id, status FROM nodes").fetchall())


def test_first_capture_inserts_and_a_second_of_the_same_version_reuses(store: Store):
    session = store.ensure_session("s1", "/proj")
    first = store.capture_file(*tree("v1"), referenced_by=session)
    assert first.created and len(first.chunks) == 2 and first.superseded == ()
    again = store.capture_file(*tree("v1"), referenced_by=session)
    assert not again.created and again.root.id == first.root.id
    assert [c.id for c in again.chunks] == [c.id for c in first.chunks]
    assert store.con.execute("SELECT count(*) FROM nodes WHERE kind = 'file_chunk'").get == 3
    refs = store.con.execute(
        "SELECT src_id, dst_id FROM edges WHERE kind = 'references'"
    ).fetchall()
    assert refs == [(session, first.root.id)]


def test_a_new_version_supersedes_the_old_tree_in_one_step(store: Store):
    old = store.capture_file(*tree("v1"))
    new = store.capture_file(*tree("v2", chunks=3))
    assert new.created and new.superseded == (old.root.id,)
    st = statuses(store)
    assert {st[old.root.id], *(st[c.id] for c in old.chunks)} == {"superseded"}
    assert {st[new.root.id], *(st[c.id] for c in new.chunks)} == {"live"}
    edges = store.con.execute("SELECT src_id, dst_id, kind FROM edges").fetchall()
    assert edges == [(new.root.id, old.root.id, "supersedes")]


def test_a_stale_tree_of_the_same_version_comes_back_live(store: Store):
    first = store.capture_file(*tree("v1"))
    assert store.stale_file(URI) == 3
    assert set(statuses(store).values()) == {"stale"}
    again = store.capture_file(*tree("v1"))
    assert not again.created and again.root.status is NodeStatus.LIVE
    assert set(statuses(store).values()) == {"live"} and again.root.id == first.root.id


def test_duplicate_live_trees_left_by_older_versions_are_healed(store: Store):
    # 0.1.0 could leave several live copies of one version: the next capture keeps the
    # newest and supersedes the rest.
    a_root, a_kids = tree("v1")
    b_root, b_kids = tree("v1")
    store.insert([a_root, *a_kids])
    store.insert([b_root, *b_kids])
    kept = store.capture_file(*tree("v1"))
    assert kept.root.id == b_root.id and kept.superseded == (a_root.id,)
    live_roots = store.con.execute(
        "SELECT count(*) FROM nodes WHERE parent_id IS NULL AND status = 'live'"
    ).get
    assert live_roots == 1


def test_a_failed_capture_changes_nothing(store: Store):
    old = store.capture_file(*tree("v1"))
    before = statuses(store)
    with pytest.raises(Exception, match="FOREIGN KEY"):
        store.capture_file(*tree("v2"), referenced_by="no-such-session")
    assert statuses(store) == before and store.get(old.root.id).status is NodeStatus.LIVE


def test_a_root_without_an_id_is_refused(store: Store):
    root, kids = tree("v1")
    root.id = ""
    with pytest.raises(ValueError, match="id"):
        store.capture_file(root, kids)
