"""``ctx_tree_read``: a file's slice by symbol, line range or query, or its outline (docs/tools.md).

Every answer holds real content checked against the file on disk (mtime, size and sha256):
a cache hit only skips parsing; it is never an "unchanged" stub.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ..budget import (
    MAX_CHARS_PER_TOKEN,
    WHOLE_FILE_RESERVE,
    check_budget,
    estimate_tokens,
    fit_lines,
)
from ..errors import PathMissing, ToolInputError
from ..filecache import FileView, OutlineEntry, load, mark_gone
from ..render import Manifest, call, finish, fitted_answer, number_lines, plural
from .spec import Budget, Cli, Input, Sugar, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ..app import App

DESCRIPTION = (
    "Read a file by symbol, line range or query within budget_tokens; with none, outline + "
    "first chunks. The full file is stored; the manifest says how to get more."
)


class Args(Input):
    """Arguments of ``ctx_tree_read``."""

    path: Annotated[
        str,
        Field(description="relative to the project root"),
        Cli("file, relative to the project root (or absolute inside it)", positional=True),
    ]
    symbol: Annotated[
        str | None,
        Field(description="e.g. Class.method or a bare name"),
        Cli("`Class.method` or a bare name; overloads come back together", short="-s"),
    ] = None
    start_line: Annotated[int | None, Field(ge=1), Cli("first line (1-based) of a line range")] = (
        None
    )
    end_line: Annotated[int | None, Field(ge=1), Cli("last line of a line range (inclusive)")] = (
        None
    )
    query: Annotated[
        str | None,
        Field(description="words; best-matching chunks first"),
        Cli("words; the best-matching chunks come first", short="-q"),
    ] = None
    budget_tokens: Budget = 2000


def _parse_lines(text: str) -> dict[str, Any]:
    start, _, end = text.partition(":")
    try:
        return {"start_line": int(start) if start else 1, "end_line": int(end) if end else None}
    except ValueError:
        raise ToolInputError("--lines", "expected START:END, e.g. 40:80 (END optional)") from None


def _render_lines(values: Mapping[str, Any]) -> str | None:
    start, end = values.get("start_line"), values.get("end_line")
    return f"{start or 1}:{'' if end is None else end}"


RELEVANCE_FLOOR = 0.3  # query mode: chunks scoring below this share of the best are left out
_PART = re.compile(r"#\d+$")


def read(
    app: App,
    path: str,
    symbol: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
    query: str | None = None,
    budget_tokens: int = 2000,
) -> str:
    """Handle ``ctx_tree_read``; returns the answer text (content, then manifest).

    Raises ``ToolInputError`` for a bad argument, a refused path, a missing, binary or
    special file, or an unknown symbol (with the nearest names).
    """
    budget = check_budget(budget_tokens)
    modes = [name for name, v in (("symbol", symbol), ("query", query)) if v not in (None, "")]
    if start_line is not None or end_line is not None:
        modes.append("start_line/end_line")
    if len(modes) > 1:
        raise ToolInputError(
            modes[1].split("/")[0],
            f"give at most one of symbol, a line range or query (got {', '.join(modes)})",
        )
    for name, value in (("start_line", start_line), ("end_line", end_line)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ToolInputError(name, "expected a line number >= 1")
    if start_line is not None and end_line is not None and end_line < start_line:
        raise ToolInputError("end_line", f"{end_line} is before start_line {start_line}")
    resolved, st = _resolve(app, path)
    view = load(app, resolved, st)
    if symbol:
        text = _by_symbol(view, symbol, budget)
    elif start_line is not None or end_line is not None:
        text = _by_lines(view, start_line or 1, end_line, budget)
    elif query:
        text = _by_query(app, view, query, budget)
    else:
        text = _outline(view, budget)
    app.count(
        "read", tokens_served=estimate_tokens(text), tokens_source=_file_tokens(view), reads=1
    )
    return text


def _resolve(app: App, path: str):
    try:
        return app.policy.resolve_file(path)
    except PathMissing:
        with contextlib.suppress(ToolInputError):
            mark_gone(app, app.policy.resolve(path))
        raise


def _file_tokens(view: FileView) -> int:
    """Tokens of the whole file as numbered lines (what reading all of it here would cost)."""
    return view.numbered_tokens


def _lines_of(view: FileView, first: int, last: int) -> list[str]:
    """File lines ``first..last`` (1-based inclusive) rebuilt from the chunks that tile the file."""
    out: list[str] = []
    for chunk in view.chunks:
        s, e = chunk.metadata["lines"]
        if e < first or s > last:
            continue
        lines = chunk.content.splitlines()
        for offset, line in enumerate(lines):
            if first <= s + offset <= last:
                out.append(line)
    return out


def _overlapping(view: FileView, first: int, last: int) -> list[Node]:
    return [
        c
        for c in view.chunks
        if not (c.metadata["lines"][1] < first or c.metadata["lines"][0] > last)
    ]


def _chunk_label(c: Node) -> str:
    s, e = c.metadata["lines"]
    sym = c.metadata.get("symbol") or c.metadata.get("kind") or "chunk"
    return f"{c.id} {sym} L{s}-{e} ({estimate_tokens(c.content)}t)"


def _head(view: FileView) -> str:
    flags = " (cached)" if view.cached else ""
    trunc = ", stored truncated at capture.maxBytes" if view.root.truncated else ""
    if view.root.metadata.get("rendered"):
        trunc += ", lines of its cells rendered as text (outputs capped)"
    return f"{view.relative} · {view.total_lines} lines · {view.language or 'text'} · file node {view.root.id}{flags}{trunc}"


@dataclass(frozen=True)
class _Cut:
    """How far a slice of lines ``first..last`` got: whole lines up to ``shown_to``
    (``first - 1`` when none), then ``partial`` characters of the next line."""

    first: int
    last: int
    shown_to: int
    partial: int = 0
    #: characters of that line skipped before the part shown (an excerpt around a match)
    skipped: int = 0

    @property
    def done(self) -> bool:
        return self.shown_to >= self.last

    @property
    def empty(self) -> bool:
        return self.shown_to < self.first and not self.partial


_LINE_GOES_ON = " […line continues]\n"


def _slice(view: FileView, first: int, last: int, room: int, label: str) -> tuple[str, _Cut]:
    """Numbered lines first..last fitted into ``room`` tokens, under ``label``.

    Whole lines when at least one fits; otherwise the first line cut by characters (a line
    longer than the budget, e.g. minified JSON), marked as continuing.
    """
    head = f"{label}\n" if label else ""
    body = number_lines(_lines_of(view, first, last), first)
    fitted, cut = fit_lines(body, max(0, room - estimate_tokens(head)))
    if not cut:
        return head + fitted, _Cut(first, last, last)
    if fitted.endswith("\n"):
        return head + fitted, _Cut(first, last, first + fitted.count("\n") - 1)
    fitted, _ = fit_lines(body, max(0, room - estimate_tokens(head + _LINE_GOES_ON)))
    prefix = f"{first}\t"
    if len(fitted) <= len(prefix) or fitted.endswith("\n"):
        return "", _Cut(first, last, first - 1)
    return head + fitted + _LINE_GOES_ON, _Cut(first, last, first - 1, len(fitted) - len(prefix))


def _excerpt(
    view: FileView, cut: _Cut, query: str, room: int, label: str
) -> tuple[str, _Cut] | None:
    """Line ``cut.first`` (longer than the budget, e.g. minified JSON) shown around the first
    match of a query word past what ``cut`` showed, or None when there is none."""
    from ctx_tree_store import query_words

    where = _line_offset(view, cut.first)
    if where is None:
        return None
    chunk = where[0]
    s = chunk.metadata["lines"][0]
    line = chunk.content.splitlines(keepends=True)[cut.first - s].rstrip("\n")
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
        return f"{head}{shown}\n", _Cut(cut.first, cut.last, cut.first, 0, 0)
    return f"{head}{shown}{_LINE_GOES_ON}", _Cut(cut.first, cut.last, cut.first - 1, end, start)


#: Characters of context kept before a match in a line longer than the budget.
EXCERPT_LEAD = 120


def _line_offset(view: FileView, line: int) -> tuple[Node, int] | None:
    """The chunk holding file line ``line`` and the character offset of that line in it."""
    for chunk in view.chunks:
        s, e = chunk.metadata["lines"]
        if s <= line <= e:
            return chunk, sum(len(x) for x in chunk.content.splitlines(keepends=True)[: line - s])
    return None


def _continue(view: FileView, cut: _Cut) -> str:
    """The call that shows what ``cut`` left out: the rest of a line cut by characters
    (``ctx_tree_get`` at a character offset), else the remaining lines."""
    line = cut.shown_to + 1
    if cut.partial and (where := _line_offset(view, line)):
        chunk, offset = where
        return call("ctx_tree_get", node_id=chunk.id, offset=offset + cut.partial)
    return call("ctx_tree_read", path=view.relative, start_line=line, end_line=cut.last)


def _not_shown(cut: _Cut) -> str:
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


def _omitted(view: FileView, included: Sequence[Node]) -> str:
    ids = {c.id for c in included}
    rest = [c for c in view.chunks if c.id not in ids]
    if not rest:
        return ""
    names = [n for c in rest if isinstance(n := c.metadata.get("symbol"), str) and n]
    shown = ", ".join(dict.fromkeys(_PART.sub("", n) for n in names[:8]))
    more = f" (+{len(rest) - 8} more)" if len(rest) > 8 else ""
    tokens = sum(estimate_tokens(c.content) for c in rest)
    return f"{len(rest)} chunks, {tokens:,}t" + (f": {shown}{more}" if shown else "")


def _included(chunks: Sequence[Node], limit: int = 6) -> str:
    more = f" (+{len(chunks) - limit} more)" if len(chunks) > limit else ""
    return "; ".join(_chunk_label(c) for c in chunks[:limit]) + more


def _range_call(view: FileView, first: int, last: int) -> str:
    return call("ctx_tree_read", path=view.relative, start_line=first, end_line=last)


def _ranges_answer(
    view: FileView, ranges: Sequence[tuple[int, int, str]], budget: int, matches: str = ""
) -> str:
    """Lines of each ``(first, last, label)`` range in order, as far as the budget goes; the
    manifest's ``next`` continues the cut range, else reads the first range not reached."""

    def body(room: int) -> tuple[str, list[_Cut]]:
        parts: list[str] = []
        cuts: list[_Cut] = []
        for first, last, label in ranges:
            text, cut = _slice(view, first, last, room, label)
            if cut.empty:
                break
            parts.append(text)
            cuts.append(cut)
            room -= estimate_tokens(text)
            if not cut.done:
                break
        return "".join(parts), cuts

    def manifest(cuts: list[_Cut]) -> Manifest:
        m = Manifest(_head(view))
        m.add("matches", matches)
        included = [
            c
            for cut in cuts
            for c in _overlapping(view, cut.first, max(cut.shown_to, cut.first))
            if cut.shown_to >= cut.first or cut.partial
        ]
        included = list({c.id: c for c in included}.values())
        if not matches:  # the matches line lists them already
            m.add("included", _included(included), optional=True)
        if cuts and not cuts[-1].done:
            m.add("truncated", _not_shown(cuts[-1]))
            m.add("next", _continue(view, cuts[-1]))
        elif len(cuts) < len(ranges):
            first, last, _ = ranges[len(cuts)]
            m.add(
                "not shown",
                f"lines {first}-{last}"
                + (" and later matches" if len(ranges) - len(cuts) > 1 else ""),
            )
            m.add("next", _range_call(view, first, last))
        m.add("omitted", _omitted(view, included), optional=True)
        return m

    return fitted_answer(budget, body, manifest, _file_tokens(view), "file")


