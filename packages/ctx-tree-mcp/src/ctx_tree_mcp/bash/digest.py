"""Which lines of a command's output an answer shows when all of them do not fit.

In order, while room is left: test-runner and build summaries (pytest, unittest, go test,
cargo, jest, vitest, mocha, npm, make, tsc), the tail, error and failure lines with two lines
of context either side (first ones first), more of the tail, then the head. The patterns are
data (:data:`SUMMARY`, :data:`PROBLEM`; ``\\s`` is avoided there because the patterns run over
the whole output at once): adding a runner is adding a line. Pure functions.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from ..budget import estimate_tokens

__all__ = ["MAX_LINE_CHARS", "Selection", "render_lines", "select_lines"]

#: Summary lines of test runners and builds, by tool.
SUMMARY: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (tool, re.compile(pattern))
    for tool, pattern in (
        ("pytest", r"^=+ .*\b(passed|failed|errors?|skipped|xfailed|xpassed|no tests ran)\b.*=+$"),
        ("pytest", r"^(FAILED|ERROR) \S"),
        ("pytest", r"^_{3,} \S.* _{3,}$"),
        ("unittest", r"^(Ran \d+ tests? in |OK$|OK \(|FAILED \((failures|errors)=)"),
        ("unittest", r"^(FAIL|ERROR): \w"),
        ("go", r"^(--- FAIL: |FAIL[ \t]|ok[ \t]+\S+[ \t]|PASS$|FAIL$|panic: )"),
        ("cargo", r"^(test result: |failures:$|---- \S+ stdout ----|error(\[E\d+\])?: )"),
        ("cargo", r"^thread '.*' panicked at"),
        ("jest", r"^[ \t]*(Tests|Test Suites|Test Files|Snapshots):?[ \t]+\d"),
        ("jest", r"^[ \t]*(●|FAIL|✕|×|❯) \S"),
        ("mocha", r"^[ \t]*\d+ (passing|failing|pending)\b"),
        ("npm", r"^npm (ERR!|error) "),
        ("make", r"^g?make(\[\d+\])?: \*\*\* "),
        ("tsc", r"error TS\d+: "),
        ("build", r"^(BUILD (SUCCESSFUL|FAILED)|Build (succeeded|FAILED))"),
    )
)
#: Lines that report a problem, searched in the lower-cased output (no ``\\b``: one fast pass);
#: shown with :data:`CONTEXT` lines either side. ``e   …`` is pytest's assertion detail.
PROBLEM = re.compile(
    r"(?m)error|fail|fatal|panic|exception|traceback|assert|segmentation fault|core dumped"
    r"|denied|not found|no such file|cannot|can't|unable to|undefined|killed|^e {2,}\S"
)
#: All of :data:`SUMMARY` as one pattern tried only at line starts: one pass over the output.
_ANY_SUMMARY = re.compile(
    "(?m)^(?:"
    + "|".join(
        "(?:" + (p.pattern[1:] if p.pattern.startswith("^") else r"[^\n]*?" + p.pattern) + ")"
        for _, p in SUMMARY
    )
    + ")"
)
CONTEXT = 2
#: Longest line shown in an answer; the stored output keeps whole lines.
MAX_LINE_CHARS = 400


@dataclass(frozen=True, slots=True)
class Selection:
    """Shown line indexes (0-based, sorted) and what the selection found."""

    shown: list[int]
    summaries: int
    problems: int


def _display(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}…[+{len(line) - MAX_LINE_CHARS} chars]"


def line_cost(index: int, line: str) -> int:
    """Tokens of one numbered answer line (``<n>\\t<text>\\n``)."""
    return estimate_tokens(f"{index + 1}\t{_display(line)}\n")


def _matching_lines(pattern: re.Pattern[str], text: str, starts: list[int]) -> list[int]:
    """Indexes of the lines (starting at ``starts``) holding a match, ascending, once each."""
    found: dict[int, None] = {}
    for m in pattern.finditer(text):
        found[bisect.bisect_right(starts, m.start()) - 1] = None
    return list(found)


def select_lines(lines: list[str], room: int) -> Selection:
    """Choose lines within ``room`` tokens (gap markers between shown runs included)."""
    n = len(lines)
    text = "\n".join(lines)
    width = len(str(n)) + 2
    if (len(text) + n * width + 3) // 4 <= room and all(len(x) <= MAX_LINE_CHARS for x in lines):
        return Selection(list(range(n)), 0, 0)
    starts = list(itertools.accumulate((len(x) + 1 for x in lines[:-1]), initial=0))
    chosen: set[int] = set()
    used = 0

    def take(i: int, limit: int) -> bool:
        nonlocal used
        if i in chosen:
            return True
        # A line next to no shown line may open one more "omitted" marker.
        isolated = i - 1 not in chosen and i + 1 not in chosen
        cost = line_cost(i, lines[i]) + (_GAP if isolated else 0)
        if used + cost > limit:
            return False
        chosen.add(i)
        used += cost
        return True

    summaries = _matching_lines(_ANY_SUMMARY, text, starts)
    problems = _matching_lines(PROBLEM, text.lower(), starts)
    for i in summaries:
        if not take(i, room * 2 // 5):
            break
    tail_limit = used + room // 4
    for i in range(n - 1, -1, -1):
        if not take(i, tail_limit):
            break
    for i in problems:
        window = range(max(0, i - CONTEXT), min(n, i + CONTEXT + 1))
        if not all(take(j, room) for j in window):
            break
    for i in range(n - 1, -1, -1):  # more of the tail
        if not take(i, room):
            break
    for i in range(n):  # then the head
        if not take(i, room):
            break
    return Selection(sorted(chosen), len(summaries), len(problems))


_GAP = 8  # tokens of one "…\t(lines a-b omitted)" marker


def render_lines(lines: list[str], shown: list[int]) -> tuple[str, list[tuple[int, int]]]:
    """Numbered lines (``<n>\\t<text>``, 1-based) with a marker for each omitted run.

    Returns the text and the omitted runs as 1-based inclusive ``(first, last)`` pairs.
    """
    out: list[str] = []
    gaps: list[tuple[int, int]] = []
    prev = -1
    for i in shown:
        if i > prev + 1:
            gaps.append((prev + 2, i))
            out.append(f"…\t(lines {prev + 2}-{i} omitted)\n")
        out.append(f"{i + 1}\t{_display(lines[i])}\n")
        prev = i
    if prev + 1 < len(lines):
        gaps.append((prev + 2, len(lines)))
        out.append(f"…\t(lines {prev + 2}-{len(lines)} omitted)\n")
    return "".join(out), gaps
