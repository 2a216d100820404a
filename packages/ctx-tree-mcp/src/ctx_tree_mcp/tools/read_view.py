"""The lines of a file view for ``ctx_tree_read``: slices that fit a budget, where a cut
left off, and the manifest lines and calls that say so."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.budget import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines
from ctx_tree_mcp.answers.render import Manifest, call, fitted_answer, number_lines, split_lines
from ctx_tree_mcp.answers.surface import argument_name
from ctx_tree_mcp.engines.files.filecache import FileView, OutlineEntry
from ctx_tree_mcp.tools.lookup import NOT_STORED

if TYPE_CHECKING:
    from ctx_tree_schema import Node


RELEVANCE_FLOOR = 0.3  # query mode: chunks scoring below this share of the best are left out
PART = re.compile(r"#\d+$")


def file_tokens(view: FileView) -> int:
    """Tokens of the whole file as numbered lines (what reading all of it here would cost)."""
    return view.numbered_tokens


def file_what(view: FileView) -> str:
    """What :func:`file_tokens` counts, for the tokens line: the file, or only its stored part
    when it was stored truncated at ``capture.maxFileBytes``."""
    return "stored part" if view.root.truncated else "file"


def lines_of(view: FileView, first: int, last: int) -> list[str]:
    """File lines ``first..last`` (1-based inclusive) rebuilt from the chunks that tile the file."""
    out: list[str] = []
    for chunk in view.chunks_over(first, last):
        s = chunk.metadata["lines"][0]
        lines = split_lines(chunk.content)
        for offset, line in enumerate(lines):
            if first <= s + offset <= last:
                out.append(line)
    return out


def overlapping(view: FileView, first: int, last: int) -> list[Node]:
    """The chunks holding any of lines ``first..last``."""
    return list(view.chunks_over(first, last))


def view_head(view: FileView) -> str:
    """The manifest's head: path, lines, the whole file's tokens, and whether it was stored cut.

    Terse on purpose: the manifest shows only when something was left out (docs/tools.md).
    """
    trunc = ", stored truncated at capture.maxFileBytes" if view.root.truncated else ""
    lines = f"{view.total_lines} line{'s' if view.total_lines != 1 else ''}"
    if view.root.truncated:
        lines += f" stored of {view.root.original_bytes:,} bytes"
    return f"{view.relative} · {lines}, {file_tokens(view):,}t{trunc}"


def view_manifest(view: FileView, head: str = "") -> Manifest:
    """A read's manifest: :func:`view_head` (then ``head``), and for a notebook the note that
    its lines are a rendering, which shows even when nothing was left out."""
    m = Manifest(view_head(view) + head)
    if view.root.metadata.get("rendered"):
        m.add("note", "lines of its cells rendered as text (outputs capped)")
    return m


@dataclass(frozen=True)
class Cut:
    """How far a slice of lines ``first..last`` got: whole lines up to ``shown_to``
    (``first - 1`` when none), then ``partial`` characters of the next line."""

    first: int
    last: int
    shown_to: int
    partial: int = 0
    #: characters of that line skipped before the part shown (an excerpt around a match)
    skipped: int = 0
    #: lines ``tail_from..last`` are shown too, after the gap (0: no tail shown)
    tail_from: int = 0

    @property
    def done(self) -> bool:
        """True when the slice reached its last line."""
        return self.shown_to >= self.last

    @property
    def empty(self) -> bool:
        """True when nothing of the slice could be shown."""
        return self.shown_to < self.first and not self.partial


_LINE_GOES_ON = " […line continues]\n"

#: A range cut by the budget shows its last lines too, in up to this share of the room (the
#: head gets the rest): what a range was asked to reach is often at its end (docs/tools.md).
TAIL_SHARE = 4


def gap_marker(first: int, last: int) -> str:
    """The line standing for lines ``first..last`` left out between a cut range's head and
    tail."""
    return f"…\t(lines {first}-{last} not shown)\n"


def slice_lines(
    view: FileView,
    first: int,
    last: int,
    room: int,
    label: str,
    numbered: bool = True,
    *,
    tail: bool = False,
) -> tuple[str, Cut]:
    """Numbered lines first..last fitted into ``room`` tokens, under ``label`` (plain lines,
    as ``sed -n`` prints them, when not ``numbered``).

    Whole lines when at least one fits; otherwise the first line cut by characters (a line
    longer than the budget, e.g. minified JSON), marked as continuing. ``tail``: when not
    all lines fit, the last ones too (up to 1/:data:`TAIL_SHARE` of the room), after a
    :func:`gap_marker` line (:func:`head_and_tail`).
    """
    head = f"{label}\n" if label else ""
    shown = lines_of(view, first, last)
    body = number_lines(shown, first) if numbered else "".join(f"{ln}\n" for ln in shown)
    body_room = max(0, room - estimate_tokens(head))
    fitted, cut = fit_lines(body, body_room)
    if not cut:
        return head + fitted, Cut(first, last, last)
    if fitted.endswith("\n"):
        if tail and (both := head_and_tail(shown, first, last, body_room, numbered)):
            return head + both[0], both[1]
        return head + fitted, Cut(first, last, first + fitted.count("\n") - 1)
    fitted, _ = fit_lines(body, max(0, room - estimate_tokens(head + _LINE_GOES_ON)))
    prefix = f"{first}\t" if numbered else ""
    if len(fitted) <= len(prefix) or fitted.endswith("\n"):
        return "", Cut(first, last, first - 1)
    return head + fitted + _LINE_GOES_ON, Cut(first, last, first - 1, len(fitted) - len(prefix))


def head_and_tail(
    shown: list[str], first: int, last: int, room: int, numbered: bool
) -> tuple[str, Cut] | None:
    """Lines ``first..last`` (``shown``) as a head and a tail within ``room`` tokens: the
    last lines in up to 1/:data:`TAIL_SHARE` of it, a :func:`gap_marker`, and the first
    lines in what is left; None when that leaves no line for either."""

    def row(offset: int) -> str:
        return f"{first + offset}\t{shown[offset]}\n" if numbered else f"{shown[offset]}\n"

    marker = estimate_tokens(gap_marker(last, last))
    tail_room = room // TAIL_SHARE
    start, used = len(shown), 0
    while start > 1 and used + (cost := estimate_tokens(row(start - 1))) <= tail_room:
        used += cost
        start -= 1
    while (
        start < len(shown)
        and estimate_tokens("".join(map(row, range(start, len(shown))))) > tail_room
    ):  # the lines' estimates need not add up to the whole's
        start += 1
    if start >= len(shown):
        return None
    tail_text = "".join(map(row, range(start, len(shown))))
    head_room = room - estimate_tokens(tail_text) - marker
    if head_room <= 0:
        return None
    head_text, _ = fit_lines("".join(map(row, range(start))), head_room)
    count = head_text.count("\n") if head_text.endswith("\n") else 0
    if not count or count >= start:
        return None
    shown_to = first + count - 1
    tail_from = first + start
    text = head_text + gap_marker(shown_to + 1, tail_from - 1) + tail_text
    return text, Cut(first, last, shown_to, tail_from=tail_from)


def excerpt_at(
    view: FileView, cut: Cut, query: str, room: int, label: str
) -> tuple[str, Cut] | None:
    """Line ``cut.first`` (longer than the budget, e.g. minified JSON) shown around the first
    match of a query word past what ``cut`` showed, or None when there is none."""
    from ctx_tree_store import query_words

    where = line_offset(view, cut.first)
    if where is None:
        return None
    chunk = where[0]
    s = chunk.metadata["lines"][0]
    line = split_lines(chunk.content)[cut.first - s]
    lowered = line.lower()
    counts = {w: lowered.count(w) for w in query_words(query) if len(w) > 1}
    counts = {w: n for w, n in counts.items() if n}
    if not counts:
        return None
    rarest = min(counts, key=lambda w: (counts[w], -len(w)))  # the most telling word
    found = lowered.find(rarest)
    if found < cut.partial:
        return None  # the head already shows it
    start = max(0, found - EXCERPT_LEAD)
    head = f"{label}\n{cut.first}\t…"
    fit = room - estimate_tokens(head + _LINE_GOES_ON) - 1
    if fit <= 0:
        return None
    shown, _ = fit_lines(line[start : start + MAX_CHARS_PER_TOKEN * (fit + 1)], fit)
    if not shown:
        return None
    end = start + len(shown)
    if end >= len(line):  # the rest of the line fits: nothing continues
        return f"{head}{shown}\n", Cut(cut.first, cut.last, cut.first, 0, 0)
    return f"{head}{shown}{_LINE_GOES_ON}", Cut(cut.first, cut.last, cut.first - 1, end, start)


#: Characters of context kept before a match in a line longer than the budget.
EXCERPT_LEAD = 120


def line_offset(view: FileView, line: int) -> tuple[Node, int] | None:
    """The chunk holding file line ``line`` and the character offset of that line in it."""
    held = view.chunks_over(line, line)
    if not held:
        return None
    chunk, s = held[0], held[0].metadata["lines"][0]
    return chunk, sum(len(x) for x in split_lines(chunk.content, keepends=True)[: line - s])


def continue_call(view: FileView, cut: Cut, numbered: bool = True) -> tuple[str, str]:
    """``(call, more)``: the call that shows what ``cut`` left out (the rest of a line cut by
    characters: ``ctx_tree_get`` at a character offset; else the remaining lines), and what
    no call can get: the rest of a cut line the store does not hold (``""`` when nothing).
    The call is ``""`` when that line is all that was left out. A manifest gives the call its
    ``next`` line and the rest a ``more`` line: a ``next`` holds one call (docs/tools.md)."""
    line = cut.shown_to + 1
    if cut.tail_from:
        return range_call(view, line, cut.tail_from - 1, numbered), ""
    if cut.partial and (where := line_offset(view, line)):
        chunk, offset = where
        if view.stored:
            return call("ctx_tree_get", node_id=chunk.id, offset=offset + cut.partial), ""
        more = argument_name("ctx_tree_read", "budget_tokens")
        rest = f"the rest of line {line} is {NOT_STORED}: raise {more}"
        if line == cut.last:
            return "", rest
        return range_call(view, line + 1, cut.last, numbered), rest
    return range_call(view, line, cut.last, numbered), ""


def not_shown(cut: Cut) -> str:
    """The manifest's words for what the cut left out."""
    if cut.tail_from:
        return f"lines {cut.shown_to + 1}-{cut.tail_from - 1} not shown"
    if cut.skipped:
        return (
            f"line {cut.shown_to + 1} shown in part: characters {cut.skipped:,}-{cut.partial:,},"
            " around the first match"
        )
    if cut.partial and cut.last == cut.shown_to + 1:
        return f"line {cut.last} shown in part ({cut.partial:,} characters)"
    if cut.partial:
        return f"line {cut.shown_to + 1} shown in part ({cut.partial:,} characters); lines {cut.shown_to + 1}-{cut.last} not all shown"
    return f"lines {cut.shown_to + 1}-{cut.last} not shown"