def _range_answer(view: FileView, first: int, last: int, budget: int, label: str) -> str:
    return _ranges_answer(view, [(first, last, label)], budget)


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


def find_symbol(outline: Sequence[OutlineEntry], symbol: str) -> OutlineEntry | None:
    """The first of :func:`find_symbols`, or None when nothing matches."""
    found = find_symbols(outline, symbol)
    return found[0] if found else None


MAX_MATCHES_LISTED = 10


def _by_symbol(view: FileView, symbol: str, budget: int) -> str:
    entries = find_symbols(view.outline, symbol)
    if not entries:
        import difflib

        names = [e.name for e in view.outline]
        close = difflib.get_close_matches(
            symbol, names, n=5, cutoff=0.5
        ) or difflib.get_close_matches(
            symbol.split(".")[-1], [n.split(".")[-1] for n in names], n=5, cutoff=0.5
        )
        hint = f"nearest: {', '.join(close)}" if close else f"{len(names)} symbols in the file"
        raise ToolInputError(
            "symbol",
            f"{symbol!r} not found in {view.relative} ({hint}); "
            f"{call('ctx_tree_read', path=view.relative)} gives the outline"
            + _truncation_hint(view),
        )
    matches = ""
    if len(entries) > 1:
        ids = dict(zip(view.outline, _entry_ids(view), strict=True))
        listed = ", ".join(
            f"L{e.start}-{e.end} {e.name} {ids.get(e, '')}".rstrip()
            for e in entries[:MAX_MATCHES_LISTED]
        )
        more = (
            f" (+{len(entries) - MAX_MATCHES_LISTED} more)"
            if len(entries) > MAX_MATCHES_LISTED
            else ""
        )
        matches = f"{len(entries)} definitions match {symbol!r}, in file order: {listed}{more}"
    ranges = [
        (
            e.start,
            e.end,
            f"## {e.name} ({e.kind}) L{e.start}-{e.end}"
            + (f" [{i} of {len(entries)}]" if len(entries) > 1 else ""),
        )
        for i, e in enumerate(entries, 1)
    ]
    return _ranges_answer(view, ranges, budget, matches)


