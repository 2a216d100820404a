"""Every store under a ctx-tree home: list them, and forget one (``ctx-tree stores``,
``ctx-tree forget``; docs/data-model.md, "Store identity").

Listing opens each store read-only and writes nothing (not even a migration), so it is safe
next to running servers and works on stores of other versions.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import apsw

from . import _sql
from ._db import disk_bytes, open_without_writing
from ._location import STORE_FILE, ctx_tree_home, legacy_hashes, store_path


@dataclass(frozen=True, slots=True)
class StoreInfo:
    """One store: its ``store.db`` path, the project it serves (the working directory of its
    newest session, None when unknown), bytes on disk (database and WAL), node count and last
    use (newest mtime of the database or WAL, epoch ms). ``error`` says why the counts are
    missing (unreadable, not a store)."""

    path: Path
    project: str | None
    size_bytes: int
    nodes: int | None
    last_used_ms: int
    error: str | None = None


def describe(path: Path) -> StoreInfo:
    """A :class:`StoreInfo` for the store file ``path``, read without writing anything."""
    size, last = disk_bytes(path), 0
    wal = Path(str(path) + "-wal")
    for f in (path, wal):
        with contextlib.suppress(OSError):
            st = f.stat()
            if st.st_size:
                last = max(last, st.st_mtime_ns // 1_000_000)
    project, nodes, error = None, None, None
    try:
        con = open_without_writing(path)
    except apsw.Error as exc:
        error = str(exc)
    else:
        try:
            nodes = con.execute(_sql.COUNT_NODES).get
            project = con.execute(_sql.NEWEST_SESSION_CWD).get
        except apsw.Error as exc:
            error = str(exc)
        finally:
            con.close()
    return StoreInfo(path, project, size, nodes, last, error)


def list_stores(home: Path | None = None) -> list[StoreInfo]:
    """Every ``<home>/<hash>/store.db``, most recently used first."""
    home = home or ctx_tree_home()
    try:
        dirs = [d for d in home.iterdir() if not d.name.startswith(".")]
    except OSError:
        return []
    found = [describe(d / STORE_FILE) for d in dirs if (d / STORE_FILE).is_file()]
    return sorted(found, key=lambda s: -s.last_used_ms)


def project_stores(workspace: Path, home: Path | None = None) -> list[Path]:
    """The store files that belong to ``workspace``'s project: its current one and any left
    under a 0.1.0 hash; only those that exist."""
    home = home or ctx_tree_home()
    candidates = [store_path(workspace, home)]
    candidates += [home / h / STORE_FILE for h in legacy_hashes(workspace)]
    return [p for p in dict.fromkeys(candidates) if p.is_file()]


def forget(path: Path) -> StoreInfo:
    """Delete the store ``path`` and its directory; returns what it held.

    The directory is first renamed (atomic) to a hidden name in the same home, then removed,
    so no process opens a half-deleted store. A server that had it open notices at its next
    call (the file is gone) and starts a new, empty store; a write it was committing answers
    that it did not persist.
    """
    info = describe(path)
    directory = path.parent
    trash = directory.with_name(f".forgotten-{directory.name}-{os.getpid()}")
    os.rename(directory, trash)
    shutil.rmtree(trash)
    return info
