"""The map's reads (Store.live_roots_under, Store.file_texts): a directory's live file roots
in one range, and each file's stored text as its live chunks joined (they tile the file)."""

from __future__ import annotations

from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store, new_id


def _file(store: Store, path: str, parts: list[str]) -> str:
    root = NewNode(
        NodeKind.FILE_CHUNK,
        f"{path} outline",
        source_uri=f"file://{path}",
        metadata={"file_sha256": path, "size": sum(map(len, parts)), "is_file_root": True},
        id=new_id(),
    )
    chunks = [
        NewNode(
            NodeKind.FILE_CHUNK,
            text * (40 if i == 0 else 1),
            parent_id=root.id,
            source_uri=f"file://{path}#L{i}",
        )
        for i, text in enumerate(parts)
    ]
    store.capture_file(root, chunks)
    return root.id


def test_a_directory_s_roots_and_their_texts(tmp_path) -> None:
    store = Store.open(tmp_path / "store.db")
    try:
        a = _file(store, "/p/src/a.py", ["def alpha():\n", "    return 1\n"])
        b = _file(store, "/p/src/b.py", ["x = 1\n"])
        _file(store, "/p/other.py", ["y = 2\n"])
        store.stale_file("file:///p/src/b.py")
        assert store.live_roots_under("file:///p/src/") == {"file:///p/src/a.py": a}
        texts = store.file_texts([a, b])
        assert texts == {a: "def alpha():\n" * 40 + "    return 1\n"}  # packed chunk read back
    finally:
        store.close()
