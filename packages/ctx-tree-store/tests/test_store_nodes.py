"""Inserting and reading nodes, sessions, recent, counters."""

from __future__ import annotations

import hashlib
import json

import apsw
import pytest
from ctx_tree_schema import EdgeKind, Filters, NodeKind, NodeStatus
from ctx_tree_store import NewNode, NodeNotFound, Store, browse, content_hash, new_id, now_ms


def test_insert_fills_ids_hashes_sizes_and_times(store: Store):
    before = now_ms()
    (nid,) = store.insert([NewNode(NodeKind.NOTE, "héllo", metadata={"title": "t"})])
    node = store.require(nid)
    assert len(nid) == 26
    assert node.content == "héllo"
    assert (
        node.content_hash == hashlib.sha256("héllo".encode()).hexdigest() == content_hash("héllo")
    )
    assert node.original_bytes == 6 and node.truncated is False
    assert before <= node.created_at == node.updated_at <= now_ms()
    assert node.metadata == {"title": "t"}
    assert node.status is NodeStatus.LIVE and node.kind is NodeKind.NOTE
    assert node.mtime == 0 and node.parent_id is None


def test_new_ids_are_unique_and_sorted_in_creation_order():
    ids = [new_id() for _ in range(20000)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    assert all(len(i) == 26 and set(i) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for i in ids)


def test_new_id_timestamp_prefix_decodes_to_now():
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    value = 0
    for ch in new_id()[:10]:
        value = value * 32 + alphabet.index(ch)
    assert abs(value - now_ms()) < 5000


def test_batch_larger_than_one_statement_keeps_order(store: Store):
    nodes = [NewNode(NodeKind.NOTE, f"note number {i}") for i in range(1234)]
    ids = store.insert(nodes)
    got = store.get_many(ids)
    assert [got[i].content for i in ids] == [f"note number {i}" for i in range(1234)]
    assert store.integrity() == ("ok", True)


def test_lookups_of_more_ids_than_one_in_query_binds_answer_every_id(store: Store):
    """Each batched lookup (at most 500 ids per ``IN (…)``) answers all 1,234 ids."""
    [root] = store.insert([NewNode(NodeKind.NOTE, "the root")])
    ids = store.insert(
        [NewNode(NodeKind.NOTE, f"word{i} alpha", parent_id=root) for i in range(1234)]
    )
    parents = store.insert([NewNode(NodeKind.NOTE, f"parent {i}") for i in range(1234)])
    store.insert([NewNode(NodeKind.NOTE, "a child", parent_id=p) for p in parents[::2]])
    sizes = store.sizes(ids)
    assert {nid: sizes[nid].chars for nid in ids} == {
        nid: len(f"word{i} alpha") for i, nid in enumerate(ids)
    }
    counts = store.child_counts(parents)
    assert set(counts) == set(parents[::2]) and set(counts.values()) == {1}
    spines = store.adjacent_many(ids, direction="out")
    assert all(spines[i] == [(root, "parent")] for i in ids)
    assert set(store.fts_scores("alpha", ids)) == set(ids)
    assert set(browse.rows(store, ids)) == set(ids)


def test_a_bad_row_writes_nothing(store: Store):
    good = NewNode(NodeKind.NOTE, "good")
    with pytest.raises(ValueError):
        store.insert([good, NewNode("nonsense", "bad")])  # type: ignore[arg-type]
    with pytest.raises(apsw.ConstraintError):
        store.insert([good, NewNode(NodeKind.NOTE, "orphan", parent_id="no-such-node")])
    with pytest.raises(apsw.ConstraintError):
        store.insert([good], [(new_id(), "dangling", EdgeKind.REFERENCES)])
    dup = new_id()
    store.insert([NewNode(NodeKind.NOTE, "first", id=dup)])
    with pytest.raises(apsw.ConstraintError):
        store.insert([good, NewNode(NodeKind.NOTE, "second", id=dup)])
    assert store.con.execute("SELECT count(*) FROM nodes").get == 1
    assert store.search("good") == []


def test_parent_may_precede_children_in_one_batch(store: Store):
    root = new_id()
    ids = store.insert(
        [
            NewNode(NodeKind.FILE_CHUNK, "root", id=root, metadata={"is_file_root": True}),
            NewNode(NodeKind.FILE_CHUNK, "a", parent_id=root, metadata={"lines": [1, 40]}),
            NewNode(NodeKind.FILE_CHUNK, "b", parent_id=root, metadata={"lines": [41, 80]}),
        ]
    )
    assert [c.id for c in store.children(root)] == ids[1:]
    assert store.children(ids[1]) == []
    assert store.get("nope") is None
    with pytest.raises(NodeNotFound, match="nope"):
        store.require("nope")


def test_ensure_session_is_one_node_per_session_key(store: Store):
    first = store.ensure_session("key-1", "/work/proj")
    assert store.ensure_session("key-1", "/elsewhere") == first
    other = store.ensure_session("key-2", "/work/proj")
    assert other != first
    node = store.require(first)
    assert node.kind is NodeKind.SESSION and node.parent_id is None
    assert node.source_uri == "session://key-1"
    assert node.metadata["session_id"] == "key-1" and node.metadata["cwd"] == "/work/proj"
    assert abs(node.metadata["started_at"] - now_ms()) < 60_000
    assert store.con.execute("SELECT count(*) FROM nodes WHERE kind='session'").get == 2


def test_recent_since_kind_limit_and_order(store: Store):
    sid = store.ensure_session("k", "/")
    a = store.insert([NewNode(NodeKind.NOTE, "a", parent_id=sid)])[0]
    b = store.insert([NewNode(NodeKind.TOOL_OUTPUT, "b", parent_id=sid)])[0]
    c = store.insert([NewNode(NodeKind.NOTE, "c", parent_id=sid)])[0]
    store.con.execute("UPDATE nodes SET created_at = 1000 WHERE id = ?", (a,))
    store.con.execute("UPDATE nodes SET created_at = 2000 WHERE id = ?", (b,))
    store.con.execute("UPDATE nodes SET created_at = 3000 WHERE id = ?", (c,))
    store.con.execute("UPDATE nodes SET created_at = 500 WHERE id = ?", (sid,))
    assert [n.id for n in store.recent()] == [c, b, a, sid]
    assert [n.id for n in store.recent(limit=2)] == [c, b]
    assert [n.id for n in store.recent(since=2000)] == [c, b]
    assert [n.id for n in store.recent(kind="note")] == [c, a]
    assert [n.id for n in store.recent(since=1000, kind=NodeKind.NOTE)] == [c, a]
    assert [n.id for n in store.recent(filters=Filters(until=2000, since=1000))] == [b, a]
    store.set_status([c], NodeStatus.STALE)
    assert [n.id for n in store.recent(kind="note")] == [a]  # live and pending by default
    assert [n.id for n in store.recent(filters=Filters(status=("stale",)))] == [c]


def test_recent_resumes_after_a_node_without_skipping_or_repeating_its_millisecond(store: Store):
    ids = store.insert([NewNode(NodeKind.NOTE, f"n{i}") for i in range(30)])  # one millisecond
    older = store.insert([NewNode(NodeKind.NOTE, "older")])[0]
    store.con.execute("UPDATE nodes SET created_at = 1 WHERE id = ?", (older,))
    every = [n.id for n in store.recent(limit=100)]
    assert every == [*sorted(ids, reverse=True), older]  # ties: id, highest first
    pages: list[str] = []
    while True:
        last = store.get(pages[-1]) if pages else None
        cursor = (last.created_at, last.id) if last else None
        page = [n.id for n in store.recent(limit=7, older_than=cursor)]
        if not page:
            break
        pages += page
    assert pages == every
    cursor = (store.require(every[3]).created_at, every[3])
    store.set_status([every[3]], NodeStatus.STALE)  # the cursor's node need not be listed
    assert [n.id for n in store.recent(limit=100, older_than=cursor)] == every[4:]


def test_in_file_tells_nodes_copied_from_the_file_from_those_written_in_memory(tmp_path):
    path = tmp_path / "s" / "store.db"
    with Store.open(path) as store:
        (old,) = store.insert([NewNode(NodeKind.NOTE, "kept")])
        assert store.in_file(old)
    copy, copied = Store.open_snapshot(path)
    assert copied
    (new,) = copy.insert([NewNode(NodeKind.NOTE, "only in memory")])
    assert copy.get(new) is not None and copy.in_file(old) and not copy.in_file(new)
    copy.close()
    with Store.open(path) as store:
        assert store.get(old) is not None and store.get(new) is None


def test_metadata_round_trips_as_compact_json(store: Store):
    meta = {"lines": [3, 7], "symbol": None, "nested": {"ü": [1.5, True]}}
    (nid,) = store.insert([NewNode(NodeKind.FILE_CHUNK, "x", metadata=meta)])
    assert store.require(nid).metadata == meta
    raw = store.con.execute("SELECT metadata FROM nodes WHERE id = ?", (nid,)).get
    assert json.loads(raw) == meta and ", " not in raw


def test_counters_and_counts(store: Store):
    store.bump(tokens_served=5, calls=1)
    store.bump(tokens_served=7)
    assert store.counters() == {"tokens_served": 12, "calls": 1}
    store.insert([NewNode(NodeKind.NOTE, "abc"), NewNode(NodeKind.NOTE, "de")])
    assert store.counts()[("note", "live")] == (2, 5)
    assert store.size_bytes() > 0


def test_free_pages_counts_what_vacuum_step_hands_back(store: Store):
    assert store.free_pages() == 0
    ids = store.insert([NewNode(NodeKind.NOTE, "x" * 4000, status=NodeStatus.PENDING)] * 40)
    assert store.drop(ids) == 40
    freed = store.free_pages()
    assert freed > 0
    store.vacuum_step(freed - 1)
    assert store.free_pages() == 1
