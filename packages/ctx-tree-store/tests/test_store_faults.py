"""Store faults: a full disk, a store deleted or replaced while open, a copy of a store that
cannot be written. Real SQLite errors (``max_page_count`` makes SQLite itself answer
SQLITE_FULL), real files. Real full and read-only file systems: ctx-tree-mcp's
test_mcp_store_faults.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store, StoreFull, StoreGone


def _cap_pages(store: Store, extra: int) -> None:
    pages = store.con.execute("PRAGMA page_count").get
    store.con.execute(f"PRAGMA max_page_count = {pages + extra}")


def test_sqlite_full_rolls_back_alone_and_the_store_works_once_space_is_back(store: Store):
    [kept] = store.insert([NewNode(NodeKind.NOTE, "before the disk filled")])
    _cap_pages(store, 1)
    with pytest.raises(StoreFull, match="disk full"):
        store.insert([NewNode(NodeKind.NOTE, "x" * 200_000)])
    assert not store.in_transaction and not store.con.in_transaction
    with pytest.raises(StoreFull):  # the next write fails alone too, with the same message
        store.insert([NewNode(NodeKind.NOTE, "y" * 200_000)])
    assert store.con.execute("SELECT count(*) FROM nodes").get == 1
    store.con.execute("PRAGMA max_page_count = 1000000")
    session = store.ensure_session("s1", "/proj")
    [note] = store.insert([NewNode(NodeKind.NOTE, "after", parent_id=session)])
    assert store.require(note).parent_id == session and store.require(kept)


def test_a_deleted_store_refuses_writes_and_reopen_makes_a_new_one(store: Store, db_path: Path):
    store.insert([NewNode(NodeKind.NOTE, "old")])
    shutil.rmtree(db_path.parent)
    assert store.replaced()
    with pytest.raises(StoreGone, match="nothing was written"):
        store.insert([NewNode(NodeKind.NOTE, "lost?")])
    store.reopen()
    assert store.generation == 1 and not store.replaced()
    [nid] = store.insert([NewNode(NodeKind.NOTE, "new")])
    with Store.open(db_path) as fresh:
        assert [n.content for n in fresh.recent()] == ["new"] and fresh.get(nid)
    assert oct(db_path.parent.stat().st_mode & 0o777) == "0o700"


def test_a_write_into_a_file_deleted_mid_transaction_is_not_reported_done(
    store: Store, db_path: Path
):
    with pytest.raises(StoreGone, match="did not persist"), store.transaction():
        store.insert([NewNode(NodeKind.NOTE, "written while deleted")])
        os.unlink(db_path)
    assert store.replaced()


def test_a_replaced_file_is_noticed(store: Store, db_path: Path, tmp_path: Path):
    other = tmp_path / "other.db"
    Store.open(other).close()
    os.replace(other, db_path)  # same path, another inode
    assert store.replaced()
    with pytest.raises(StoreGone):
        store.insert([NewNode(NodeKind.NOTE, "x")])


def test_a_snapshot_copies_the_store_and_never_writes_it(store: Store, db_path: Path):
    [nid] = store.insert([NewNode(NodeKind.NOTE, "searchable snapshot words")])
    before = db_path.read_bytes()
    copy, copied = Store.open_snapshot(db_path)
    with copy:
        assert copied and not copy.persistent
        assert [h.node.id for h in copy.search("snapshot")] == [nid]
        copy.insert([NewNode(NodeKind.NOTE, "only in memory")])
    assert db_path.read_bytes() == before
    empty, copied = Store.open_snapshot(db_path.parent / "missing.db")
    with empty:
        assert not copied and empty.recent() == []


FILE_SIZE_LIMIT = r"""
import resource, sys
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store, StoreFull

store = Store.open(sys.argv[1])
store.insert([NewNode(NodeKind.NOTE, "before the limit")])
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (2_000_000, hard))  # SIGXFSZ: Python ignores it
try:
    store.insert([NewNode(NodeKind.NOTE, "x" * 3_000_000)])
    print("no error")
except StoreFull as exc:
    print("full:", exc)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
store.insert([NewNode(NodeKind.NOTE, "after the limit")])
print(store.con.execute("SELECT group_concat(content, '|') FROM nodes").get)
"""


def test_a_file_size_limit_or_quota_is_a_full_disk_not_an_io_error(db_path: Path):
    """SQLite reports a write past RLIMIT_FSIZE (or a disk quota) as a disk I/O error with
    the system's EFBIG (EDQUOT): it is the same fault as a full disk, and says so."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", FILE_SIZE_LIMIT, str(db_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    full, rows = done.stdout.splitlines()
    assert full.startswith("full: disk full: the store ")
    assert rows == "before the limit|after the limit"