def _truncation_hint(view: FileView) -> str:
    """For a file stored truncated: where the stored part ends and how to get the rest."""
    if not view.root.truncated:
        return ""
    kept = view.root.metadata.get("truncated_at_bytes", 0)
    return (
        f"; the file ({view.root.original_bytes:,} bytes) is stored only up to line {view.total_lines}"
        f" ({kept:,} bytes, capture.maxBytes): raise capture.maxBytes in .ctx-tree/config.json for the rest"
    )


def _by_lines(view: FileView, first: int, last: int | None, budget: int) -> str:
    total = view.total_lines
    if first > max(total, 1):
        raise ToolInputError(
            "start_line",
            f"{first} is past the end of {view.relative} ({total} lines){_truncation_hint(view)}",
        )
    last = min(last or total, total)
    return _range_answer(view, first, last, budget, "")


@dataclass
class _Group:
    """Contiguous chunks scored together: a symbol (its split parts together), or a whole
    top-level definition (a class and its methods) made of such sub-groups."""

    chunks: list[Node]
    score: float = 0.0
    subs: list[_Group] = field(default_factory=list)

    @property
    def lines(self) -> tuple[int, int]:
        return self.chunks[0].metadata["lines"][0], self.chunks[-1].metadata["lines"][1]

    @property
    def name(self) -> str:
        return _PART.sub("", self.chunks[0].metadata.get("symbol") or "")

    def label(self) -> str:
        s, e = self.lines
        return f"## L{s}-{e} {self.name}".rstrip()

    def render(self) -> str:
        return (
            self.label()
            + "\n"
            + number_lines("".join(c.content for c in self.chunks).splitlines(), self.lines[0])
        )


