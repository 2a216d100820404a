"""Read-only open, keyset pages for browsing, and the history records (usage, walker runs)."""

from __future__ import annotations

import calendar
import json
from pathlib import Path

import apsw
import pytest
from ctx_tree_schema import MIGRATIONS, EdgeKind, NodeKind, NodeStatus
from ctx_tree_store import NewNode, SchemaTooOld, Store, browse


def _tree(store: Store, notes: int = 7) -> dict[str, object]:
    session = store.ensure_session("s1", "/p")
    ids = store.insert(
        [NewNode(NodeKind.NOTE, f"note number {i}", parent_id=session) for i in range(notes)]
    )
    grep = store.insert(
        [NewNode(NodeKind.TOOL_OUTPUT, "a.py:1:x", parent_id=session, status=NodeStatus.PENDING)]
    )[0]
    root = store.insert([NewNode(NodeKind.FILE_CHUNK, "outline", metadata={"is_file_root": True})])[
        0
    ]
    chunks = store.insert(
        [NewNode(NodeKind.FILE_CHUNK, f"def f{i}(): pass", parent_id=root) for i in range(3)]
    )
    store.add_edges([(ids[1], ids[0], EdgeKind.REFERENCES)])
    return {"session": session, "notes": ids, "grep": grep, "root": root, "chunks": chunks}


def _snapshot(path: Path) -> list[tuple[int, int, bytes]]:
    out = []
    for suffix in ("", "-wal"):
        p = Path(str(path) + suffix)
        if p.exists():
            st = p.stat()
            out.append((st.st_size, st.st_mtime_ns, p.read_bytes()))
    return out


def test_readonly_store_reads_and_refuses_every_write(store: Store, db_path: Path):
    t = _tree(store)
    before = _snapshot(db_path)
    with Store.open_readonly(db_path) as ro:
        assert ro.require(t["grep"]).kind == NodeKind.TOOL_OUTPUT
        assert [h.node.id for h in ro.search("number 3")][:1] == [t["notes"][3]]
        with pytest.raises(apsw.ReadOnlyError):
            ro.insert([NewNode(NodeKind.NOTE, "nope")])
        with pytest.raises(apsw.ReadOnlyError):
            ro.bump(tokens_served=1)
    assert _snapshot(db_path) == before


def test_readonly_open_creates_nothing_and_names_old_schemas(tmp_path: Path):
    missing = tmp_path / "none" / "store.db"
    with pytest.raises(FileNotFoundError, match="no store"):
        Store.open_readonly(missing)
    assert not missing.parent.exists()
    old = tmp_path / "old.db"
    con = apsw.Connection(str(old))
    con.execute(MIGRATIONS[0].sql)
    con.execute("PRAGMA user_version = 1")
    con.close()
    with pytest.raises(SchemaTooOld, match="ctx-tree stats") as info:
        Store.open_readonly(old)
    assert info.value.found == 1


def test_children_pages_cover_every_child_once_in_both_orders(store: Store):
    t = _tree(store)
    session_children = [*t["notes"], t["grep"]]
    for newest in (True, False):
        seen, after = [], None
        while True:
            page = browse.children_page(
                store, t["session"], newest_first=newest, after=after, limit=3
            )
            seen += [r.id for r in page]
            if len(page) < 3:
                break
            after = page[-1].cursor
        expected = list(reversed(session_children)) if newest else session_children
        assert seen == expected


def test_children_filters_roots_and_row_fields(store: Store):
    t = _tree(store)
    roots = browse.children_page(store, None)
    assert [r.id for r in roots] == [t["root"], t["session"]]
    assert roots[0].has_children and roots[0].metadata == {"is_file_root": True}
    notes = browse.children_page(store, t["session"], kinds=["note"], statuses=["live"])
    assert {r.id for r in notes} == set(t["notes"])
    pending = browse.children_page(store, t["session"], statuses=["pending"])
    assert [r.id for r in pending] == [t["grep"]]
    chunk = browse.children_page(store, t["root"], newest_first=False, limit=1)[0]
    assert (chunk.id, chunk.chars, chunk.has_children) == (
        t["chunks"][0],
        len("def f0(): pass"),
        False,
    )
    with pytest.raises(ValueError):
        browse.children_page(store, None, kinds=["bogus"])


