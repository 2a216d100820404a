"""Excerpts of very long lines: the text around each match, not the head of the line.

A minified bundle or a one-line JSON file can put a match a megabyte into its only line; the
answer shows ``EDGE`` characters each side of the first :data:`MAX_WINDOWS` matches, joined by
``…``, and says how long the line is. Matches are found with the ``regex`` module (ripgrep
already chose the line); a pattern it cannot compile, or a search over
:data:`SEARCH_TIMEOUT_S`, falls back to the head of the line (the latter saying so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

#: Characters shown on each side of a match.
EDGE = 80
#: Matches shown per line.
MAX_WINDOWS = 3
#: Seconds one line's search may take before the excerpt falls back to the line's head, plus
#: ``SEARCH_S_PER_CHAR`` for each character of the line: a look-behind over a 500,000-character
#: line takes ~50 ms here when quiet, so a flat 50 ms fell back to the head at random.
SEARCH_TIMEOUT_S = 0.05
SEARCH_S_PER_CHAR = 1e-6


def compile_pattern(
    pattern: str, *, ignore_case: bool, fixed_strings: bool
) -> regex.Pattern[str] | None:
    """``pattern`` compiled with the ``regex`` module and ripgrep's defaults (``^``/``$`` at
    line ends), or ``None`` when it does not compile (ripgrep-only syntax)."""
    import regex

    flags = regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0)
    try:
        return regex.compile(regex.escape(pattern) if fixed_strings else pattern, flags)
    except (regex.error, ValueError, OverflowError, RecursionError):
        return None


def excerpter(matcher: Callable[[], regex.Pattern[str] | None]) -> Callable[[str], str]:
    """A function giving the excerpt of one long line. ``matcher()`` returns the compiled
    pattern (:func:`compile_pattern`; ``None``: the head of the line); it is called once, at
    the first long line."""
    compiled: list[regex.Pattern[str] | None] = []

    def cut(line: str) -> str:
        if not compiled:
            compiled.append(matcher())
        spans: list[tuple[int, int]] = []
        lost = False
        if (found := compiled[0]) is not None:
            finditer = found.finditer
            try:
                timeout = SEARCH_TIMEOUT_S + len(line) * SEARCH_S_PER_CHAR
                for m in finditer(line, timeout=timeout):
                    spans.append(m.span())
                    if len(spans) == MAX_WINDOWS:
                        break
            except (TimeoutError, RecursionError):
                spans, lost = spans[:1], not spans
        return excerpt(line, spans, lost=lost)

    return cut


def excerpt(line: str, spans: list[tuple[int, int]], *, lost: bool = False) -> str:
    """``line`` cut to ``EDGE`` characters around each of ``spans`` (character offsets of
    matches; a long match is cut to ``2 * EDGE``), windows merged, gaps shown as ``…``, and
    the line's length appended. No span: the first ``4 * EDGE`` characters; ``lost``: the
    search for the matches timed out, which the length's note says (the head shown need not
    hold the match)."""
    if not spans:
        windows = [(0, min(len(line), 4 * EDGE))]
    else:
        windows = []
        for start, end in spans:
            a, b = max(0, start - EDGE), min(len(line), min(end, start + 2 * EDGE) + EDGE)
            if windows and a <= windows[-1][1]:
                windows[-1] = (windows[-1][0], max(b, windows[-1][1]))
            else:
                windows.append((a, b))
    parts = [line[a:b] for a, b in windows]
    text = " … ".join(parts)
    if windows[0][0] > 0:
        text = "… " + text
    if windows[-1][1] < len(line):
        text += " …"
    missing = "; match not located in time" if lost and not spans else ""
    return f"{text} ⟨line of {len(line):,} chars{missing}⟩"