def _rank_groups(app: App, view: FileView, query: str) -> list[_Group]:
    """Top-level groups of the file's chunks, best first, score > 0 only.

    A chunk scores BM25 over the file's chunks (normalised to the best, 0..1) plus the share
    of query words in its symbol name. Chunks of one symbol (split parts) form a sub-group;
    contiguous sub-groups under one top-level name (``Class``, ``Class.method`` …) form a
    group; a group scores its best sub-group.
    """
    from ctx_tree_store import query_words, split_identifier

    chunks = [c for c in view.chunks if c.content.strip()]
    fts = app.store.fts_scores(query, [c.id for c in chunks])
    top = max(fts.values(), default=0.0) or 1.0
    wordset = set(query_words(query))
    groups: list[_Group] = []
    last_top = last_sub = None
    for c in chunks:
        sym = c.metadata.get("symbol")
        sub_key = _PART.sub("", sym) if sym else c.id
        top_key = sub_key.split(".")[0] if sym else c.id
        sym_words = {w.lower() for w in split_identifier(sym or "")}
        name_hit = len(wordset & sym_words) / len(wordset) if sym_words and wordset else 0.0
        score = fts.get(c.id, 0.0) / top + name_hit
        if top_key != last_top:
            groups.append(_Group([]))
        group = groups[-1]
        if top_key != last_top or sub_key != last_sub:
            group.subs.append(_Group([]))
        group.chunks.append(c)
        group.subs[-1].chunks.append(c)
        group.subs[-1].score = max(group.subs[-1].score, score)
        group.score = max(group.score, score)
        last_top, last_sub = top_key, sub_key
    return sorted((g for g in groups if g.score > 0), key=lambda g: -g.score)


