"""Reading nodes: by id, by source, newest first, their sizes without content, and the walks
over the spine (parent and children) and the edges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ctx_tree_schema import EdgeKind, Filters, Node, NodeKind

from . import _sql
from ._conn import Db
from ._errors import NodeNotFound
from ._filters import filter_sql
from ._rows import row_to_node

#: Deepest walk :meth:`Store.neighbors` takes (hops); the neighbors tool's range.
MAX_DEPTH = 5


class NodeSize(NamedTuple):
    """How big, how old and in which state a node is, read without its content."""

    chars: int
    """Content length in characters (``len(content)``)."""
    newlines: int
    """Newline characters in the content (its line count less one, for text without a
    final newline)."""
    updated_at: int
    """Last update, epoch milliseconds."""
    status: str
    """``live``, ``stale``, ``superseded``, ``pruned`` or ``pending``."""


@dataclass(frozen=True, slots=True)
class Neighbor:
    """A node reached by :meth:`Store.neighbors` at ``depth`` hops via ``via``
    (``parent``, ``child`` or ``<edge kind>:out`` / ``<edge kind>:in``)."""

    node: Node
    depth: int
    via: str


def get(db: Db, node_id: str) -> Node | None:
    """The node with this id, or None."""
    rows = db.query(_sql.GET_NODE, (node_id,))
    return row_to_node(rows[0]) if rows else None


def require(db: Db, node_id: str) -> Node:
    """Like :func:`get` but raises :class:`NodeNotFound`."""
    node = get(db, node_id)
    if node is None:
        raise NodeNotFound(node_id)
    return node


def children(db: Db, node_id: str) -> list[Node]:
    """Direct spine children of a node, oldest first."""
    return [row_to_node(r) for r in db.query(_sql.CHILDREN, (node_id,))]


def latest_by_source(db: Db, source_uri: str) -> Node | None:
    """The newest pending/live/stale node with this ``source_uri`` (the dedup key), or None.
    A chunk's URI (``file://<path>#<fragment>``) is looked up among the chunks of that
    file's roots (chunks are not in the URI index: docs/data-model.md)."""
    rows = db.query(_sql.LATEST_BY_SOURCE, (source_uri,))
    if not rows and source_uri.startswith("file://") and "#" in source_uri:
        path = source_uri.rpartition("#")[0]
        rows = db.query(_sql.LATEST_CHUNK_BY_SOURCE, (path, source_uri))
    return row_to_node(rows[0]) if rows else None


def path_to_root(db: Db, node_id: str) -> list[Node]:
    """The spine from ``node_id`` up to its tree root, the node first.

    Cycle-safe: stops at a node already visited. Raises :class:`NodeNotFound`.
    """
    out: list[Node] = []
    seen: set[str] = set()
    current: str | None = node_id
    while current is not None and current not in seen:
        node = get(db, current)
        if node is None:
            if not out:
                raise NodeNotFound(node_id)
            break
        seen.add(current)
        out.append(node)
        current = node.parent_id
    return out


def get_many(db: Db, node_ids: Sequence[str]) -> dict[str, Node]:
    """``{id: node}`` for the ids that exist (batched ``IN`` queries)."""
    out: dict[str, Node] = {}
    ids = list(dict.fromkeys(node_ids))
    for batch, marks in _sql.in_batches(ids):
        sql = _sql.GET_NODES.format(marks=marks)
        out.update((r[0], row_to_node(r)) for r in db.query(sql, batch))
    return out


def adjacent_many(
    db: Db,
    node_ids: Sequence[str],
    edge_kinds: Sequence[EdgeKind] | None = None,
    direction: str = "both",
    *,
    spine: bool = True,
) -> dict[str, list[tuple[str, str]]]:
    """Ids one hop away from each of ``node_ids`` as ``{id: [(id, via)]}``: spine parent and
    children, then edges (a few batched queries per :data:`_sql.IN_BATCH` ids).

    ``direction`` is ``out``, ``in`` or ``both`` (for edges; the spine is always both ways).
    ``edge_kinds`` limits the edges followed (None: all); ``spine=False`` skips the spine.
    Raises ``ValueError`` for an unknown direction.
    """
    if direction not in ("in", "out", "both"):
        raise ValueError(f"direction must be 'in', 'out' or 'both', got {direction!r}")
    kinds = {EdgeKind(k).value for k in edge_kinds} if edge_kinds else None
    ids = list(dict.fromkeys(node_ids))
    parents: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    outs: dict[str, list[tuple[str, str]]] = {}
    ins: dict[str, list[tuple[str, str]]] = {}
    for batch, marks in _sql.in_batches(ids):
        if spine:
            for nid, parent in db.query(_sql.PARENT_IDS.format(marks=marks), batch):
                if parent is not None:
                    parents[nid] = parent
            for parent, nid in db.query(_sql.CHILD_IDS_MANY.format(marks=marks), batch):
                children.setdefault(parent, []).append(nid)
        if direction in ("out", "both"):
            for src, dst, kind in db.query(_sql.EDGES_OUT_MANY.format(marks=marks), batch):
                if kinds is None or kind in kinds:
                    outs.setdefault(src, []).append((dst, f"{kind}:out"))
        if direction in ("in", "both"):
            for dst, src, kind in db.query(_sql.EDGES_IN_MANY.format(marks=marks), batch):
                if kinds is None or kind in kinds:
                    ins.setdefault(dst, []).append((src, f"{kind}:in"))
    out: dict[str, list[tuple[str, str]]] = {}
    for nid in ids:
        found: list[tuple[str, str]] = []
        if nid in parents:
            found.append((parents[nid], "parent"))
        found.extend((c, "child") for c in children.get(nid, ()))
        found.extend(outs.get(nid, ()))
        found.extend(ins.get(nid, ()))
        out[nid] = found
    return out


