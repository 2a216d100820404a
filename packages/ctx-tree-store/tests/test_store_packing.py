"""Packed file chunks (docs/data-model.md): a chunk's text is a zlib BLOB on disk and its
metadata leaves out what its URI says, yet every read, search and status move sees the same
node as before; stores written before (TEXT rows, 4 KB pages, schema 5) keep working."""

from __future__ import annotations

from pathlib import Path

import apsw
from ctx_tree_schema import MIGRATIONS, SCHEMA_VERSION, NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store, new_id

BODY = "\n".join(
    f"def handler_{i}(request):\n    return retry_backoff(request, {i})" for i in range(30)
)


def _tree(path: str, body: str = BODY) -> tuple[NewNode, list[NewNode]]:
    root_id = new_id()
    uri = f"file://{path}"
    root = NewNode(
        NodeKind.FILE_CHUNK,
        f"{path} (python, 60 lines)\n1-60 function handler_0\n",
        id=root_id,
        source_uri=uri,
        metadata={"path": path, "relpath": "h.py", "file_sha256": "ab", "size": len(body)},
        terms="h.py",
    )
    chunks = [
        NewNode(
            NodeKind.FILE_CHUNK,
            body,
            parent_id=root_id,
            source_uri=f"{uri}#handler_0",
            metadata={
                "path": path,
                "relpath": "h.py",
                "lang": "python",
                "lines": [1, 60],
                "chunk_index": 0,
                "symbol": "handler_0",
                "kind": "function",
                "chunking": "tree-sitter",
            },
        ),
        NewNode(
            NodeKind.FILE_CHUNK,
            "x = 1\n",
            parent_id=root_id,
            source_uri=f"{uri}#L61-61",
            metadata={"path": path, "relpath": "h.py", "lines": [61, 61], "symbol": None},
        ),
    ]
    return root, chunks


def test_a_chunk_is_packed_on_disk_and_read_back_whole(store: Store):
    root, chunks = _tree("/p/h.py")
    store.insert([root, *chunks])
    big, small = chunks
    raw = dict(
        (r[0], r[1:])
        for r in store.con.execute(
            "SELECT id, content, metadata, ctx_meta(metadata, source_uri) FROM nodes "
            "WHERE parent_id = ?",
            (root.id,),
        )
    )
    [big_id] = [i for i, (c, _m, _j) in raw.items() if isinstance(c, bytes)]
    assert len(raw[big_id][0]) < len(BODY) / 3  # zlib, not the text
    packed, stored_json = raw[big_id][1:]
    assert isinstance(packed, bytes) and len(packed) < len(stored_json) / 2
    assert '"path"' not in stored_json and '"symbol"' not in stored_json
    assert '"relpath":"h.py"' in stored_json
    got = {n.source_uri: n for n in store.children(root.id)}
    assert got[big.source_uri].content == BODY
    assert got[big.source_uri].metadata == big.metadata
    assert got[small.source_uri].content == "x = 1\n"  # short: stays TEXT
    assert got[small.source_uri].metadata == small.metadata  # symbol None kept as null
    # search reads the text through the view: hit and snippet
    [hit] = [h for h in store.search("retry_backoff") if h.node.id == big_id]
    assert "retry" in hit.snippet and hit.node.content == BODY
    # status moves and deletes keep the FTS index in step with the packed row
    store.set_status([big_id], NodeStatus.STALE)
    assert store.integrity() == ("ok", True)
    store.con.execute("DELETE FROM nodes WHERE id = ?", (big_id,))
    assert store.search("retry_backoff") == []
    assert store.integrity() == ("ok", True)


def test_a_packed_chunk_takes_a_metadata_patch_and_keeps_the_rest(store: Store):
    root, chunks = _tree("/p/h.py")
    store.insert([root, *chunks])
    big = store.children(root.id)[0]
    store.update_metadata(big.id, {"low_rank": "noise", "doc": None})
    assert store.require(big.id).metadata == {**chunks[0].metadata, "low_rank": "noise"}


