"""The DDL on disk: every seed table, column, CHECK, index and trigger; forward migrations."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
from ctx_tree_schema import MIGRATIONS, SCHEMA_VERSION, Migration, NodeKind
from ctx_tree_store import NewNode, SchemaVersionError, Store
from ctx_tree_store import _db as db_module


def objects(con: apsw.Connection, type_: str) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = ?", (type_,))}


def test_fresh_store_has_the_whole_schema(store: Store):
    con = store.con
    assert con.execute("PRAGMA user_version").get == SCHEMA_VERSION == MIGRATIONS[-1].version
    assert {
        "nodes",
        "edges",
        "fts",
        "leases",
        "counters",
        "usage_daily",
        "walker_runs",
        "nodes_vec",
        "nodes_vec_bits",
        "walker_state",
    } <= objects(con, "table")
    assert {
        "idx_nodes_kind_status",
        "idx_nodes_created",
        "idx_nodes_parent",
        "idx_nodes_source",
        "idx_nodes_hash",
        "idx_edges_src",
        "idx_edges_dst",
        "idx_nodes_status_updated",
    } <= objects(con, "index")
    assert {
        "nodes_fts_ai",
        "nodes_fts_ad",
        "nodes_fts_au",
        "nodes_vec_ad",
        "nodes_vec_pruned",
    } == objects(con, "trigger")
    assert objects(con, "view") == {"fts_source"}
    columns = [r[1] for r in con.execute("PRAGMA table_info(nodes)")]
    assert columns == [
        "id",
        "parent_id",
        "kind",
        "source_uri",
        "content",
        "content_hash",
        "status",
        "mtime",
        "created_at",
        "updated_at",
        "truncated",
        "original_bytes",
        "metadata",
        "terms",
    ]
    assert [r[1] for r in con.execute("PRAGMA table_info(edges)")] == [
        "src_id",
        "dst_id",
        "kind",
        "created_at",
    ]
    assert con.execute("PRAGMA journal_mode").get == "wal"
    assert con.execute("PRAGMA auto_vacuum").get == 2  # incremental
    assert con.execute("PRAGMA foreign_keys").get == 1


def raw_insert(con: apsw.Connection, node_id: str, **cols: object) -> None:
    row = {
        "id": node_id,
        "kind": "note",
        "content": "x",
        "content_hash": "h",
        "created_at": 1,
        "updated_at": 1,
        **cols,
    }
    names = ",".join(row)
    con.execute(
        f"INSERT INTO nodes ({names}) VALUES ({','.join('?' * len(row))})", tuple(row.values())
    )


@pytest.mark.parametrize(
    "cols",
    [
        {"status": "bogus"},
        {"truncated": 2},
        {"kind": None},
        {"content_hash": None},
        {"parent_id": "missing-parent"},
    ],
)
def test_checks_and_foreign_keys_hold(store: Store, cols):
    with pytest.raises(apsw.ConstraintError):
        raw_insert(store.con, "n1", **cols)
    assert store.con.execute("SELECT count(*) FROM nodes").get == 0


def test_edges_primary_key_and_cascade(store: Store):
    a, b = store.insert([NewNode(NodeKind.NOTE, "a"), NewNode(NodeKind.NOTE, "b")])
    with pytest.raises(apsw.ConstraintError):
        store.con.execute("INSERT INTO edges VALUES (?, ?, 'references', 1)", (a, "missing"))
    store.add_edges([(a, b, "references"), (a, b, "references")])  # duplicate ignored
    assert store.con.execute("SELECT count(*) FROM edges").get == 1
    store.con.execute("DELETE FROM nodes WHERE id = ?", (b,))
    assert store.con.execute("SELECT count(*) FROM edges").get == 0


def make_v1(path: Path, contents: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = apsw.Connection(str(path))
    con.execute(MIGRATIONS[0].sql)
    con.execute("PRAGMA user_version = 1")
    for i, text in enumerate(contents):
        raw_insert(con, f"v1-{i}", content=text, status="live")
    con.execute(
        "INSERT INTO nodes (id, kind, content, content_hash, status, created_at, "
        "updated_at) VALUES ('v1-pruned', 'note', 'zebra pruned', 'h', 'pruned', 1, 1)"
    )
    con.close()


def test_v1_store_is_upgraded_and_its_rows_searchable(db_path: Path):
    make_v1(
        db_path,
        ["the quick brown fox", "lazy dogs sleeping", "zebra crossing", "本工具在后台静默运行"],
    )
    with Store.open(db_path) as store:
        assert store.con.execute("PRAGMA user_version").get == SCHEMA_VERSION
        # rows stored before CJK terms existed are found by a word inside a CJK run
        assert [h.node.id for h in store.search("静默")] == ["v1-3"]
        assert [h.node.id for h in store.search("fox")] == ["v1-0"]
        assert [h.node.id for h in store.search("sleep")] == ["v1-1"]  # porter stemming
        # The pruned row left the index in the rebuild; the live one stays.
        assert [h.node.id for h in store.search("zebra")] == ["v1-2"]
        assert store.integrity() == ("ok", True)
        store.insert([NewNode(NodeKind.NOTE, "fresh fox")])
        assert len(store.search("fox")) == 2


def test_newer_store_refuses_to_open_naming_both_versions(db_path: Path):
    with Store.open(db_path) as store:
        store.insert([NewNode(NodeKind.NOTE, "keep me")])
        store.con.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaVersionError) as info:
        Store.open(db_path)
    message = str(info.value)
    assert "99" in message and f"({SCHEMA_VERSION})" in message and str(db_path) in message
    assert (info.value.found, info.value.supported) == (99, SCHEMA_VERSION)
    con = apsw.Connection(str(db_path))
    assert con.execute("PRAGMA user_version").get == 99  # untouched
    assert con.execute("SELECT count(*) FROM nodes").get == 1


def test_a_failing_migration_changes_nothing(db_path: Path, monkeypatch: pytest.MonkeyPatch):
    make_v1(db_path, ["alpha"])
    broken = Migration(
        SCHEMA_VERSION + 1, "broken", "CREATE TABLE half_done (x); SELECT * FROM no_such_table;"
    )
    monkeypatch.setattr(db_module, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(db_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(apsw.SQLError, match="no_such_table"):
        Store.open(db_path)
    con = apsw.Connection(str(db_path))
    assert con.execute("PRAGMA user_version").get == 1
    names = objects(con, "table")
    assert "half_done" not in names and "leases" not in names  # migration 2 rolled back too
    assert [r[0] for r in con.execute("PRAGMA table_info(nodes)")][-1] == 12  # no terms column


def test_reopen_is_idempotent(db_path: Path):
    for _ in range(3):
        with Store.open(db_path) as store:
            store.insert([NewNode(NodeKind.NOTE, "again")])
    with Store.open(db_path) as store:
        assert store.con.execute("SELECT count(*) FROM nodes").get == 3
        assert store.integrity() == ("ok", True)


def test_memory_store_works():
    with Store.open(":memory:") as store:
        store.insert([NewNode(NodeKind.NOTE, "in memory")])
        assert store.search("memory")[0].node.content == "in memory"
        assert store.size_bytes() == 0
