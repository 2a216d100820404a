"""What the walkers ask of the store (docs/walkers.md): pending nodes and duplicates for the
filter, file roots for staleness, expired nodes for the pruner, the summarizer's candidates,
their leases, persisted state and run records; and vacuum and the integrity check."""

from __future__ import annotations

import json

import apsw
from ctx_tree_schema import Node, NodeStatus

from . import _sql
from ._conn import Db
from ._rows import content_hash, now_ms, row_to_node


def pending(db: Db, limit: int = 500) -> list[Node]:
    """Oldest pending nodes first."""
    return [row_to_node(r) for r in db.query(_sql.PENDING, (limit,))]


def live_duplicate(db: Db, node: Node) -> str | None:
    """Id of another live node with the same content hash and source, or None (chunks
    under a file root are not looked at: docs/data-model.md, indexes)."""
    rows = db.query(_sql.LIVE_DUPLICATE, (node.content_hash, node.source_uri, node.id))
    return rows[0][0] if rows else None


def find_live(db: Db, source_uri: str | None, content: str) -> str | None:
    """Id of the oldest live or pending node holding exactly ``content`` from
    ``source_uri``, or None (capture-time dedup: the same output is stored once, and the
    id an answer named is the one the filter walker keeps). Chunks under a file root are
    not looked at (docs/data-model.md, indexes)."""
    rows = db.query(_sql.SAME_CAPTURE, (content_hash(content), source_uri))
    return rows[0][0] if rows else None


def file_roots(db: Db, status: NodeStatus, after_id: str = "", limit: int = 200) -> list[Node]:
    """File root nodes in ``status`` with id greater than ``after_id``, in id order."""
    rows = db.query(_sql.FILE_ROOTS, (NodeStatus(status).value, after_id, limit))
    return [row_to_node(r) for r in rows]


def expired(db: Db, status: NodeStatus, before_ms: int, limit: int = 1000) -> list[str]:
    """Ids of nodes in ``status`` last updated before ``before_ms``, oldest first."""
    return [r[0] for r in db.query(_sql.EXPIRED, (NodeStatus(status).value, before_ms, limit))]


def expired_replaceable(db: Db, before_ms: int, limit: int = 1000) -> list[str]:
    """Ids of ``superseded`` nodes last updated before ``before_ms`` whose content is not
    lost when they go, oldest first: file chunks (re-read from disk), summaries (made again
    from their children) and exact duplicates of a node that supersedes them. Other
    superseded nodes (an older run of a command, a near duplicate) are never listed: the
    pruner keeps them (docs/walkers.md)."""
    return [r[0] for r in db.query(_sql.EXPIRED_REPLACEABLE, (before_ms, limit))]


def subtrees_over(db: Db, threshold: int, limit: int = 100) -> list[tuple[str, int]]:
    """``(parent id, live non-summary children)`` for parents with at least ``threshold``
    such children, by id (the summarizer's candidates)."""
    return [(r[0], r[1]) for r in db.query(_sql.SUBTREES_OVER, (threshold, limit))]


def walker_state(db: Db, name: str) -> str | None:
    """A walker's persisted value (cursor, daily counter), or None."""
    rows = db.query(_sql.WALKER_STATE_GET, (name,))
    return rows[0][0] if rows else None


def set_walker_state(db: Db, name: str, value: str) -> None:
    """Persist a walker's value (one transaction)."""
    with db.transaction() as con:
        con.execute(_sql.WALKER_STATE_SET, (name, value))


def acquire_lease(db: Db, name: str, holder: str, ttl_ms: int, *, at: int | None = None) -> bool:
    """Take or renew the lease ``name`` for ``holder`` until ``at + ttl_ms``.

    True when ``holder`` now holds it: it was free, expired, or already ``holder``'s.
    """
    ts = at if at is not None else now_ms()
    with db.transaction() as con:
        con.execute(
            _sql.LEASE_ACQUIRE,
            {"name": name, "holder": holder, "expires": ts + ttl_ms, "now": ts},
        )
        row = con.execute(_sql.LEASE_HOLDER, (name,)).fetchall()
    return bool(row) and row[0][0] == holder


def release_lease(db: Db, name: str, holder: str) -> None:
    """Give the lease up (only if ``holder`` holds it)."""
    with db.transaction() as con:
        con.execute(_sql.LEASE_RELEASE, (name, holder))


def record_walker_run(
    db: Db,
    walker: str,
    started_at: int,
    finished_at: int,
    summary: str,
    changes: dict[str, int],
    *,
    keep: int = 2000,
) -> None:
    """Append a walker run to ``walker_runs`` with what it changed (``changes``, e.g.
    ``{"promoted": 3}``) and the node counts by status after it; only the last ``keep``
    runs are kept. The count is read before the (short) write transaction."""
    counts = dict(db.query(_sql.STATUS_COUNTS))
    row = (
        walker,
        started_at,
        finished_at,
        summary,
        json.dumps(changes, separators=(",", ":")),
        json.dumps(counts, separators=(",", ":")),
    )
    with db.transaction() as con:
        con.execute(_sql.INSERT_WALKER_RUN, row)
        con.execute(_sql.TRIM_WALKER_RUNS, (keep,))


def vacuum_step(db: Db, pages: int = 1000) -> None:
    """Return up to ``pages`` free pages to the file system (``incremental_vacuum``)."""
    with db.lock:
        db.con.execute(f"PRAGMA incremental_vacuum({int(pages)})").fetchall()


def free_pages(db: Db) -> int:
    """Pages on the file's free list (``PRAGMA freelist_count``): what :func:`vacuum_step`
    can hand back."""
    with db.lock:
        return int(db.con.execute("PRAGMA freelist_count").get or 0)


def integrity(db: Db) -> tuple[str, bool]:
    """``(PRAGMA integrity_check result, FTS5 integrity-check passed)``."""
    with db.lock:
        check = db.con.execute("PRAGMA integrity_check").get
        try:
            db.con.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
            fts_ok = True
        except apsw.Error:
            fts_ok = False
    return check, fts_ok
