"""Token budgets: the bounds every tool enforces and the estimator they all use.

The estimator is :func:`ctx_tree_compose.estimate_tokens` (byte classes of the UTF-8 text,
weighed against a real BPE tokenizer; see ``docs/tools.md``); every answer's text, manifest
included, is at most ``budget_tokens`` under it.
"""

from __future__ import annotations

from ctx_tree_compose import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines, tokens_for_chars

from .errors import ToolInputError

MIN_BUDGET = 100
MAX_BUDGET = 50_000

__all__ = [
    "MAX_BUDGET",
    "MAX_CHARS_PER_TOKEN",
    "MIN_BUDGET",
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
