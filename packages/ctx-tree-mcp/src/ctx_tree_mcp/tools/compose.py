"""``ctx_tree_compose``: recall the context around seed nodes within a token budget (docs/tools.md).

BFS from the seeds over the spine and edges (depth ≤ 5), score each candidate
``w_dist/(1+dist) + w_recency·decay + w_query·fts`` (ctx-tree-compose documents the decay
half-life and the FTS normalisation), pack greedily by score, and answer each packed node under
a header, then the manifest of included / truncated / dropped nodes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

from ctx_tree_compose import MAX_DEPTH
from pydantic import Field

from ctx_tree_mcp.answers.budget import (
    COMPOSE_MANIFEST_RESERVE,
    estimate_tokens,
    fit_lines,
)
from ctx_tree_mcp.answers.render import (
    Manifest,
    call,
    fitted_answer,
    number_lines,
    quote_manifest_like,
    score_text,
    split_lines,
)
from ctx_tree_mcp.answers.surface import argument_name, tool_ref
from ctx_tree_mcp.engines.files.store_graph import StoreGraph
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.lookup import NOT_STORED, get_call
from ctx_tree_mcp.tools.spec import Budget, Cli, Input, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ctx_tree_mcp.app import App

DESCRIPTION = (
    "Pack the context around seed_ids (or query's top hits; BFS over spine + edges, scored by distance, recency, "
    "query) into budget_tokens; the manifest lists included, truncated and dropped nodes."
)
_STATUSES = ("live", "pending")
DEFAULT_BUDGET = 4000
#: Candidates considered at most (the manifest says "candidates capped" past it): a 4,000-token
#: budget packs tens of nodes, and every candidate costs a lookup (bench/compose.py).
MAX_CANDIDATES = 600
#: Bound on a node's "## <where> <kind> node_id=<id>" header, charged per packed node before any
#: header is rendered: the id alone costs about 30 tokens; this repo's file-chunk headers cost
#: 63 tokens (median) to 78 (max) by ``estimate_tokens``. Too low a bound packs more than fits.
HEADER_TOKENS = 80
_STALE = ("live", "pending", "stale", "superseded")


class Args(Input):
    """Arguments of ``ctx_tree_compose``."""

    seed_ids: Annotated[
        list[str],
        Cli("1..50 node ids (none: the query's top hits)", positional=True, metavar="SEED"),
    ] = []  # noqa: RUF012 (pydantic copies defaults)
    query: Annotated[str | None, Cli("adds the query term to the score", short="-q")] = None
    budget_tokens: Budget = DEFAULT_BUDGET
    depth: Annotated[int, Field(ge=0, le=MAX_DEPTH, description="BFS hops"), Cli("BFS hops")] = 2
    weights: Annotated[
        dict[str, float] | None,
        Field(description="dist, recency, query"),
        Cli('JSON, e.g. {"dist": 0.6, "recency": 0.3, "query": 0.1} (the defaults)'),
    ] = None
    include_stale: Annotated[bool, Cli("also pack stale and superseded nodes")] = False


def _header(node: Node) -> str:
    from ctx_tree_mcp.answers.describe import line

    return f"## {line(node)}\n"


def _body(node: Node, content: str) -> str:
    lines = node.lines
    if node.kind.value == "file_chunk" and lines and not node.metadata.get("is_file_root"):
        return number_lines(split_lines(content), lines[0])
    return content if content.endswith("\n") or not content else content + "\n"


#: Seeds a compose takes from a short query's search hits when it is given none.
QUERY_SEEDS = 5
#: Seeds a compose takes from a long query's ranking when it is given none (the most
#: compose accepts): the best chunks of the best files, in the order they are packed.
LONG_QUERY_SEEDS = 50
#: A long query's seeds: each file down its ranking weighs this share of the one above, so
#: the budget goes to the best files' chunks before the next files' best ones.
LONG_QUERY_FILE_DECAY = 0.7
#: Weights of a compose seeded from a long query (unless given): the seeds' own ranking
#: orders the packing, recency (the index's nodes are all about as new) does not.
LONG_QUERY_WEIGHTS = {"dist": 0.6, "recency": 0.0, "query": 0.4}


def seeds_for(app: App, seed_ids: Any, query: str | None) -> Any:
    """``seed_ids`` as given, or, when there are none and a query is, seeds from the query
    (:func:`query_seeds`). Raises ``ToolInputError`` (``seed_ids``) with neither, or when the
    query finds nothing."""
    return query_seeds(app, seed_ids, query)[0]


def query_seeds(app: App, seed_ids: Any, query: str | None) -> tuple[Any, dict[str, float]]:
    """``(seed ids, ranks)``: ``seed_ids`` as given, with a long query's
    :func:`long_query_ranks` (the nodes around the seeds are scored by that ranking) or
    else no ranks; else, for a long query
    (docs/search.md#long-queries), the best chunks of the best files of its ranking, each
    ranked by its file's weight (:data:`LONG_QUERY_FILE_DECAY` to the power of the file's
    rank) times its own score relative to its file's best chunk, at most :data:`LONG_QUERY_SEEDS`, best first, with those ranks;
    for a short query, the ids of its top :data:`QUERY_SEEDS` search hits. Raises
    ``ToolInputError`` (``seed_ids``) with neither, or (``query``) when the query finds
    nothing."""
    from ctx_tree_mcp.engines.search import longquery

    if seed_ids and isinstance(query, str) and longquery.is_long(query):
        # given seeds and a long query: the query's own ranking scores what lies around them
        return seed_ids, long_query_ranks(app, query)
    if seed_ids or (seed_ids is None and not query):
        return seed_ids, {}
    if not query or not isinstance(query, str) or not query.strip():
        query_arg = argument_name("ctx_tree_compose", "query")
        raise ToolInputError(
            "seed_ids",
            f"give node ids (from search hits or manifests), or a {query_arg} to seed from",
        )
    from ctx_tree_schema import Filters

    from ctx_tree_mcp.tools.search import find

    ranks: dict[str, float] = {}
    if longquery.is_long(query):
        ranks = long_query_ranks(app, query)
        order = sorted(ranks, key=lambda i: -ranks[i])
        nodes = app.store.get_many(order[: LONG_QUERY_SEEDS * 2])
        ids = [i for i in order if i in nodes and not app.hidden(nodes[i])][:LONG_QUERY_SEEDS]
        ranks = {i: ranks[i] for i in ids}
    else:
        hits, _notes = find(app, query, "keyword", QUERY_SEEDS * 2, Filters())
        ids = [h.node.id for h in hits if not app.hidden(h.node)][:QUERY_SEEDS]
    if not ids:
        raise ToolInputError(
            "query", f"{query[:60]!r} finds nothing stored to seed from; give seed_ids instead"
        )
    return ids, ranks


def long_query_ranks(app: App, query: str) -> dict[str, float]:
    """``{chunk id: rank}`` of a long query's ranking (docs/search.md#long-queries): the
    chunks of its best :data:`LONG_QUERY_SEEDS` files, each its file's weight
    (:data:`LONG_QUERY_FILE_DECAY` to the power of the file's rank) times its own score
    relative to its file's best chunk."""
    from ctx_tree_schema import Filters

    from ctx_tree_mcp.engines.search import longquery

    ranking = longquery.rank(app.store, query, Filters())
    weights = ranking.weights(LONG_QUERY_FILE_DECAY)
    ranks: dict[str, float] = {}
    for _score, key in ranking.files[:LONG_QUERY_SEEDS]:
        group = ranking.chunks[key]
        top = group[0][0] or 1.0
        for chunk_score, _rowid, nid in group[:LONG_QUERY_SEEDS]:
            ranks[nid] = weights[key] * (chunk_score / top)
    return ranks


class _RankedGraph(StoreGraph):
    """The store's graph whose query rank is a long query's own ranking of the seeds."""

    def __init__(self, store: Any, ranks: dict[str, float], root: str | None = None) -> None:
        super().__init__(store, root)
        self.ranks = ranks

    def fts_rank(self, query: str, node_ids: Any) -> dict[str, float]:
        return {i: self.ranks[i] for i in node_ids if i in self.ranks}


def plan(
    app: App,
    seed_ids: list[str],
    query: str | None = None,
    budget_tokens: int = 4000,
    depth: int = 2,
    weights: dict[str, Any] | None = None,
    include_stale: bool = False,
    room: int | None = None,
    ranks: dict[str, float] | None = None,
) -> tuple[Any, int]:
    """Plan a compose without rendering or counting anything (the inspector's preview uses it
    too): returns ``(ComposePlan, budget)``. ``budget_tokens`` and ``depth`` come validated (the
    tool's input model; the inspector checks its own parameters). The plan packs
    ``room`` tokens (default: the budget less ``COMPOSE_MANIFEST_RESERVE`` for the manifest). Raises
    ``ToolInputError`` for no or unknown seeds or bad weights."""
    from ctx_tree_compose import UnknownSeedError, Weights, tokens_for_chars
    from ctx_tree_compose import compose as plan_compose

    budget = budget_tokens
    if isinstance(seed_ids, str):
        seed_ids = [seed_ids]
    if ranks is None:
        seed_ids, ranks = query_seeds(app, seed_ids, query)
    if ranks and weights is None:
        weights = LONG_QUERY_WEIGHTS
    if (
        not isinstance(seed_ids, list)
        or not seed_ids
        or not all(isinstance(s, str) and s for s in seed_ids)
    ):
        raise ToolInputError("seed_ids", "give a list of node ids (from search hits or manifests)")
    if len(seed_ids) > 50:
        raise ToolInputError("seed_ids", "at most 50 seeds")
    w = Weights()
    if weights is not None:
        if not isinstance(weights, dict) or set(weights) - {"dist", "recency", "query"}:
            raise ToolInputError(
                "weights", "expected an object with keys dist, recency, query (numbers)"
            )
        try:
            w = Weights(**{k: float(v) for k, v in weights.items()})
        except (TypeError, ValueError) as exc:
            raise ToolInputError("weights", str(exc)) from None
    seeds = app.store.get_many(seed_ids)
    denied = [nid for nid, n in seeds.items() if app.hidden(n)]
    if denied:
        raise ToolInputError(
            "seed_ids",
            f"{', '.join(denied)}: from a file on the denylist, not shown; leave it out",
        )
    root = str(app.root)
    graph = _RankedGraph(app.store, ranks, root) if ranks else StoreGraph(app.store, root)
    # The seeds (at most 50, packed first) are charged exactly what rendering adds to their
    # content's size, so a small seed at a small budget is packed exactly when it fits.
    exact = {
        nid: max(
            0, estimate_tokens(_header(n) + _body(n, n.content)) - tokens_for_chars(len(n.content))
        )
        for nid, n in seeds.items()
        if n.content
    }

    def overhead(node_id: str) -> int:
        # Any other candidate is charged an upper bound of what rendering adds, from its
        # content's size alone (no fetch for the ~600 candidates): a header line, and for file
        # chunks a "<line>\t" prefix of up to 6 characters per line. Exact text is built only
        # for the nodes packed. A node with no content (a session's spine root) is not rendered.
        if node_id in exact:
            return exact[node_id]
        if graph.chars.get(node_id) == 0:
            return 0
        return HEADER_TOKENS + tokens_for_chars((graph.newlines.get(node_id, 0) + 1) * 6)

    try:
        return plan_compose(
            graph,
            seed_ids,
            budget_tokens=max(1, budget - COMPOSE_MANIFEST_RESERVE if room is None else room),
            depth=depth,
            query=query or None,
            weights=w,
            include_statuses=_STALE if include_stale else _STATUSES,
            overhead_tokens=overhead,
            max_candidates=MAX_CANDIDATES,
        ), budget
    except UnknownSeedError as exc:
        raise ToolInputError(
            "seed_ids", f"{exc}; use ids from {tool_ref('ctx_tree_search')} or a manifest"
        ) from None
    except ValueError as exc:
        raise ToolInputError("weights", str(exc)) from None


def compose(
    app: App,
    seed_ids: list[str] | None = None,
    query: str | None = None,
    budget_tokens: int = 4000,
    depth: int = 2,
    weights: dict[str, Any] | None = None,
    include_stale: bool = False,
) -> str:
    """Handle ``ctx_tree_compose`` (arguments and errors as :func:`plan`). The plan is made
    for the room the manifest leaves (``render.fitted_answer``), so small budgets still get
    content and a ``next``."""
    budget = budget_tokens
    if isinstance(seed_ids, str):
        seed_ids = [seed_ids]
    seed_ids, ranks = query_seeds(app, seed_ids, query)
    nodes: dict[str, Any] = {}

    def body(room: int) -> tuple[str, Any]:
        packed = plan(
            app,
            seed_ids,
            query,
            budget_tokens,
            depth,
            weights,
            include_stale,
            room=room,
            ranks=ranks,
        )[0]
        chosen = [i.id for i in packed.included]
        chosen += [packed.truncated.id] if packed.truncated else []
        dropped = [d.id for d in packed.dropped if d.reason == "budget"][:MAX_DROPPED_LABELLED]
        nodes.update(app.store.get_many([i for i in (*chosen, *dropped) if i not in nodes]))
        withheld = [nid for nid in (*chosen, *dropped) if app.hidden(nodes.get(nid))]
        parts: list[str] = []
        for inc in packed.included:
            if inc.id in withheld:
                continue
            node = nodes[inc.id]
            if not node.content:
                continue  # an empty spine root: its id is in the manifest, a header would be noise
            parts.append(_header(node) + _body(node, node.content))
        if packed.truncated and packed.truncated.id not in withheld:
            node = nodes[packed.truncated.id]
            head = _header(node)
            text, _ = fit_lines(
                _body(node, node.content),
                max(0, packed.truncated.kept_tokens - estimate_tokens(head)),
            )
            parts.append(head + text + "[…truncated]\n")
        content = "".join(parts)
        content_tokens = estimate_tokens(quote_manifest_like(content)[0])
        return content, (packed, withheld, content_tokens)

    total = 0

    def manifest(state: Any) -> Manifest:
        nonlocal total
        packed, withheld, content_tokens = state
        total = (
            sum(i.tokens for i in packed.included)
            + sum(d.tokens for d in packed.dropped)
            + (packed.truncated.total_tokens if packed.truncated else 0)
        )
        wider = call(
            "ctx_tree_compose",
            seed_ids=seed_ids,
            query=query or None,
            budget_tokens=None if budget_tokens == DEFAULT_BUDGET else budget,
            depth=depth + 1,
            weights=weights,
            include_stale=include_stale or None,
        )
        return _manifest(
            packed, withheld, nodes, seed_ids, depth, wider, budget, content_tokens, app
        )

    text = fitted_answer(
        budget, body, manifest, lambda: total, "candidate set", reserve=COMPOSE_MANIFEST_RESERVE
    )
    app.count("compose", tokens_served=estimate_tokens(text))
    return text


MAX_DROPPED_LABELLED = 8


def _label(node: Any, node_id: str, with_id: bool = True) -> str:
    from ctx_tree_mcp.answers.describe import where

    if node is None:
        return node_id
    return f"{where(node)} {node_id}" if with_id else where(node)


def _manifest(
    plan: Any,
    withheld: list[str],
    nodes: dict[str, Any],
    seed_ids: list[str],
    depth: int,
    wider: str,
    budget: int,
    content_tokens: int,
    app: App,
) -> Manifest:
    """The compose manifest: the head gives the ``budget`` the caller asked for and the
    ``content_tokens`` the answer's body costs (its manifest and tokens line take the rest),
    then counts (none that are 0 but the included; nodes dropped for the
    budget apart from those one hop beyond ``depth`` and those of an excluded status), then labelled included, truncated and
    dropped nodes, and a ``next`` that reaches content this answer did not show: the truncated
    node, else the best node dropped for the budget, else ``wider`` (this call one hop deeper)
    when nodes lie beyond the depth. A node the store file does not hold is not offered
    (:func:`~.lookup.get_call`): the manifest says it is not stored."""
    if plan.truncated is not None and plan.truncated.id in withheld:
        plan = dataclasses.replace(plan, truncated=None)  # not shown: not counted, not next
    reasons = Counter(d.reason for d in plan.dropped)
    counts = [f"{len(plan.included)} included"]
    counts += ["1 truncated"] if plan.truncated is not None else []
    counts += [f"{reasons['budget']} dropped for budget"] if reasons["budget"] else []
    counts += [f"{reasons['depth']} beyond depth {depth}"] if reasons["depth"] else []
    counts += [f"{reasons['status']} of an excluded status"] if reasons["status"] else []
    m = Manifest(
        f"compose from {len(seed_ids)} seed(s), depth {depth}, budget {budget:,}: "
        f"content {content_tokens:,} tokens; {', '.join(counts)}"
        + ("; candidates capped" if plan.capped else "")
    )
    if withheld:
        m.add("withheld", f"{len(withheld)} node(s) from files now on the denylist")

    if plan.included:
        m.add(
            "included",
            ", ".join(f"{i.id}({score_text(i.score)}, {i.tokens}t)" for i in plan.included),
            optional=True,
        )
    if plan.truncated is not None:
        t = plan.truncated
        m.add(
            "truncated", f"{_label(nodes.get(t.id), t.id)} kept {t.kept_tokens}/{t.total_tokens}t"
        )
    budget_dropped = [d for d in plan.dropped if d.reason == "budget" and d.id not in withheld]
    if budget_dropped:
        best = budget_dropped[0]
        named = plan.truncated is None  # next names it by id: a small budget keeps next alone
        label = _label(nodes.get(best.id), best.id, with_id=not named)
        m.add("dropped", f"{label} ({score_text(best.score)}, {best.tokens}t)", optional=named)
        rest = [
            f"{_label(nodes.get(d.id), d.id)} ({score_text(d.score)}, {d.tokens}t)"
            for d in budget_dropped[1:MAX_DROPPED_LABELLED]
        ]
        more = len(budget_dropped) - min(len(budget_dropped), MAX_DROPPED_LABELLED)
        m.add("also dropped", "; ".join(rest) + (f" (+{more} more)" if more else ""), optional=True)
    best_id = plan.truncated.id if plan.truncated is not None else None
    best_id = best_id or (budget_dropped[0].id if budget_dropped else None)
    if best_id is not None and (get := get_call(app, best_id)):
        m.add("next", get)
    elif best_id is not None:
        raise_it = argument_name("ctx_tree_compose", "budget_tokens")
        m.add("more", f"{_label(nodes.get(best_id), best_id)} is {NOT_STORED}: raise {raise_it}")
    elif reasons["depth"] and depth < MAX_DEPTH:
        m.add("next", wider)
    return m


SPEC = ToolSpec(
    name="ctx_tree_compose",
    description=DESCRIPTION,
    args=Args,
    handler=compose,
    example={"seed_ids": ["01JD…A", "01JD…B"], "query": "retry", "budget_tokens": 3000},
    help="pack the context around seed nodes into a budget",
    store_reader=True,
)
