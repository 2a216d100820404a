"""``ctx_tree_compose``: recall the context around seed nodes within a token budget (spec §4).

BFS from the seeds over the spine and edges (depth ≤ 5), score each candidate
``w_dist/(1+dist) + w_recency·decay + w_query·fts`` (ctx-tree-compose documents the decay
half-life and the FTS normalisation), pack greedily by score, and answer each packed node under
a header, then the manifest of included / truncated / dropped nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..budget import check_budget, check_int, estimate_tokens, fit_lines
from ..errors import ToolInputError
from ..render import Manifest, finish, number_lines

if TYPE_CHECKING:
    from ..app import App

DESCRIPTION = (
    "Pack the context around seed_ids (BFS over spine + edges, scored by distance, recency and "
    "query) into budget_tokens, with a manifest of what was included, truncated and dropped."
)
_STATUSES = ("live", "pending")
_STALE = ("live", "pending", "stale", "superseded")


def _header(node) -> str:
    from ..describe import line

    return f"## {line(node)}\n"


def _body(node, content: str) -> str:
    lines = node.lines
    if node.kind.value == "file_chunk" and lines and not node.metadata.get("is_file_root"):
        return number_lines(content.splitlines(), lines[0])
    return content if content.endswith("\n") or not content else content + "\n"


def compose(
    app: App,
    seed_ids: list[str],
    query: str | None = None,
    budget_tokens: int = 4000,
    depth: int = 2,
    weights: dict[str, Any] | None = None,
    include_stale: bool = False,
) -> str:
    """Handle ``ctx_tree_compose``. Raises ``ToolInputError`` for no or unknown seeds, a depth
    outside 0..5, bad weights or budget."""
    from ctx_tree_compose import UnknownSeedError, Weights, render_manifest
    from ctx_tree_compose import compose as plan_compose
    from ctx_tree_store import StoreGraph

    budget = check_budget(budget_tokens)
    depth = check_int(depth, "depth", 0, 5)
    if isinstance(seed_ids, str):
        seed_ids = [seed_ids]
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
    graph = StoreGraph(app.store, estimate_tokens)
    nodes: dict[str, Any] = {}

    def overhead(node_id: str) -> int:
        node = nodes.get(node_id) or app.store.get(node_id)
        nodes[node_id] = node
        return (
            estimate_tokens(_header(node))
            + (estimate_tokens(_body(node, node.content)) - estimate_tokens(node.content))
            if node
            else 0
        )

    try:
        plan = plan_compose(
            graph,
            seed_ids,
            budget_tokens=max(1, budget - 160),
            depth=depth,
            query=query or None,
            weights=w,
            include_statuses=_STALE if include_stale else _STATUSES,
            overhead_tokens=overhead,
        )
    except UnknownSeedError as exc:
        raise ToolInputError(
            "seed_ids", f"{exc}; use ids from ctx_tree_search or a manifest"
        ) from None
    except ValueError as exc:
        raise ToolInputError("weights", str(exc)) from None
    parts: list[str] = []
    for inc in plan.included:
        node = nodes.get(inc.id) or app.store.require(inc.id)
        parts.append(_header(node) + _body(node, node.content))
    if plan.truncated:
        node = nodes.get(plan.truncated.id) or app.store.require(plan.truncated.id)
        head = _header(node)
        body, _ = fit_lines(
            _body(node, node.content), max(0, plan.truncated.kept_tokens - estimate_tokens(head))
        )
        parts.append(head + body + "[…truncated]\n")
    manifest = Manifest(f"compose from {len(seed_ids)} seed(s), depth {depth}")
    manifest.lines.extend(
        line for line in render_manifest(plan, max_dropped=12).splitlines() if line.strip()
    )
    total = (
        sum(i.tokens for i in plan.included)
        + sum(d.tokens for d in plan.dropped)
        + (plan.truncated.total_tokens if plan.truncated else 0)
    )
    text = finish("".join(parts), manifest, budget, total, "candidates")
    app.store.bump(tokens_served=estimate_tokens(text))
    return text
