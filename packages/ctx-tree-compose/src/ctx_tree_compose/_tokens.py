"""THE token estimator of ctx-tree, and the line-aware cut that goes with it."""

from __future__ import annotations

#: Characters per estimated token. Changing it changes every budget in ctx-tree.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimate the tokens ``text`` costs an agent: ``ceil(len(text) / 4)``.

    This is THE estimator of ctx-tree: every budget, node size and manifest figure is in
    these units. It counts characters (Python ``str`` code points, not bytes) divided by
    four, rounded up — the same estimate the public eval harness uses — so figures we
    report agree with how we are scored. ``""`` costs 0; ``"a"`` and ``"abcd"`` cost 1.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"estimate_tokens() needs a str, got {type(text).__name__}")
    return -(-len(text) // CHARS_PER_TOKEN)


def tokens_for_chars(chars: int) -> int:
    """The :func:`estimate_tokens` figure for a text of ``chars`` characters, without the text
    (for callers that know sizes, e.g. ``length(content)`` from SQL). Raises ``ValueError``
    for a negative count."""
    if chars < 0:
        raise ValueError(f"chars must be >= 0, got {chars}")
    return -(-chars // CHARS_PER_TOKEN)


def fit_lines(text: str, budget_tokens: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``budget_tokens`` (as estimated by :func:`estimate_tokens`).

    Returns ``(prefix, truncated)``. ``prefix`` is the longest prefix of whole lines (a
    line ends with, and keeps, its ``"\\n"``) whose estimate is ``<= budget_tokens``; if
    not even the first line fits, the first line is cut by characters, to
    ``4 * budget_tokens`` characters, so the result is never over budget. ``truncated``
    is True when ``prefix != text``. ``fit_lines(text, b)`` with a text that already fits
    returns ``(text, False)``.

    Raises:
        ValueError: ``budget_tokens`` is negative.
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"fit_lines() needs a str, got {type(text).__name__}")
    if budget_tokens < 0:
        raise ValueError(f"budget_tokens must be >= 0, got {budget_tokens}")
    # estimate(prefix) <= budget  <=>  len(prefix) <= 4 * budget
    limit = budget_tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text, False
    last_newline = text.rfind("\n", 0, limit)
    if last_newline >= 0:
        return text[: last_newline + 1], True
    return text[:limit], True
