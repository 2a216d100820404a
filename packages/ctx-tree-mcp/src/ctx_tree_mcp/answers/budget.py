"""Token budgets of ctx-tree's tools: the bounds every tool enforces, the estimator they all
use, and each tool's first guess at its manifest's size (the fitting rules themselves are
``ctx-tree-compose``'s: :func:`ctx_tree_compose.fit_answer`).

The estimator is :func:`ctx_tree_compose.estimate_tokens` (byte classes of the UTF-8 text,
weighed against a real BPE tokenizer; see ``docs/tools.md``); every answer's text, manifest
included, is at most ``budget_tokens`` under it.
"""

from __future__ import annotations

from ctx_tree_compose import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines, tokens_for_chars

MIN_BUDGET = 100
MAX_BUDGET = 50_000

# Each tool's first guess at its manifest's size, in estimated tokens: what its answer keeps
# back from the budget for the lines after the body. ``ctx_tree_compose.fit_answer`` (which
# owns the other reserves) measures the manifest it builds and gives the body exactly the room
# that is left.

#: ``ctx_tree_grep``'s manifest: head, files not shown, ``next`` with an offset.
GREP_MANIFEST_RESERVE = 90
#: ``ctx_tree_get``'s manifest: the node's place, the lines shown, ``next``.
GET_MANIFEST_RESERVE = 80
#: ``ctx_tree_compose``'s manifest: counts, labelled included, truncated and dropped nodes.
COMPOSE_MANIFEST_RESERVE = 160
#: A numbered listing's manifest (search hits, recent nodes, neighbors): head and ``more``.
LISTING_MANIFEST_RESERVE = 80
#: A listing offers a longer one as ``next`` only with room left for one more row of its
#: widest size plus this much: the longer listing's ``shown`` and ``tokens`` lines.
NEXT_ROW_MARGIN = 40

__all__ = [
    "COMPOSE_MANIFEST_RESERVE",
    "GET_MANIFEST_RESERVE",
    "GREP_MANIFEST_RESERVE",
    "LISTING_MANIFEST_RESERVE",
    "MAX_BUDGET",
    "MAX_CHARS_PER_TOKEN",
    "MIN_BUDGET",
    "NEXT_ROW_MARGIN",
    "estimate_tokens",
    "fit_lines",
    "tokens_for_chars",
]