def range_call(view: FileView, first: int, last: int, numbered: bool = True) -> str:
    """The exact read of lines ``first..last`` of the file (plain when not ``numbered``)."""
    plain = None if numbered else False
    return call("ctx_tree_read", path=view.relative, start_line=first, end_line=last, numbers=plain)


def ranges_answer(
    view: FileView,
    ranges: Sequence[tuple[int, int, str]],
    budget: int,
    matches: str = "",
    numbered: bool = True,
) -> str:
    """Lines of each ``(first, last, label)`` range in order, as far as the budget goes; the
    manifest's ``next`` continues the cut range, else reads the first range not reached."""
    alone = len(ranges) == 1  # one range cut shows its tail too; several: the later ranges

    def body(room: int) -> tuple[str, list[Cut]]:
        parts: list[str] = []
        cuts: list[Cut] = []
        for first, last, label in ranges:
            text, cut = slice_lines(view, first, last, room, label, numbered, tail=alone)
            if cut.empty:
                break
            parts.append(text)
            cuts.append(cut)
            room -= estimate_tokens(text)
            if not cut.done:
                break
        return "".join(parts), cuts

    def manifest(cuts: list[Cut]) -> Manifest:
        m = view_manifest(view)
        m.add("matches", matches)
        if cuts and not cuts[-1].done:
            m.add("truncated", not_shown(cuts[-1]))
            following, more = continue_call(view, cuts[-1], numbered)
            m.add("next", following)
            m.add("more", more)
        elif len(cuts) < len(ranges):
            first, last, _ = ranges[len(cuts)]
            m.add(
                "not shown",
                f"lines {first}-{last}"
                + (" and later matches" if len(ranges) - len(cuts) > 1 else ""),
            )
            m.add("next", range_call(view, first, last, numbered))
        else:  # every line asked for is shown: the answer is those lines
            m.complete = not view.root.truncated
        return m

    return fitted_answer(budget, body, manifest, file_tokens(view), file_what(view), terse=True)


