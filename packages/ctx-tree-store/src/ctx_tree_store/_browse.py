"""Read-only pages over a store for people browsing it (the inspector, ``docs/inspector.md``).

Every listing is one page of at most :data:`PAGE_MAX` rows found through an index and resumed
with a keyset cursor (the last row's ``cursor``), so a page costs the same on a store of a
hundred nodes or of a million. Rows carry the node's size and metadata but never its content;
:func:`node_detail` returns one node's content. Times are epoch ms; sizes are characters of the
stored (redacted, possibly truncated) content, ``original_bytes`` UTF-8 bytes before truncation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctx_tree_schema import NodeKind, NodeStatus

from . import _sql
from ._conn import Connected
from ._graph import get, path_to_root
from ._packing import read_metadata

PAGE_MAX = 200
#: Edges listed per direction in :func:`node_detail`.
EDGES_MAX = 200
#: Nodes drawn around a node in :func:`node_detail`'s neighbour graph.
NEIGHBORS_MAX = 40


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A node without its content. ``chars`` is the stored content's length in characters;
    ``has_children`` whether any node has it as spine parent; ``cursor`` resumes a page after
    this row (an opaque string)."""

    id: str
    parent_id: str | None
    kind: NodeKind
    status: NodeStatus
    source_uri: str | None
    chars: int
    original_bytes: int
    truncated: bool
    created_at: int
    updated_at: int
    metadata: dict[str, Any]
    has_children: bool
    cursor: str


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """An edge seen from one node: ``other`` is the node at the far end (None when it is gone),
    ``direction`` ``out`` (this node is the source) or ``in``."""

    kind: str
    direction: str
    created_at: int
    other_id: str
    other: NodeRow | None


@dataclass(frozen=True, slots=True)
class NodeDetail:
    """One node with its content, edges both ways (at most :data:`EDGES_MAX` each), the
    spine up to its root (the node first), its children count and up to
    :data:`NEIGHBORS_MAX` one-hop neighbours as ``(row, via)`` (``via`` as in
    :meth:`Store.adjacent`): the parent, the first ``NEIGHBORS_MAX // 2`` children, then
    edges out and in."""

    row: NodeRow
    content: str
    content_hash: str
    mtime: int
    children: int
    edges: list[EdgeRow]
    path: list[NodeRow]
    neighbors: list[tuple[NodeRow, str]]


def _row(r: Sequence[Any], cursor: str | None = None) -> NodeRow:
    return NodeRow(
        id=r[1],
        parent_id=r[2],
        kind=NodeKind(r[3]),
        status=NodeStatus(r[4]),
        source_uri=r[5],
        chars=r[6] or 0,
        original_bytes=r[7] or 0,
        truncated=bool(r[8]),
        created_at=r[9],
        updated_at=r[10],
        metadata=read_metadata(r[3], r[2], r[5], r[11]),
        has_children=bool(r[12]),
        cursor=cursor if cursor is not None else str(r[0]),
    )


def _filters(kinds: Sequence[str] | None, statuses: Sequence[str] | None) -> tuple[str, list[Any]]:
    """``AND n.kind IN (...) AND n.status IN (...)``; raises ``ValueError`` for an unknown
    kind or status (the message names it)."""
    sql, args = "", []
    if kinds:
        values = [NodeKind(k).value for k in kinds]
        sql += f" AND n.kind IN ({','.join('?' * len(values))})"
        args += values
    if statuses:
        values = [NodeStatus(s).value for s in statuses]
        sql += f" AND n.status IN ({','.join('?' * len(values))})"
        args += values
    return sql, args


def _limit(limit: int) -> int:
    return max(1, min(int(limit), PAGE_MAX))


def children_page(
    store: Connected,
    parent_id: str | None,
    *,
    kinds: Sequence[str] | None = None,
    statuses: Sequence[str] | None = None,
    newest_first: bool = True,
    after: str | None = None,
    limit: int = 50,
) -> list[NodeRow]:
    """A page of ``parent_id``'s spine children (``None``: the roots: sessions and file roots),
    newest first or in spine order, filtered by kind and status (any when None), resumed
    after the cursor ``after``. Raises ``ValueError`` for a bad kind, status or cursor."""
    where, args = _filters(kinds, statuses)
    if parent_id is None:
        parent, head = "n.parent_id IS NULL", []
    else:
        parent, head = "n.parent_id = ?", [parent_id]
    start = int(after) if after else (2**63 - 1 if newest_first else -(2**63))
    sql = _sql.BROWSE_CHILDREN.format(
        parent=parent,
        where=where,
        cmp="<" if newest_first else ">",
        order="DESC" if newest_first else "ASC",
    )
    return [_row(r) for r in store.db.query(sql, [*head, *args, start, _limit(limit)])]


