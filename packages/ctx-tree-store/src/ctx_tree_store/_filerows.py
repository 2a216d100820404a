"""File versions as rows ready to insert, made where the file was chunked (docs/index.md,
"Cost and yielding").

The project index chunks files in worker processes and writes them from one process. Each
node's row (its packed content, hash, packed metadata and search terms) costs more Python
time than the insert itself, so :func:`file_rows` builds the rows in the worker, and the
writer's :func:`capture_file_rows` only runs the file status machine and the inserts: the
one writing process no longer holds up the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctx_tree_schema import EdgeKind

from . import _sql
from ._conn import Db
from ._nodes import NewNode, node_values
from ._rows import new_id


@dataclass(frozen=True, slots=True)
class FileRows:
    """One file version's rows: its root's ``uri`` and ``root_id``, the version
    (``sha256``, ``size``) the status machine compares, the ids of its nodes (root first) and
    their ``values`` (flat, :data:`_sql.INSERT_NODE_WIDTH` a row). Picklable."""

    uri: str
    root_id: str
    sha256: str
    size: int
    ids: tuple[str, ...]
    values: tuple[Any, ...]


def file_rows(root: NewNode, chunks: Sequence[NewNode], ts: int) -> FileRows:
    """The rows of a file tree (``root`` with an id, a ``source_uri``, ``file_sha256`` and
    ``size`` in its metadata, no parent; ``chunks`` under it), chunk ids made here.
    Raises ``ValueError`` for a root that is not one."""
    if not root.id or root.parent_id is not None or not root.source_uri:
        raise ValueError("file_rows: the root needs an id, a source_uri and no parent_id")
    ids = [root.id]
    values = list(node_values(root, root.id, ts))
    for chunk in chunks:
        ids.append(chunk.id or new_id())
        values += node_values(chunk, ids[-1], ts)
    return FileRows(
        root.source_uri,
        root.id,
        str(root.metadata.get("file_sha256")),
        int(root.metadata.get("size") or 0),  # type: ignore[call-overload]
        tuple(ids),
        tuple(values),
    )


def capture_rows(db: Db, files: Sequence[FileRows], at: int) -> list[tuple[str, bool]]:
    """``Store.capture_files`` for prepared rows, in **one** transaction: per file, the newest
    live or stale version of its URI is kept when it is the same (sha256, size), made live
    again if stale; else the rows are inserted; every other live or stale version is
    superseded, with an edge from the kept root. ``at``: epoch ms of the status changes.
    Returns ``(kept root id, created)`` per file, in order. Raises like ``Store.insert``;
    on an error nothing is written."""
    out: list[tuple[str, bool]] = []
    width = _sql.INSERT_NODE_WIDTH
    step = _sql.INSERT_NODE_ROWS * width
    with db.transaction() as con:
        fresh: list[Any] = []
        written: list[str] = []
        edges: list[tuple[str, str, str, int]] = []
        for f in files:
            current = con.execute(_sql.FILE_VERSIONS_BY_SOURCE, (f.uri,)).fetchall()
            newest = current[0] if current else None
            if newest is not None and (newest[1], newest[2]) == (f.sha256, f.size):
                keep_id, created = str(newest[0]), False
                con.execute(_sql.REVIVE_TREE, (at, keep_id, keep_id))
            else:
                keep_id, created = f.root_id, True
                fresh += f.values
                written += f.ids
            for row in current:
                old = str(row[0])
                if old != keep_id:
                    con.execute(_sql.SUPERSEDE_TREE, (at, old, old))
                    edges.append((keep_id, old, EdgeKind.SUPERSEDES.value, at))
            out.append((keep_id, created))
        for start in range(0, len(fresh), step):
            part = fresh[start : start + step]
            con.execute(_sql.insert_nodes(len(part) // width), part)
        for edge in edges:
            con.execute(_sql.INSERT_EDGE, edge)
    db.written(written)
    return out


def stale(db: Db, uris: Sequence[str], at: int) -> int:
    """Mark the live roots of each of ``uris`` and their live chunks ``stale`` (the files are
    gone), all in one transaction; returns how many of the files had live nodes."""
    files = 0
    with db.transaction() as con:
        for uri in uris:
            changed = 0
            for row in con.execute(_sql.FILE_ROOTS_BY_SOURCE, (uri,)).fetchall():
                con.execute(_sql.STALE_TREE, (at, row[0], row[0]))
                changed += con.changes()
            files += changed > 0
    return files
