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
            "SELECT id, content, metadata FROM nodes WHERE parent_id = ?", (root.id,)
        )
    )
    [big_id] = [i for i, (c, _m) in raw.items() if isinstance(c, bytes)]
    assert len(raw[big_id][0]) < len(BODY) / 3  # zlib, not the text
    assert '"path"' not in raw[big_id][1] and '"symbol"' not in raw[big_id][1]
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
        assert store.con.execute("PRAGMA user_version").get == SCHEMA_VERSION == 6
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