def recent_page(
    store: Connected,
    *,
    kinds: Sequence[str] | None = None,
    statuses: Sequence[str] | None = None,
    after: str | None = None,
    limit: int = 50,
) -> list[NodeRow]:
    """A page of nodes newest first by ``created_at``, resumed after the cursor ``after``
    (``"<created_at>:<rowid>"``). Raises ``ValueError`` for a bad kind, status or cursor."""
    where, args = _filters(kinds, statuses)
    if after:
        created, _, rowid = after.partition(":")
        top, rowid_top = int(created), int(rowid)
    else:
        top, rowid_top = 2**63 - 1, 2**63 - 1
    rows = store.db.query(
        _sql.BROWSE_RECENT.format(where=where), [top, top, rowid_top, *args, _limit(limit)]
    )
    return [_row(r, f"{r[9]}:{r[0]}") for r in rows]


def rows(store: Connected, node_ids: Sequence[str]) -> dict[str, NodeRow]:
    """``{id: NodeRow}`` for the ids that exist."""
    out: dict[str, NodeRow] = {}
    ids = list(dict.fromkeys(node_ids))
    for batch, marks in _sql.in_batches(ids):
        sql = _sql.BROWSE_ROWS.format(marks=marks)
        out.update((r[1], _row(r)) for r in store.db.query(sql, batch))
    return out


def node_detail(store: Connected, node_id: str) -> NodeDetail | None:
    """The node ``node_id`` with its content, edges, path to root and neighbours, or None."""
    node = get(store.db, node_id)
    if node is None:
        return None
    out_edges = store.db.query(_sql.BROWSE_EDGES_OUT, (node_id, EDGES_MAX))
    in_edges = store.db.query(_sql.BROWSE_EDGES_IN, (node_id, EDGES_MAX))
    spine = [n.id for n in path_to_root(store.db, node_id)]
    # One hop, as Store.adjacent orders it (parent, children, edges out, edges in), but
    # bounded: a session may have tens of thousands of children.
    near: list[tuple[str, str]] = [(node.parent_id, "parent")] if node.parent_id else []
    first = store.db.query(_sql.CHILD_IDS_FIRST, (node_id, NEIGHBORS_MAX // 2))
    near += [(r[0], "child") for r in first]
    near += [(o, f"{k}:out") for o, k, _ in out_edges] + [(o, f"{k}:in") for o, k, _ in in_edges]
    near = near[:NEIGHBORS_MAX]
    found = rows(
        store,
        [node_id, *spine, *(e[0] for e in out_edges), *(e[0] for e in in_edges)]
        + [other for other, _via in near],
    )
    edges = [
        EdgeRow(kind, direction, created, other, found.get(other))
        for direction, listed in (("out", out_edges), ("in", in_edges))
        for other, kind, created in listed
    ]
    return NodeDetail(
        row=found[node_id],
        content=node.content,
        content_hash=node.content_hash,
        mtime=node.mtime,
        children=store.db.query(_sql.CHILD_COUNT, (node_id,))[0][0],
        edges=edges,
        path=[found[i] for i in spine if i in found],
        neighbors=[(found[o], via) for o, via in near if o in found],
    )


def kind_status_counts(store: Connected) -> dict[tuple[str, str], int]:
    """``{(kind, status): node count}`` (an index-only count; no content is read)."""
    return {(k, s): c for k, s, c in store.db.query(_sql.KIND_STATUS_COUNTS)}


def activity(store: Connected, since: int, bucket_ms: int) -> list[tuple[int, int]]:
    """``[(bucket start, nodes created)]`` since ``since`` (epoch ms), oldest first, in
    buckets of ``bucket_ms``; empty buckets are absent."""
    bucket = max(1, int(bucket_ms))
    return [(b, c) for b, c in store.db.query(_sql.ACTIVITY, (bucket, bucket, since, bucket))]


def usage_since(store: Connected, day: str) -> list[tuple[str, str, str, int]]:
    """``[(day, tool, counter name, value)]`` for UTC days ``>= day`` (``YYYY-MM-DD``),
    recorded by :meth:`Store.record_usage`."""
    return [tuple(r) for r in store.db.query(_sql.USAGE_SINCE, (day,))]


@dataclass(frozen=True, slots=True)
class WalkerRun:
    """A recorded walker run that changed something (:meth:`Store.record_walker_run`)."""

    id: int
    walker: str
    started_at: int
    finished_at: int
    summary: str
    changes: dict[str, int]
    status_counts: dict[str, int]


def walker_runs(store: Connected, limit: int = 200) -> list[WalkerRun]:
    """The last ``limit`` (1..2000) recorded walker runs, newest first."""
    limit = max(1, min(int(limit), 2000))
    return [
        WalkerRun(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), json.loads(r[6]))
        for r in store.db.query(_sql.WALKER_RUNS, (limit,))
    ]


__all__ = [
    "EDGES_MAX",
    "NEIGHBORS_MAX",
    "PAGE_MAX",
    "EdgeRow",
    "NodeDetail",
    "NodeRow",
    "WalkerRun",
    "activity",
    "children_page",
    "kind_status_counts",
    "node_detail",
    "recent_page",
    "rows",
    "usage_since",
    "walker_runs",
]
