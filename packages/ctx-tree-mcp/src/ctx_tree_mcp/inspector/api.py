"""The inspector's JSON API: the contract the page uses (``docs/inspector.md``).

Each function takes the read-only :class:`~ctx_tree_mcp.app.App` and the request's query
parameters and returns a JSON-ready dict; bad parameters raise ``ToolInputError`` naming the
parameter (the server answers 400). Every listing is one page (``limit`` rows at most, resumed
with ``after`` = the previous page's ``next``); nothing here writes to the store.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ctx_tree_compose import MAX_DEPTH

from ctx_tree_mcp.errors import ToolInputError

if TYPE_CHECKING:
    from ctx_tree_store import NodeRow

    from ctx_tree_mcp.app import App

Params = Mapping[str, Any]
#: Characters of a node's content sent at most (the page says how much was left out).
CONTENT_MAX = 200_000
DAY_MS = 86_400_000


def _ints(params: Params, name: str, default: int, low: int, high: int) -> int:
    raw = params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ToolInputError(name, f"expected an integer between {low} and {high}") from None
    if not low <= value <= high:
        raise ToolInputError(name, f"{value} is out of range; use {low}..{high}")
    return value


def _list(params: Params, name: str) -> list[str]:
    """A repeatable or comma-separated parameter (``kind=note&kind=session`` or ``kind=a,b``)."""
    getlist = getattr(params, "getlist", None)
    raw = getlist(name) if getlist else ([params[name]] if name in params else [])
    return [part for value in raw for part in str(value).split(",") if part]


def _filters(params: Params) -> tuple[list[str], list[str]]:
    from ctx_tree_schema import NodeKind, NodeStatus

    kinds, statuses = _list(params, "kind"), _list(params, "status")
    for name, values, enum in (("kind", kinds, NodeKind), ("status", statuses, NodeStatus)):
        bad = [v for v in values if v not in {m.value for m in enum}]
        if bad:
            allowed = ", ".join(m.value for m in enum)
            raise ToolInputError(name, f"unknown {name} {bad[0]!r}; one of {allowed}")
    return kinds, statuses


def _label(row: NodeRow) -> str:
    from ctx_tree_mcp.answers.describe import where

    if row.kind.value == "session":
        meta = row.metadata
        where_ = str(meta.get("cwd") or "?").rstrip("/").rsplit("/", 1)[-1]
        return f"session {meta.get('session_id', '')} ({where_})"
    return where(row)  # type: ignore[arg-type]  # NodeRow has the fields where() reads


def row_json(app: App, row: NodeRow) -> dict[str, Any]:
    """A node without content: ids, kind, status, a one-line ``label``, sizes, times."""
    from ctx_tree_compose import tokens_for_chars

    return {
        "id": row.id,
        "parent_id": row.parent_id,
        "kind": row.kind.value,
        "status": row.status.value,
        "label": _label(row),
        "source_uri": row.source_uri,
        "chars": row.chars,
        "tokens": tokens_for_chars(row.chars),
        "original_bytes": row.original_bytes,
        "truncated": row.truncated,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "has_children": row.has_children,
        "withheld": app.hidden(row),
    }


def _page(app: App, rows: Sequence[NodeRow], limit: int) -> dict[str, Any]:
    return {
        "rows": [row_json(app, r) for r in rows],
        "next": rows[-1].cursor if len(rows) == limit else None,
    }


def change_token(app: App) -> str:
    """Size and mtime (ns) of ``store.db`` and its WAL: changes whenever a write commits
    (appends to the WAL) or a checkpoint rewrites the file. No SQL, so it is cheap to poll."""
    parts = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(f"{app.store_file}{suffix}")
            parts.append(f"{st.st_size}.{st.st_mtime_ns}")
        except FileNotFoundError:
            parts.append("-")
    return ":".join(parts)


def version(app: App, params: Params) -> dict[str, Any]:
    """``{"version": token}``: changes whenever the store is written (the page polls it)."""
    return {"version": change_token(app)}


def summary(app: App, params: Params) -> dict[str, Any]:
    """The store's location and size, node counts by kind and status, usage totals."""
    from ctx_tree_schema import SCHEMA_VERSION
    from ctx_tree_store import browse

    counts = browse.kind_status_counts(app.store)
    return {
        "root": str(app.root),
        "store": str(app.store_file),
        "schema_version": SCHEMA_VERSION,
        "size_bytes": app.store.size_bytes(),
        "counts": [{"kind": k, "status": s, "count": c} for (k, s), c in sorted(counts.items())],
        "nodes": sum(counts.values()),
        "counters": app.store.counters(),
        "version": change_token(app),
    }