def neighbors(
    db: Db,
    node_id: str,
    depth: int = 1,
    edge_kinds: Sequence[EdgeKind] | None = None,
    direction: str = "both",
    limit: int = 1000,
    *,
    spine: bool = True,
) -> list[Neighbor]:
    """Breadth-first walk over the spine and edges up to ``depth`` hops (1..5), nearest first,
    at most ``limit`` nodes, the start node excluded; each node once, at its nearest depth.

    The spine (parent and children) is followed both ways unless ``spine=False``;
    ``edge_kinds`` limits the edges followed (None: all), ``direction`` their way (``out``:
    src → dst, ``in``: dst → src, ``both``). Cycles are harmless (visited nodes are skipped).

    Raises :class:`NodeNotFound` for an unknown start and ``ValueError`` for a depth outside
    1..5 or an unknown direction.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be an integer between 1 and {MAX_DEPTH}, got {depth!r}")
    if direction not in ("in", "out", "both"):
        raise ValueError(f"direction must be 'in', 'out' or 'both', got {direction!r}")
    require(db, node_id)
    seen = {node_id}
    frontier = [node_id]
    found: list[Neighbor] = []
    for hop in range(1, depth + 1):
        adjacency = adjacent_many(db, frontier, edge_kinds, direction, spine=spine)
        step: list[tuple[str, str]] = []
        for current in frontier:
            for other, via in adjacency[current]:
                if other not in seen:
                    seen.add(other)
                    step.append((other, via))
        step = step[: limit - len(found)]
        nodes = get_many(db, [other for other, _via in step])
        found.extend(Neighbor(nodes[o], hop, via) for o, via in step if o in nodes)
        frontier = [o for o, _via in step if o in nodes]
        if len(found) >= limit or not frontier:
            break
    return found


def child_counts(db: Db, parent_ids: Sequence[str]) -> dict[str, int]:
    """``{parent id: children}`` for each id with any (one pass over the parent index):
    a file root's chunk count, the file length long-query ranking normalises by."""
    out: dict[str, int] = {}
    ids = list(dict.fromkeys(parent_ids))
    for batch, marks in _sql.in_batches(ids):
        sql = _sql.CHILD_COUNTS.format(marks=marks)
        out.update((p, int(n)) for p, n in db.query(sql, batch))
    return out


def sizes(db: Db, node_ids: Sequence[str]) -> dict[str, NodeSize]:
    """:class:`NodeSize` of each id that exists (unknown ids are absent), without
    fetching any content: what compose's graph source and the walkers need to know."""
    out: dict[str, NodeSize] = {}
    for batch, marks in _sql.in_batches(node_ids):
        sql = _sql.NODE_STATS.format(marks=marks)
        out.update({r[0]: NodeSize(*r[1:]) for r in db.query(sql, batch)})
    return out


def recent(
    db: Db,
    limit: int = 20,
    filters: Filters | None = None,
    *,
    since: int | None = None,
    kind: NodeKind | str | None = None,
    older_than: tuple[int, str] | None = None,
) -> list[Node]:
    """Newest nodes first (by ``created_at``, then by id, highest first), filtered like
    :meth:`Store.search` (live and pending by default). ``since`` (epoch ms, inclusive) and
    ``kind`` are shorthands that override the same fields of ``filters``. ``older_than``
    ``(created_at, id)`` of a node resumes the listing after that node (which need not
    still exist), so pages neither skip nor repeat nodes created in the same millisecond.
    ``limit`` is clamped to 1..500."""
    if since is not None or kind is not None:
        f = filters or Filters()
        filters = Filters(
            status=f.status,
            kind=(NodeKind(kind),) if kind is not None else f.kind,
            since=since if since is not None else f.since,
            until=f.until,
            parent_id=f.parent_id,
            session_id=f.session_id,
        )
    where, args = filter_sql(db, filters)
    if older_than is not None:
        where += _sql.RECENT_OLDER_THAN
        args += [older_than[0], older_than[0], older_than[1]]
    return [
        row_to_node(r)
        for r in db.query(_sql.RECENT.format(where=where), [*args, max(1, min(int(limit), 500))])
    ]
