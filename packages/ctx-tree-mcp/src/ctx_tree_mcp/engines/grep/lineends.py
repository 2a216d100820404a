"""Grep's line numbers for files with lone CRs, counted the way read counts lines.

Every tool numbers a file's lines one way (docs/tools.md, "Line numbers"): a line ends at LF,
CRLF or a lone CR. ripgrep, and the ``regex`` fallback, end lines at LF only, so in a classic
Mac file (CR only) or one with mixed line ends their numbers and lines differ from read's. A
file whose output holds a lone CR is numbered again here from its text: each match becomes the
lines its matches lie on (every line a match spans), with the context lines before and after.
Matching itself keeps ripgrep's semantics (``^``/``$`` at LF line ends).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

from ctx_tree_mcp.answers.render import split_lines
from ctx_tree_mcp.engines.grep.ripgrep import LONG_LINE, Line

#: A CR that ends a line on its own (not the CR of a CRLF).
LONE_CR_BYTES = re.compile(rb"\r(?!\n)")
#: Seconds one file's matches may take to find before its lines keep ripgrep's numbers.
SEARCH_TIMEOUT_S = 0.5


def renumber(
    lines: list[Line],
    text: str,
    matcher: object | None,
    context_lines: int,
    cut: Callable[[str], str],
    after_context: int | None = None,
) -> list[Line] | None:
    """``lines`` (one file's output numbered on LF) as the lines of ``text`` (the whole file)
    that read would number: the matched lines, ``context_lines`` before each and
    ``after_context`` (default: the same) after it, a line over
    ``LONG_LINE`` characters as ``cut(line)``. ``matcher`` is the pattern compiled with the
    ``regex`` module (``excerpt.compile_pattern``). ``None`` when the matches cannot be placed
    (no matcher, a match not found again or past the end of ``text``). Raises
    ``TimeoutError`` when finding them took over ``SEARCH_TIMEOUT_S``: the caller says the
    lines keep ripgrep's numbers (a timeout is not an answer)."""
    if matcher is None:
        return None
    kept = split_lines(text.removeprefix("\ufeff"), keepends=True)
    # the index in ``kept`` of the first line of each LF-ended row (ripgrep's lines)
    firsts = [0, *(i + 1 for i, line in enumerate(kept) if line.endswith("\n"))]
    matched: set[int] = set()
    finditer = matcher.finditer  # type: ignore[attr-defined]
    try:
        for line in lines:
            if not line.is_match:
                continue
            if line.number > len(firsts):  # past the part of the file read
                return None
            a = firsts[line.number - 1]
            b = firsts[line.number] if line.number < len(firsts) else len(kept)
            starts = list(accumulate((len(part) for part in kept[a:b]), initial=0))
            row = "".join(kept[a:b]).removesuffix("\n")
            found = False
            for m in finditer(row, timeout=SEARCH_TIMEOUT_S):
                start, end = m.span()
                first = bisect_right(starts, start) - 1
                last = bisect_right(starts, max(start, end - 1)) - 1
                matched.update(range(a + first, a + last + 1))
                found = True
            if not found:
                return None
    except RecursionError:
        return None
    after = context_lines if after_context is None else after_context
    shown = sorted(
        {
            i
            for hit in matched
            for i in range(max(0, hit - context_lines), min(len(kept), hit + after + 1))
        }
    )
    out = []
    for i in shown:
        body = kept[i].rstrip("\r\n")
        out.append(Line(i + 1, cut(body) if len(body) > LONG_LINE else body, i in matched))
    return out