def _def_call(view: FileView, group: _Group) -> str:
    """The read that returns one definition: by symbol when its name is unique in the file,
    else by its lines."""
    if group.name and len(find_symbols(view.outline, group.name)) == 1:
        return call("ctx_tree_read", path=view.relative, symbol=group.name)
    return _range_call(view, *group.lines)


def _def_label(d: _Group) -> str:
    name = d.name or d.chunks[0].metadata.get("kind") or "lines"
    tokens = sum(estimate_tokens(c.content) for c in d.chunks)
    return f"{name} L{d.lines[0]}-{d.lines[1]} ({tokens:,}t)"


def _by_query(app: App, view: FileView, query: str, budget: int) -> str:
    """The definitions best matching ``query``, best first, as many as fit. Counts are of
    definitions (a symbol and its split parts); the best relevant one not shown in full is
    named in the manifest with the call that returns it."""
    from ctx_tree_store import query_words

    if not query_words(query):
        raise ToolInputError("query", "has no words to match; give a few words or identifiers")
    ranked = _rank_groups(app, view, query)
    if not ranked:
        return _outline(view, budget, note=f"no chunk matched {query!r}; outline instead")
    floor = RELEVANCE_FLOOR * ranked[0].score
    relevant = [g for g in ranked if g.score >= floor]
    defs = sorted((sub for g in ranked for sub in g.subs if sub.score > 0), key=lambda g: -g.score)
    relevant_defs = [d for d in defs if d.score >= floor]

    def body(room: int) -> tuple[str, tuple[list[Node], _Cut | None]]:
        parts: list[str] = []
        included: list[Node] = []
        head_cut: _Cut | None = None

        def add(group: _Group) -> bool:
            nonlocal room
            block = group.render()
            cost = estimate_tokens(block)
            if cost > room:
                return False
            parts.append(block)
            included.extend(group.chunks)
            room -= cost
            return True

        for group in relevant:
            if room < 30 and parts:
                break
            if add(group):  # the whole definition fits: keep it together
                continue
            for sub in sorted(group.subs, key=lambda g: -g.score):
                if sub.score >= floor and room >= 30:
                    add(sub)
            if not parts:  # best match larger than the budget: its head, and where it goes on
                best = max(group.subs, key=lambda g: g.score)
                text, head_cut = _slice(view, *best.lines, room, best.label())
                if head_cut.partial:  # a line longer than the budget: show it at the match
                    text, head_cut = _excerpt(view, head_cut, query, room, best.label()) or (
                        text,
                        head_cut,
                    )
                if not head_cut.empty:
                    parts.append(text)
                    included.extend(
                        _overlapping(view, best.lines[0], max(head_cut.shown_to, best.lines[0]))
                    )
                room = 0
        return "".join(parts), (included, head_cut)

    def manifest(state: tuple[list[Node], _Cut | None]) -> Manifest:
        included, head_cut = state
        ids = {c.id for c in included}
        short = head_cut if head_cut is not None and not head_cut.done else None
        shown = [
            d
            for d in defs
            if all(c.id in ids for c in d.chunks)
            and not (short is not None and d.lines[0] <= short.first <= d.lines[1])
        ]
        missing = [d for d in relevant_defs if d not in shown]
        m = Manifest(_head(view))
        m.add(
            "query",
            optional=True,
            text=f"{query!r}: {plural(len(defs), 'matching definition')}, {len(relevant_defs)} relevant,"
            f" {len(shown)} shown in full, best first",
        )
        if missing:
            m.add("not shown in full", _def_label(missing[0]))
            rest = ", ".join(_def_label(d) for d in missing[1:5])
            more = f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
            m.add("also not shown", rest + more, optional=True)
        if short is not None and short.skipped:
            m.add("excerpt", _not_shown(short))
        if short is not None and not short.empty:
            m.add("next", _continue(view, short))
        elif missing:
            m.add("next", _def_call(view, missing[0]))
        m.add("included", _included(included, 8), optional=True)
        m.add("omitted", _omitted(view, included), optional=True)
        return m

    return fitted_answer(budget, body, manifest, _file_tokens(view), "file")