def children(app: App, params: Params) -> dict[str, Any]:
    """A page of a node's spine children (``parent`` empty: the roots), filtered by ``kind``
    and ``status``; ``order`` ``newest`` (default) or ``spine`` (oldest first)."""
    from ctx_tree_store import browse

    kinds, statuses = _filters(params)
    limit = _ints(params, "limit", 50, 1, browse.PAGE_MAX)
    order = params.get("order") or "newest"
    if order not in ("newest", "spine"):
        raise ToolInputError("order", "use newest or spine")
    after = params.get("after") or None
    if after is not None and not after.lstrip("-").isdigit():
        raise ToolInputError("after", "give the `next` value of the previous page")
    rows = browse.children_page(
        app.store,
        params.get("parent") or None,
        kinds=kinds,
        statuses=statuses,
        newest_first=order == "newest",
        after=after,
        limit=limit,
    )
    return _page(app, rows, limit)


def recent(app: App, params: Params) -> dict[str, Any]:
    """A page of nodes newest first, and with ``hours`` (1..720) the nodes created per hour
    over that many hours (``activity``: ``[[hour start ms, count]]``)."""
    from ctx_tree_store import browse, now_ms

    kinds, statuses = _filters(params)
    limit = _ints(params, "limit", 50, 1, browse.PAGE_MAX)
    after = params.get("after") or None
    if after is not None and not all(p.lstrip("-").isdigit() for p in after.split(":")):
        raise ToolInputError("after", "give the `next` value of the previous page")
    out = _page(
        app,
        browse.recent_page(app.store, kinds=kinds, statuses=statuses, after=after, limit=limit),
        limit,
    )
    hours = _ints(params, "hours", 0, 0, 720)
    if hours:
        since = (now_ms() // 3_600_000 - hours + 1) * 3_600_000
        out["activity"] = [list(b) for b in browse.activity(app.store, since, 3_600_000)]
    return out


def node(app: App, node_id: str) -> dict[str, Any] | None:
    """One node: its row, content (at most :data:`CONTENT_MAX` characters; none when the
    file is now on the denylist), metadata, edges both ways, path to root, neighbours."""
    from ctx_tree_store import browse

    detail = browse.node_detail(app.store, node_id)
    if detail is None:
        return None
    row = row_json(app, detail.row)
    content = "" if row["withheld"] else detail.content
    return {
        **row,
        "content": content[:CONTENT_MAX],
        "content_cut": max(0, len(content) - CONTENT_MAX),
        "content_hash": detail.content_hash,
        "mtime": detail.mtime,
        "metadata": detail.row.metadata if not row["withheld"] else {},
        "children": detail.children,
        "edges": [
            {
                "kind": e.kind,
                "direction": e.direction,
                "created_at": e.created_at,
                "other_id": e.other_id,
                "other": row_json(app, e.other) if e.other else None,
            }
            for e in detail.edges
        ],
        "path": [row_json(app, r) for r in detail.path],
        "neighbors": [{"via": via, **row_json(app, r)} for r, via in detail.neighbors],
    }


def search(app: App, params: Params) -> dict[str, Any]:
    """Search as ``ctx_tree_search`` does: ``q``, ``mode`` (``keyword`` BM25, ``semantic`` or
    ``hybrid`` when an embedding provider is configured; without one they answer keyword hits
    and a note), ``limit`` (1..100), ``kind`` and ``status`` filters (default live and
    pending). Returns ``mode``, ``notes`` and ``hits``."""
    from ctx_tree_schema import Filters
    from ctx_tree_store import browse

    from ctx_tree_mcp.tools.search import MODE_ERROR, MODES, find

    query = (params.get("q") or "").strip()
    if not query:
        raise ToolInputError("q", "give a few words or identifiers to search for")
    mode = params.get("mode") or "keyword"
    if mode not in MODES:
        raise ToolInputError("mode", MODE_ERROR.format(mode=mode))
    kinds, statuses = _filters(params)
    limit = _ints(params, "limit", 20, 1, 100)
    filters = Filters(kind=tuple(kinds) or None, status=tuple(statuses) or None)  # type: ignore[arg-type]
    hits, notes = find(app, query, mode, limit, filters)
    rows = browse.rows(app.store, [h.node.id for h in hits])
    return {
        "mode": mode,
        "notes": notes,
        "hits": [
            {**row_json(app, rows[h.node.id]), "score": h.score, "snippet": h.snippet}
            for h in hits
            if h.node.id in rows
        ],
    }


def walkers(app: App, params: Params) -> dict[str, Any]:
    """The last recorded walker runs (newest first) with what each changed and the node counts
    by status after it; ``limit`` 1..2000 (default 200)."""
    from ctx_tree_store import browse

    runs = browse.walker_runs(app.store, _ints(params, "limit", 200, 1, 2000))
    by_status: dict[str, int] = {}
    for (_kind, status), count in browse.kind_status_counts(app.store).items():
        by_status[status] = by_status.get(status, 0) + count
    return {
        "now": by_status,
        "runs": [
            {
                "id": r.id,
                "walker": r.walker,
                "started_at": r.started_at,
                "finished_at": r.finished_at,
                "summary": r.summary,
                "changes": r.changes,
                "status_counts": r.status_counts,
            }
            for r in runs
        ],
    }


def savings(app: App, params: Params) -> dict[str, Any]:
    """Tokens served against tokens of the sources, per UTC day (the last ``days``, 1..365,
    default 30) and per tool over those days, plus all-time totals."""
    from ctx_tree_store import browse

    days = _ints(params, "days", 30, 1, 365)
    first = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=days - 1)).isoformat()
    per_day: dict[str, dict[str, int]] = {}
    per_tool: dict[str, dict[str, int]] = {}
    for day, tool, name, value in browse.usage_since(app.store, first):
        for bucket in (per_day.setdefault(day, {}), per_tool.setdefault(tool, {})):
            bucket[name] = bucket.get(name, 0) + value
    counters = app.store.counters()
    return {
        "since": first,
        "days": [{"day": d, **v} for d, v in sorted(per_day.items())],
        "tools": [{"tool": t, **v} for t, v in sorted(per_tool.items())],
        "totals": {
            "tokens_served": counters.get("tokens_served", 0),
            "tokens_source": counters.get("tokens_source", 0),
        },
    }


