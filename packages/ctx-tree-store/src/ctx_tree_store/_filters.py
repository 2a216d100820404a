"""A search's or listing's :class:`~ctx_tree_schema.Filters` as SQL: one rule for keyword,
vector and recency queries (docs/tools.md)."""

from __future__ import annotations

from typing import Any

from ctx_tree_schema import Filters, NodeStatus

from . import _sql
from ._conn import Db

#: Statuses a search or listing returns when the caller gives none.
DEFAULT_STATUSES: tuple[NodeStatus, ...] = (NodeStatus.LIVE, NodeStatus.PENDING)


def filter_sql(db: Db, filters: Filters | None, alias: str = "") -> tuple[str, list[Any]]:
    """``(" AND …" SQL, its arguments)`` admitting the nodes ``filters`` admits (None: live
    and pending), over the columns of ``alias`` (``"n"`` → ``n.status``) or unqualified."""
    f = filters or Filters()
    p = f"{alias}." if alias else ""
    where: list[str] = []
    args: list[Any] = []
    statuses = f.status or DEFAULT_STATUSES
    where.append(f"{p}status IN ({','.join('?' * len(statuses))})")
    args.extend(s.value for s in statuses)
    if f.kind:
        where.append(f"{p}kind IN ({','.join('?' * len(f.kind))})")
        args.extend(k.value for k in f.kind)
    if f.since is not None:
        where.append(f"{p}created_at >= ?")
        args.append(f.since)
    if f.until is not None:
        where.append(f"{p}created_at <= ?")
        args.append(f.until)
    if f.parent_id:
        where.append(f"{p}parent_id = ?")
        args.append(f.parent_id)
    if f.session_id:
        # The session node itself, and the nodes hanging directly under it.
        session = _session_node_id(db, f.session_id)
        where.append(f"({p}parent_id = ? OR {p}id = ?)")
        args.extend([session, session])
    return "".join(" AND " + w for w in where), args


def _session_node_id(db: Db, value: str) -> str:
    """A session node id given its id or its session key (``session://<key>``)."""
    rows = db.query(_sql.SESSION_ID_BY_URI, (f"session://{value}",))
    return rows[0][0] if rows else value