def test_recent_pages_follow_created_at_then_insertion(store: Store):
    t = _tree(store, notes=4)
    everything = [t["session"], *t["notes"], t["grep"], t["root"], *t["chunks"]]
    seen, after = [], None
    while True:
        page = browse.recent_page(store, after=after, limit=4)
        seen += [r.id for r in page]
        if len(page) < 4:
            break
        after = page[-1].cursor
    assert sorted(seen) == sorted(everything) and len(seen) == len(everything)
    created = [store.require(i).created_at for i in seen]
    assert created == sorted(created, reverse=True)
    assert [r.id for r in browse.recent_page(store, kinds=["tool_output"])] == [t["grep"]]


def test_node_detail_has_content_edges_both_ways_path_and_neighbors(store: Store):
    t = _tree(store)
    detail = browse.node_detail(store, t["notes"][1])
    assert detail is not None and detail.content == "note number 1"
    assert [(e.direction, e.kind, e.other_id) for e in detail.edges] == [
        ("out", "references", t["notes"][0])
    ]
    back = browse.node_detail(store, t["notes"][0])
    assert [(e.direction, e.other_id) for e in back.edges] == [("in", t["notes"][1])]
    assert [r.id for r in detail.path] == [t["notes"][1], t["session"]]
    assert {(r.id, via) for r, via in detail.neighbors} == {
        (t["session"], "parent"),
        (t["notes"][0], "references:out"),
    }
    assert browse.node_detail(store, t["session"]).children == 8
    assert browse.node_detail(store, "nope") is None


def test_counts_and_activity_buckets(store: Store):
    _tree(store)
    counts = browse.kind_status_counts(store)
    assert counts[("note", "live")] == 7 and counts[("tool_output", "pending")] == 1
    buckets = browse.activity(store, 0, 3_600_000)
    assert sum(c for _b, c in buckets) == 13
    assert all(b % 3_600_000 == 0 for b, _c in buckets)


def test_usage_is_kept_per_day_and_tool_and_in_the_totals(store: Store):
    day1 = calendar.timegm((2026, 3, 1, 23, 59, 0)) * 1000  # UTC
    store.record_usage({("read", "tokens_served"): 10, ("read", "reads"): 1}, at=day1)
    store.record_usage({("read", "tokens_served"): 5, ("grep", "tokens_served"): 7}, at=day1)
    store.record_usage({("grep", "tokens_source"): 40}, at=day1 + 86_400_000)
    assert store.counters() == {"tokens_served": 22, "reads": 1, "tokens_source": 40}
    rows = browse.usage_since(store, "2026-03-01")
    assert rows == [
        ("2026-03-01", "grep", "tokens_served", 7),
        ("2026-03-01", "read", "reads", 1),
        ("2026-03-01", "read", "tokens_served", 15),
        ("2026-03-02", "grep", "tokens_source", 40),
    ]
    assert browse.usage_since(store, "2026-03-02") == rows[-1:]


def test_walker_runs_keep_the_last_n_with_status_counts(store: Store):
    _tree(store, notes=2)
    for i in range(5):
        store.record_walker_run("filter", i, i + 1, f"run {i}", {"promoted": i + 1}, keep=3)
    runs = browse.walker_runs(store)
    assert [r.summary for r in runs] == ["run 4", "run 3", "run 2"]
    assert runs[0].changes == {"promoted": 5}
    # session, 2 notes, a file root and 3 chunks are live; the grep is pending
    assert runs[0].status_counts == {"live": 7, "pending": 1}
    raw = store.con.execute("SELECT status_counts FROM walker_runs LIMIT 1").get
    assert json.loads(raw) == {"live": 7, "pending": 1}


def test_neighbors_of_a_big_parent_are_bounded_and_keep_its_edges(store: Store):
    t = _tree(store, notes=60)
    store.add_edges([(t["session"], t["root"], EdgeKind.REFERENCES)])
    detail = browse.node_detail(store, t["session"])
    vias = [via for _row, via in detail.neighbors]
    assert vias.count("child") == browse.NEIGHBORS_MAX // 2
    assert vias[-1] == "references:out" and len(vias) <= browse.NEIGHBORS_MAX
    assert detail.children == 61