def compose_preview(app: App, params: Params) -> dict[str, Any]:
    """What ``ctx_tree_compose`` would pack for ``seed`` (repeatable), ``query``, ``budget``
    (tokens) and ``depth``, as included / truncated / dropped node lists; nothing is rendered,
    counted or written."""
    from ctx_tree_store import browse

    from ctx_tree_mcp.answers.budget import MAX_BUDGET, MIN_BUDGET
    from ctx_tree_mcp.tools.compose import plan

    seeds = _list(params, "seed")
    if not seeds:
        raise ToolInputError("seed", "give one or more node ids (from the spine or a search)")
    packed, budget = plan(
        app,
        seeds,
        query=(params.get("query") or "").strip() or None,
        budget_tokens=_ints(params, "budget", 4000, MIN_BUDGET, MAX_BUDGET),
        depth=_ints(params, "depth", 2, 0, MAX_DEPTH),
    )
    ids = [i.id for i in packed.included] + [d.id for d in packed.dropped]
    if packed.truncated:
        ids.append(packed.truncated.id)
    rows = browse.rows(app.store, ids)

    def with_row(node_id: str, extra: dict[str, Any]) -> dict[str, Any]:
        found = rows.get(node_id)
        return {**(row_json(app, found) if found else {"id": node_id}), **extra}

    t = packed.truncated
    return {
        "budget": budget,
        "used": packed.used_tokens,
        "capped": packed.capped,
        "included": [with_row(i.id, {"score": i.score, "cost": i.tokens}) for i in packed.included],
        "truncated": with_row(
            t.id, {"score": t.score, "kept": t.kept_tokens, "cost": t.total_tokens}
        )
        if t
        else None,
        "dropped": [
            with_row(d.id, {"score": d.score, "cost": d.tokens, "reason": d.reason})
            for d in packed.dropped
        ],
    }
