"""Writing nodes and edges: inserts, status moves (the status machine of docs/data-model.md),
deletes, metadata patches and the session node. Each call is one transaction."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctx_tree_schema import EdgeKind, NodeKind, NodeStatus, SessionMeta, can_transition

from . import _sql
from ._conn import Db
from ._errors import IllegalTransition, NodeNotFound
from ._graph import get
from ._packing import hash_value, metadata_value, pack_content
from ._rows import new_id, now_ms
from ._terms import index_terms


def node_values(n: NewNode, node_id: str, ts: int) -> tuple[Any, ...]:
    """The ``nodes`` row of ``n`` as :data:`_sql.INSERT_NODE` takes it (its
    :data:`_sql.INSERT_NODE_WIDTH` values: packed content, hash, packed metadata, search
    terms), created and updated at ``ts`` (epoch ms). Pure: the project index builds rows
    in its worker processes with it (``_filerows``)."""
    encoded = n.content.encode("utf-8", "surrogatepass")
    kind = NodeKind(n.kind).value
    return (
        node_id,
        n.parent_id,
        kind,
        n.source_uri,
        pack_content(kind, n.content, encoded),
        hash_value(kind, n.parent_id, hashlib.sha256(encoded)),
        NodeStatus(n.status).value,
        n.mtime,
        ts,
        ts,
        int(n.truncated),
        n.original_bytes if n.original_bytes is not None else len(encoded),
        metadata_value(kind, n.parent_id, n.source_uri, n.metadata),
        index_terms(n.content, n.terms, encoded=encoded),
    )


@dataclass(slots=True)
class NewNode:
    """A node to insert. ``id`` and times are filled in by :meth:`Store.insert` when left empty.

    ``terms`` are extra search words (symbol, path); identifier parts of ``content`` are added.
    """

    kind: NodeKind
    content: str
    parent_id: str | None = None
    source_uri: str | None = None
    status: NodeStatus = NodeStatus.LIVE
    mtime: int = 0
    metadata: Mapping[str, object] = field(default_factory=dict)
    truncated: bool = False
    original_bytes: int | None = None
    terms: str = ""
    id: str = ""


def insert(
    db: Db, nodes: Iterable[NewNode], edges: Iterable[tuple[str, str, EdgeKind]] = ()
) -> list[str]:
    """Insert nodes (in order, so a parent may precede its children) and then edges
    ``(src_id, dst_id, kind)``, all in one transaction. Returns the node ids.

    Rows are prepared (hash, JSON, search terms) before the write lock is taken and written
    with multi-row ``INSERT`` statements: FTS5 flushes its pending index data at each
    statement savepoint, so one statement per row would write one tiny segment per node.

    Raises ``apsw.ConstraintError`` for a bad status, a duplicate id or a dangling edge, and
    ``ValueError`` for an unknown kind; nothing is written then.
    """
    ts = now_ms()
    ids: list[str] = []
    values: list[Any] = []
    for n in nodes:
        node_id = n.id or new_id()
        values += node_values(n, node_id, ts)
        ids.append(node_id)
    edge_rows = [(src, dst, EdgeKind(kind).value, ts) for src, dst, kind in edges]
    width = _sql.INSERT_NODE_WIDTH
    step = _sql.INSERT_NODE_ROWS * width
    with db.transaction() as con:
        for start in range(0, len(values), step):
            part = values[start : start + step]
            con.execute(_sql.insert_nodes(len(part) // width), part)
        for row in edge_rows:
            con.execute(_sql.INSERT_EDGE, row)
    db.written(ids)
    return ids


def add_edges(db: Db, edges: Iterable[tuple[str, str, EdgeKind]]) -> None:
    """Insert edges ``(src_id, dst_id, kind)`` in one transaction; duplicates are ignored."""
    insert(db, (), edges)


def set_status(
    db: Db, node_ids: Iterable[str], status: NodeStatus, *, at: int | None = None
) -> int:
    """Move nodes to ``status`` in one transaction; returns how many changed.

    A node already in ``status`` is left alone. Raises :class:`NodeNotFound` for an unknown id
    and :class:`IllegalTransition` for a change docs/data-model.md forbids; then nothing changes.
    """
    status = NodeStatus(status)
    ts = at if at is not None else now_ms()
    changed = 0
    with db.transaction() as con:
        for node_id in node_ids:
            old = con.execute(_sql.GET_STATUS, (node_id,)).get
            if old is None:
                raise NodeNotFound(node_id)
            if old == status:
                continue
            if not can_transition(old, status):
                raise IllegalTransition(
                    f"node {node_id}: {old} → {status} is not allowed (docs/data-model.md)"
                )
            con.execute(_sql.SET_STATUS, (status.value, ts, node_id))
            changed += 1
    return changed


def supersede(db: Db, new_id_: str, old_ids: str | Iterable[str]) -> None:
    """Write ``new --supersedes--> old`` and mark ``old`` superseded, for one old id or
    several, in one transaction (docs/data-model.md).

    Raises :class:`NodeNotFound` for an unknown id, :class:`IllegalTransition` when an old
    node cannot become superseded (docs/data-model.md) or is the new node itself; nothing changes then.
    """
    old_ids = [old_ids] if isinstance(old_ids, str) else list(old_ids)
    with db.transaction():
        if get(db, new_id_) is None:
            raise NodeNotFound(new_id_)
        if new_id_ in old_ids:
            raise IllegalTransition(f"node {new_id_} cannot supersede itself")
        set_status(db, old_ids, NodeStatus.SUPERSEDED)
        add_edges(db, ((new_id_, old, EdgeKind.SUPERSEDES) for old in old_ids))


def drop(db: Db, node_ids: Iterable[str]) -> int:
    """Delete ``pending`` nodes (the filter walker's drop). Raises :class:`IllegalTransition`
    for a node that is not pending. Returns how many were deleted."""
    count = 0
    with db.transaction() as con:
        for node_id in node_ids:
            old = con.execute(_sql.GET_STATUS, (node_id,)).get
            if old is None:
                continue
            if old != NodeStatus.PENDING:
                raise IllegalTransition(
                    f"node {node_id}: only pending nodes can be dropped, not {old}"
                )
            con.execute(_sql.DELETE_NODE, (node_id,))
            count += 1
    return count


def delete(db: Db, node_ids: Iterable[str]) -> int:
    """Delete pruned nodes for good (their edges go with them). Returns the count."""
    count = 0
    with db.transaction() as con:
        for node_id in node_ids:
            if con.execute(_sql.GET_STATUS, (node_id,)).get == NodeStatus.PRUNED:
                con.execute(_sql.DELETE_NODE, (node_id,))
                count += 1
    return count


def update_metadata(db: Db, node_id: str, patch: dict[str, Any]) -> None:
    """Merge ``patch`` into a node's ``metadata`` (JSON merge patch: a ``None`` value
    removes its key), in one transaction. Raises :class:`NodeNotFound` for an unknown id."""
    with db.transaction() as con:
        con.execute(_sql.PATCH_METADATA, (json.dumps(patch), node_id))
        if not con.changes():
            raise NodeNotFound(node_id)


def ensure_session(db: Db, session_id: str, cwd: str) -> str:
    """The id of the ``session`` node for ``session_id`` (source ``session://<id>``),
    created when missing with metadata ``session_id``, ``cwd``, ``started_at`` (epoch ms)."""
    uri = f"session://{session_id}"
    with db.transaction():
        rows = db.query(_sql.SESSION_BY_URI, (uri,))
        if rows:
            found: str = rows[0][0]
            return found
        meta = SessionMeta(session_id=session_id, cwd=cwd, started_at=now_ms())
        return insert(
            db, [NewNode(NodeKind.SESSION, "", source_uri=uri, metadata=meta, terms="session")]
        )[0]