def _entry_ids(view: FileView) -> list[str]:
    """Node id of the chunk holding each outline entry's definition line, in outline order
    (the chunks tile the file, so exactly one does). Same-named definitions (two
    ``### Parameters`` headings) each get their own chunk's id."""
    import bisect

    starts = [c.metadata["lines"][0] for c in view.chunks]
    ids: list[str] = []
    for e in view.outline:
        i = bisect.bisect_right(starts, e.def_line) - 1
        ids.append(view.chunks[i].id if i >= 0 and view.chunks else "")
    return ids


def _outline(view: FileView, budget: int, note: str = "") -> str:
    whole = number_lines(_lines_of(view, 1, view.total_lines), 1)
    if (
        not note
        and len(whole) <= MAX_CHARS_PER_TOKEN * budget
        and estimate_tokens(whole) <= budget - WHOLE_FILE_RESERVE
    ):
        # Small file: the whole file costs less than an outline would; nothing is left out.
        whole_manifest = Manifest(_head(view))
        whole_manifest.add("included", f"whole file, {len(view.chunks)} chunks", optional=True)
        return finish(whole, whole_manifest, budget, _file_tokens(view), "file")
    entries = list(view.outline)
    ids = _entry_ids(view)
    rows = [
        f"L{e.start}-{e.end} {e.kind} {e.name} {ids[i]}".rstrip() for i, e in enumerate(entries)
    ]
    top = [row for row, e in zip(rows, entries, strict=True) if "." not in e.name]

    def outline_text(room: int) -> tuple[str, str]:
        """The outline within ``room`` tokens: all of it, else top-level names, else cut."""
        text = "\n".join(rows)
        if estimate_tokens(text) <= room:
            return text, ""
        text = "\n".join(top)
        if estimate_tokens(text) <= room:
            return text, f"{len(entries) - len(top)} nested symbols not listed"
        return fit_lines(text, max(room, 0))[0].rstrip("\n"), "outline cut"

    def body(room: int) -> tuple[str, tuple[list[Node], int, str]]:
        title = (f"{note}\n" if note else "") + f"## outline ({len(entries)} symbols)\n"
        text, nested_note = outline_text(min(budget // 2, room) - estimate_tokens(title))
        head = title + (text + "\n" if text else "")
        room -= estimate_tokens(head) + 10
        parts: list[str] = []
        included: list[Node] = []
        last_line = 0
        for c in view.chunks:
            block = number_lines(c.content.splitlines(), c.metadata["lines"][0])
            cost = estimate_tokens(block)
            if cost > room:
                break
            parts.append(block)
            included.append(c)
            room -= cost
            last_line = c.metadata["lines"][1]
        return head + (f"## lines 1-{last_line}\n" + "".join(parts) if parts else ""), (
            included,
            last_line,
            nested_note,
        )

    def manifest(state: tuple[list[Node], int, str]) -> Manifest:
        included, last_line, nested_note = state
        m = Manifest(_head(view))
        if nested_note:
            m.add(
                "outline",
                f"{nested_note}; full outline: {call('ctx_tree_get', node_id=view.root.id)}",
            )
        m.add("included", _included(included), optional=True)
        m.add("omitted", _omitted(view, included), optional=True)
        if last_line < view.total_lines:
            m.add("next", call("ctx_tree_read", path=view.relative, start_line=last_line + 1))
        return m

    return fitted_answer(budget, body, manifest, _file_tokens(view), "file")


SPEC = ToolSpec(
    name="ctx_tree_read",
    description=DESCRIPTION,
    args=Args,
    handler=read,
    example={"path": "src/app.py", "symbol": "App.run", "budget_tokens": 800},
    help="read a file by symbol, line range or query, within a token budget",
    sugar=(
        Sugar(
            "--lines",
            ("start_line", "end_line"),
            "line range START:END (END optional), e.g. 40:80 or 170:",
            _parse_lines,
            _render_lines,
            short="-l",
            metavar="START:END",
        ),
    ),
)
