"""Token budgets: the bounds every tool enforces, the estimator they all use, and the named
reserves an answer keeps back for what follows its body.

The estimator is :func:`ctx_tree_compose.estimate_tokens` (byte classes of the UTF-8 text,
weighed against a real BPE tokenizer; see ``docs/tools.md``); every answer's text, manifest
included, is at most ``budget_tokens`` under it.
"""

from __future__ import annotations

from ctx_tree_compose import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines, tokens_for_chars

from ctx_tree_mcp.errors import ToolInputError

MIN_BUDGET = 100
MAX_BUDGET = 50_000

# Reserves, in estimated tokens: what an answer keeps back from its budget for the lines that
# follow its body. They are first guesses: ``render.fitted_answer`` measures the manifest it
# builds and gives the body exactly the room that is left.

#: The closing ``tokens: N returned of M in file (P%)`` line of every answer.
TOKENS_LINE_RESERVE = 20
#: A manifest's first guess when the tool names none (head, a few ids, ``next``).
MANIFEST_RESERVE = 120
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
#: A manifest up to this many tokens is never compacted (its head and ``next`` alone cost ~40).
PROPORTIONATE_FLOOR = 60

__all__ = [
    "COMPOSE_MANIFEST_RESERVE",
    "GET_MANIFEST_RESERVE",
    "GREP_MANIFEST_RESERVE",
    "LISTING_MANIFEST_RESERVE",
    "MANIFEST_RESERVE",
    "MAX_BUDGET",
    "MAX_CHARS_PER_TOKEN",
    "MIN_BUDGET",
    "NEXT_ROW_MARGIN",
    "PROPORTIONATE_FLOOR",
    "TOKENS_LINE_RESERVE",
    "check_budget",
    "estimate_tokens",
    "fit_lines",
    "tokens_for_chars",
]


def check_budget(value: object, argument: str = "budget_tokens") -> int:
    """Validate a budget: an integer in ``[MIN_BUDGET, MAX_BUDGET]`` tokens, else :class:`ToolInputError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolInputError(
            argument, f"expected an integer number of tokens ({MIN_BUDGET}..{MAX_BUDGET})"
        )
    if not MIN_BUDGET <= value <= MAX_BUDGET:
        raise ToolInputError(
            argument, f"{value} is out of range; use {MIN_BUDGET}..{MAX_BUDGET} tokens"
        )
    return value


def check_int(value: object, argument: str, low: int, high: int) -> int:
    """Validate an integer argument in ``[low, high]``, else :class:`ToolInputError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolInputError(argument, f"expected an integer between {low} and {high}")
    if not low <= value <= high:
        raise ToolInputError(argument, f"{value} is out of range; use {low}..{high}")
    return value