def range_answer(
    view: FileView, first: int, last: int, budget: int, label: str, numbered: bool = True
) -> str:
    """The answer for one line range (see :func:`ranges_answer`)."""
    return ranges_answer(view, [(first, last, label)], budget, numbered=numbered)


def truncation_hint(view: FileView) -> str:
    """For a file stored truncated: where the stored part ends and how to get the rest."""
    if not view.root.truncated:
        return ""
    kept = view.root.metadata.get("truncated_at_bytes", 0)
    return (
        f"; the file ({view.root.original_bytes:,} bytes) is stored only up to line {view.total_lines}"
        f" ({kept:,} bytes, capture.maxFileBytes): raise capture.maxFileBytes in .ctx-tree/config.json for the rest"
    )


def find_symbols(outline: Sequence[OutlineEntry], symbol: str) -> list[OutlineEntry]:
    """Every definition named ``symbol``, in file order: exact qualified name, else the
    unique-suffix form (``request`` → ``Session.request``), else case-insensitive, else
    alphanumerics only (a Go receiver written with a pointer, Rust ``impl X``). The first
    rule that matches anything decides; several matches are same-named definitions (e.g. a
    function defined in both branches of an ``if``, or two ``### Parameters`` headings)."""
    wanted = symbol.strip()
    lowered = wanted.lower()
    squashed = re.sub(r"[^0-9a-z.]", "", lowered)
    rules = (
        lambda e: e.name == wanted,
        lambda e: e.name.split(".")[-1] == wanted or e.name.endswith("." + wanted),
        lambda e: e.name.lower() == lowered or e.name.lower().split(".")[-1] == lowered,
        lambda e: re.sub(r"[^0-9a-z.]", "", e.name.lower()) == squashed,
    )
    for rule in rules:
        found = [e for e in outline if rule(e)]
        if found:
            return sorted(found, key=lambda e: e.start)
    return []
