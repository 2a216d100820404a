"""``ctx_tree_search``: keyword (FTS5, BM25), semantic (vectors) or hybrid (both, fused)
search over everything stored (docs/search.md, docs/tools.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ctx_tree_mcp.answers.render import call, plural, score_text
from ctx_tree_mcp.answers.surface import tool_ref
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.listing import render_listing
from ctx_tree_mcp.tools.spec import Cli, Input, Sugar, ToolSpec

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ctx_tree_schema import Filters

    from ctx_tree_mcp.app import App

DESCRIPTION = (
    "Search stored reads, greps and notes. mode: keyword (BM25), semantic (embeddings) or hybrid "
    "(both, fused); without an embedding provider semantic/hybrid answer keyword hits with a note. "
    "Hits give path:lines, symbol and node_id (read with ctx_tree_get). filters: status, kind, "
    "since, until (epoch ms), parent_id, session_id."
)
MODES = ("keyword", "semantic", "hybrid")
#: A keyword hit holding only some of the query's words, scored under this share of the best
#: hit, is left out rather than listed: it pads the list without matching (docs/search.md).
PARTIAL_FLOOR = 0.05
MODE_ERROR = "mode {mode!r} is not one of keyword, semantic, hybrid"


def nothing_stored() -> str:
    """What an empty answer says: search covers the store, not the files on disk."""
    return (
        "only stored content is searched: files read and grep output through ctx-tree, notes, "
        f"and whatever capture hooks store. Fill it with {tool_ref('ctx_tree_read')} or "
        f"{tool_ref('ctx_tree_grep')} (which searches the files on disk now), then search again"
    )


class Args(Input):
    """Arguments of ``ctx_tree_search``."""

    query: Annotated[
        str, Cli("words or identifiers (camelCase and snake_case are split)", positional=True)
    ]
    mode: Annotated[
        Literal["keyword", "semantic", "hybrid"],
        Cli("keyword (BM25), semantic (embeddings) or hybrid (both, fused)", short="-m"),
    ] = "keyword"
    limit: Annotated[int, Field(ge=1, le=100), Cli("hits listed", short="-n")] = 10
    filters: Annotated[
        dict[str, Any] | None,
        Cli(
            "JSON object: status, kind (lists), since, until (epoch ms, inclusive), parent_id, "
            "session_id"
        ),
    ] = None


def _parse_kinds(kinds: list[str]) -> dict[str, Any]:
    return {"filters": {"kind": list(kinds)}}


def _render_kinds(values: Mapping[str, Any]) -> str | None:
    filters = values.get("filters")
    if isinstance(filters, dict) and set(filters) == {"kind"} and len(filters["kind"]) == 1:
        return str(filters["kind"][0])
    return None


def find(
    app: App, query: str, mode: str, limit: int, filters: Filters
) -> tuple[list[Any], list[str]]:
    """``(hits, notes)`` for a checked ``mode``, unrendered and unfiltered by the denylist
    (the inspector's search uses it too): BM25 hits for ``keyword``, else
    ``retrieval.search``. Raises ``ToolInputError`` (``mode``) when the store holds another
    model's vectors."""
    if mode == "keyword":
        from ctx_tree_mcp.engines.search import longquery

        if longquery.is_long(query):  # a pasted issue or trace: docs/search.md#long-queries
            return longquery.search(app.store, query, limit, filters), []
        from ctx_tree_mcp.engines.search import rerank

        return rerank.keyword(app.store, query, limit, filters), []
    from ctx_tree_mcp.engines.search.retrieval import MixedModels
    from ctx_tree_mcp.engines.search.retrieval import search as vector_search

    try:
        hits, notes = vector_search(app, query, mode, limit, filters)
    except MixedModels as exc:
        raise ToolInputError("mode", str(exc)) from None
    return list(hits), notes


def search(
    app: App,
    query: str,
    mode: str = "keyword",
    limit: int = 10,
    filters: dict[str, Any] | None = None,
) -> str:
    """Handle ``ctx_tree_search``: at most ``limit`` (1..100) hits, one per line:
    ``path:start-end symbol kind node_id=<id> score=<score> | snippet``. The score is BM25
    (keyword: hits with every word first, then with some, each group best first), cosine
    similarity (semantic) or the fused score (hybrid, best first: 0-3, or RRF's with
    ``search.fusion`` ``"rrf"``; docs/search.md#hybrid).

    A provider problem (none configured, unreachable, slow, wrong dimensions) answers keyword
    hits with a ``note`` in the manifest (docs/search.md). Raises ``ToolInputError`` for an
    empty query, an unknown ``mode``, a bad limit, malformed filters, and for semantic/hybrid
    on a store holding another model's vectors (the message names ``ctx-tree reembed``).
    """
    from ctx_tree_schema import Filters

    from ctx_tree_mcp.answers.describe import line

    if mode not in MODES:
        raise ToolInputError("mode", MODE_ERROR.format(mode=mode))
    if not isinstance(query, str) or not query.strip():
        raise ToolInputError("query", "give a few words or identifiers to search for")
    try:
        parsed = Filters.from_mapping(filters)
    except ValueError as exc:
        raise ToolInputError("filters", str(exc)) from None
    hits, notes = find(app, query, mode, limit, parsed)
    from ctx_tree_mcp.engines.files.filecache import freshen

    if freshen(app, [h.node for h in hits]):  # a hit's file changed on disk since: again
        hits, notes = find(app, query, mode, limit, parsed)
    hits = [h for h in hits if not app.hidden(h.node)]
    if mode == "keyword":
        hits, weak = _without_weak_partials(hits)
        if weak:
            notes = [
                *notes,
                f"{plural(weak, 'hit')} with only some of the words scored near zero (under "
                f"{PARTIAL_FLOOR:.0%} of the best) and are not listed",
            ]
    head, marks = _grouping(hits)
    rows = []
    for hit, mark in zip(hits, marks, strict=True):
        snippet = " ".join(hit.snippet.split())[:160]
        rows.append(line(hit.node, f" score={score_text(hit.score)}{mark} | {snippet}"))
    shown = f"{query[:80]!r}" + ("" if mode == "keyword" else f" ({mode})")
    head = f"search {shown}: {plural(len(hits), 'hit')}{head}"
    if not hits:
        more = nothing_stored()
    elif len(hits) == limit and limit < 100:
        more = call(
            "ctx_tree_search",
            query=query,
            mode=None if mode == "keyword" else mode,
            limit=min(100, limit * 2),
            filters=filters or None,
        )
    elif len(hits) == limit:
        more = "narrow with filters (kind, since, parent_id …)"
    else:
        more = ""
    from ctx_tree_mcp.engines.files.indexer import not_indexed

    if len(hits) < limit and (hint := not_indexed(app.store)):  # few: maybe for want of files
        notes = [*notes, hint]
    return render_listing(
        head,
        rows,
        more,
        next_call=bool(hits) and len(hits) == limit < 100,
        notes=notes,
        narrow="narrow the query or its filters",
    )


def _without_weak_partials(hits: list[Any]) -> tuple[list[Any], int]:
    """``(hits, left out)``: keyword hits without those holding only some of the words whose
    score is under :data:`PARTIAL_FLOOR` of the best score (none when every score is 0:
    unranked newest matches)."""
    best = max((h.score for h in hits), default=0.0)
    if best <= 0:
        return hits, 0
    kept = [h for h in hits if h.matched_all or h.score >= PARTIAL_FLOOR * best]
    return kept, len(hits) - len(kept)


def _grouping(hits: list[Any]) -> tuple[str, list[str]]:
    """How the answer states the order of ``hits``: the head's tail and a mark per row.

    Keyword hits come grouped (every word, then only some; each best first, docs/search.md):
    the head says so once and the first some-word row is marked, so a higher score below a
    lower one is never unexplained. Hybrid hits are in fused-score order, where the groups (and hits
    found by meaning alone) interleave: each is marked and the head counts them."""
    flags = [h.matched_all for h in hits]
    partial = flags.count(False)
    by_meaning = flags.count(None)
    if not partial and not by_meaning:
        return ", best first", [""] * len(hits)
    if not by_meaning and flags == sorted(flags, reverse=True):
        every = len(hits) - partial
        if not every:
            return " with only some of the words, best first", [""] * len(hits)
        marks = [""] * every + [" (some words from here)"] + [""] * (partial - 1)
        return f"; {every} with every word, then {partial} with only some, each best first", marks
    counts = [f"{len(hits) - partial - by_meaning} with every word"]
    if partial:
        counts.append(f"{partial} with only some")
    if by_meaning:
        counts.append(f"{by_meaning} by meaning alone")
    marks = [{False: " (some words)", None: " (by meaning)"}.get(f, "") for f in flags]
    return f", best first; {', '.join(counts)} (marked)", marks


async def search_tool(app: App, **arguments: Any) -> str:
    """The registered handler: keyword search runs on the event loop as every store handler;
    semantic and hybrid wait on the embedding provider (bounded by
    ``embedding.queryTimeoutMs``), so they run in a worker thread and other calls go on."""
    if arguments.get("mode", "keyword") == "keyword":
        return search(app, **arguments)
    import functools

    import anyio

    return await anyio.to_thread.run_sync(functools.partial(search, app, **arguments))


SPEC = ToolSpec(
    name="ctx_tree_search",
    description=DESCRIPTION,
    args=Args,
    handler=search_tool,
    example={"query": "token budget manifest", "limit": 5, "filters": {"kind": ["file_chunk"]}},
    help="keyword, semantic or hybrid search over everything stored",
    store_reader=True,
    sugar=(
        Sugar(
            "--kind",
            ("filters",),
            "only this node kind (repeatable); sets filters.kind",
            _parse_kinds,
            _render_kinds,
            repeat=True,
        ),
    ),
)