def test_a_non_file_node_is_stored_as_text(store: Store):
    [note] = store.insert([NewNode(NodeKind.NOTE, BODY, metadata={"path": "/p/h.py"})])
    content, meta = store.con.execute(
        "SELECT content, metadata FROM nodes WHERE id = ?", (note,)
    ).fetchall()[0]
    assert content == BODY and '"path"' in meta


def test_a_new_store_has_8_kb_pages_and_its_snapshot_copies(db_path: Path):
    with Store.open(db_path) as store:
        assert store.con.execute("PRAGMA page_size").get == 8192
        root, chunks = _tree("/p/h.py")
        store.insert([root, *chunks])
    snap, copied = Store.open_snapshot(db_path)
    with snap:
        assert copied
        [hit] = snap.search("retry_backoff")
        assert (hit.node.source_uri, hit.node.content) == (chunks[0].source_uri, BODY)


def _make_v5(path: Path) -> None:
    """A store as schema 5 wrote it: 4 KB pages, TEXT chunk rows with full metadata."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = apsw.Connection(str(path))
    con.execute("PRAGMA auto_vacuum = INCREMENTAL")
    from ctx_tree_store._db import _register_functions

    _register_functions(con)
    for m in MIGRATIONS[:5]:
        con.execute(m.sql)
    con.execute("PRAGMA user_version = 5")
    meta = '{"path":"/p/old.py","relpath":"old.py","symbol":"old_handler","lines":[1,60]}'
    for i, (parent, uri, text, md) in enumerate(
        [
            (None, "file:///p/old.py", "old.py (python)", '{"path":"/p/old.py","size":1}'),
            ("v5-0", "file:///p/old.py#old_handler", BODY.replace("handler", "old_handler"), meta),
        ]
    ):
        con.execute(
            "INSERT INTO nodes (id, parent_id, kind, source_uri, content, content_hash, status, "
            "created_at, updated_at, metadata, terms) VALUES (?, ?, 'file_chunk', ?, ?, 'h', "
            "'live', 1, 1, ?, '')",
            (f"v5-{i}", parent, uri, text, md),
        )
    con.close()


def test_a_schema_5_store_migrates_and_loses_nothing(db_path: Path):
    _make_v5(db_path)
    with Store.open(db_path) as store:
        assert store.con.execute("PRAGMA user_version").get == SCHEMA_VERSION == 7
        assert store.con.execute("PRAGMA page_size").get == 4096  # kept
        old = store.require("v5-1")
        assert old.content == BODY.replace("handler", "old_handler")
        assert old.metadata["path"] == "/p/old.py" and old.metadata["symbol"] == "old_handler"
        assert "v5-1" in [h.node.id for h in store.search("old_handler")]
        root, chunks = _tree("/p/h.py")
        store.insert([root, *chunks])  # new rows packed beside the old TEXT ones
        found = {h.node.source_uri for h in store.search("retry_backoff")}
        assert {"file:///p/old.py#old_handler", chunks[0].source_uri} <= found
        store.set_status(["v5-1"], NodeStatus.STALE)
        assert store.integrity() == ("ok", True)
    snap, copied = Store.open_snapshot(db_path)  # a 4 KB-page file copies into memory too
    with snap:
        assert copied and snap.require("v5-1").content == BODY.replace("handler", "old_handler")


def test_a_schema_6_store_gets_the_smaller_indexes_and_loses_nothing(db_path: Path):
    """Schema 7: the source and hash indexes leave out file-tree chunks; every row of a
    schema-6 store (its JSON metadata too) reads back, and lookups use the new indexes."""
    path = db_path
    path.parent.mkdir(parents=True, exist_ok=True)
    con = apsw.Connection(str(path))
    from ctx_tree_store._db import _register_functions

    _register_functions(con)
    for m in MIGRATIONS[:6]:
        con.execute(m.sql)
    con.execute("PRAGMA user_version = 6")
    meta = '{"relpath":"old.py","lines":[1,60],"chunk_index":0}'  # schema 6: JSON, no path
    rows = [
        ("v6-0", None, "file_chunk", "file:///p/old.py", "old.py (python)", '{"size":1}'),
        (
            "v6-1",
            "v6-0",
            "file_chunk",
            "file:///p/old.py#old_handler",
            "def old_handler(): 1",
            meta,
        ),
        ("v6-2", None, "tool_output", "cmd://make", "make: ok", "{}"),
    ]
    for nid, parent, kind, uri, text, md in rows:
        con.execute(
            "INSERT INTO nodes (id, parent_id, kind, source_uri, content, content_hash, status, "
            "created_at, updated_at, metadata, terms) VALUES (?, ?, ?, ?, ?, ?, 'live', 1, 1, ?, '')",
            (nid, parent, kind, uri, text, f"h-{nid}", md),
        )
    con.close()
    with Store.open(path) as store:
        assert store.con.execute("PRAGMA user_version").get == SCHEMA_VERSION == 7
        sql = {
            n: s
            for n, s in store.con.execute(
                "SELECT name, sql FROM sqlite_master WHERE name LIKE 'idx_nodes_%'"
            )
        }
        assert "WHERE (kind != 'file_chunk' OR parent_id IS NULL)" in sql["idx_nodes_source"]
        assert "WHERE (kind != 'file_chunk' OR parent_id IS NULL)" in sql["idx_nodes_hash"]
        assert "DESC" not in sql["idx_nodes_created"]
        old = store.require("v6-1")
        assert old.metadata["symbol"] == "old_handler" and old.metadata["path"] == "/p/old.py"
        assert store.latest_by_source("file:///p/old.py").id == "v6-0"
        assert store.latest_by_source("cmd://make").id == "v6-2"
        chunk = store.latest_by_source("file:///p/old.py#old_handler")  # not in the URI index
        assert chunk is not None and chunk.id == "v6-1"
        assert store.find_live("cmd://make", "make: ok") is None  # hash 'h-v6-2' is not sha256
        from ctx_tree_store import _sql

        queries = (
            _sql.LATEST_BY_SOURCE,
            _sql.LATEST_CHUNK_BY_SOURCE,
            _sql.SAME_CAPTURE,
            _sql.FILE_ROOTS_BY_SOURCE,
        )
        for query in queries:
            plan = " ".join(
                str(r[3])
                for r in store.con.execute("EXPLAIN QUERY PLAN " + query, [None] * query.count("?"))
            )
            assert "idx_nodes_source" in plan or "idx_nodes_hash" in plan, (query, plan)
        assert {n.id for n in store.recent(limit=3)} == {"v6-0", "v6-1", "v6-2"}
        assert store.integrity() == ("ok", True)


def test_a_chunk_keeps_its_hash_as_32_bytes_and_reads_it_as_hex(store: Store):
    import hashlib

    root, chunks = _tree("/p/h.py")
    store.insert([root, *chunks])
    big = store.children(root.id)[0]
    raw, root_raw = (
        store.con.execute("SELECT content_hash FROM nodes WHERE id = ?", (i,)).get
        for i in (big.id, root.id)
    )
    assert raw == hashlib.sha256(BODY.encode()).digest()  # 32 bytes, not 64 hex characters
    assert root_raw == hashlib.sha256(root.content.encode()).hexdigest()  # a root: hex text
    assert big.content_hash == raw.hex()
    assert [n.content_hash for n in store.get_many([big.id]).values()] == [raw.hex()]


def test_a_chunk_embedded_once_is_not_missing_its_vector_again(store: Store):
    root, chunks = _tree("/p/h.py")
    store.insert([root, *chunks])
    todo = dict(store.missing_vectors("m", limit=10))
    assert len(todo) == 3  # the root and its two chunks
    items = [(n.id, n.content_hash, [1.0, float(i)]) for i, n in enumerate(todo.values())]
    assert store.put_vectors("m", items) == 3
    assert store.missing_vectors("m", limit=10) == []
    assert store.vector_backlog("m") == 0
