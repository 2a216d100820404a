"""``ctx_tree_read``: a file's slice by symbol, line range or query, or its outline (docs/tools.md).

Every answer holds real content checked against the file on disk (mtime, size and sha256):
a cache hit only skips parsing; it is never an "unchanged" stub.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ..budget import check_budget, estimate_tokens, fit_lines
from ..errors import ToolInputError
from ..filecache import FileView, OutlineEntry, load, mark_gone
from ..render import Manifest, call, finish, fitted_answer, number_lines
from ..surface import tool_ref
from .spec import Budget, Cli, Input, Sugar, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ..app import App

DESCRIPTION = (
    "Read a file by symbol, line range or query within budget_tokens; with none, outline + "
    "first chunks. The full file is stored; the manifest says how to get more."
)


class Args(Input):
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


def _render_lines(values: dict[str, Any]) -> str | None:
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
    app.count(tokens_served=estimate_tokens(text), tokens_source=_file_tokens(view), reads=1)
    return text


def _resolve(app: App, path: str):
    try:
        return app.policy.resolve_file(path)
    except ToolInputError as exc:
        if "does not exist" in str(exc):
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
    return f"{view.relative} · {view.total_lines} lines · {view.language or 'text'} · file node {view.root.id}{flags}{trunc}"


def _slice(view: FileView, first: int, last: int, room: int, label: str) -> tuple[str, int, bool]:
    """Numbered lines first..last fitted into ``room`` tokens; returns (body, last line shown, cut)."""
    head = f"{label}\n" if label else ""
    body = number_lines(_lines_of(view, first, last), first)
    fitted, cut = fit_lines(body, max(0, room - estimate_tokens(head)))
    shown = fitted.count("\n")
    return head + fitted, first + shown - 1, cut


def _omitted(view: FileView, included: Sequence[Node]) -> str:
    ids = {c.id for c in included}
    rest = [c for c in view.chunks if c.id not in ids]
    if not rest:
        return ""
    names = [c.metadata.get("symbol") for c in rest if c.metadata.get("symbol")]
    shown = ", ".join(dict.fromkeys(_PART.sub("", n) for n in names[:8]))
    more = f" (+{len(rest) - 8} more)" if len(rest) > 8 else ""
    tokens = sum(estimate_tokens(c.content) for c in rest)
    return f"{len(rest)} chunks, {tokens:,}t" + (f": {shown}{more}" if shown else "")


def _included(chunks: Sequence[Node], limit: int = 6) -> str:
    more = f" (+{len(chunks) - limit} more)" if len(chunks) > limit else ""
    return "; ".join(_chunk_label(c) for c in chunks[:limit]) + more


def _range_answer(view: FileView, first: int, last: int, budget: int, label: str) -> str:
    def body(room: int) -> tuple[str, tuple[int, bool]]:
        text, shown_to, cut = _slice(view, first, last, room, label)
        return text, (shown_to, cut)

    def manifest(state: tuple[int, bool]) -> Manifest:
        shown_to, cut = state
        m = Manifest(_head(view))
        included = _overlapping(view, first, shown_to)
        m.add("included", _included(included))
        if cut:
            m.add("truncated", f"lines {shown_to + 1}-{last} not shown")
            m.add(
                "next",
                call("ctx_tree_read", path=view.relative, start_line=shown_to + 1, end_line=last),
            )
        m.add("omitted", _omitted(view, included))
        return m

    return fitted_answer(budget, body, manifest, _file_tokens(view), "file")


def find_symbol(outline: Sequence[OutlineEntry], symbol: str) -> OutlineEntry | None:
    """Exact qualified name, then unique suffix (``request`` → ``Session.request``), then
    case-insensitive; None when nothing matches."""
    wanted = symbol.strip()
    for entry in outline:
        if entry.name == wanted:
            return entry
    tail = [e for e in outline if e.name.split(".")[-1] == wanted or e.name.endswith("." + wanted)]
    if tail:
        return tail[0]
    lowered = wanted.lower()
    for entry in outline:
        if entry.name.lower() == lowered or entry.name.lower().split(".")[-1] == lowered:
            return entry
    # Go-style receiver written with a pointer, Rust "impl X" etc.: compare alphanumerics only.
    squashed = re.sub(r"[^0-9a-z.]", "", lowered)
    for entry in outline:
        if re.sub(r"[^0-9a-z.]", "", entry.name.lower()) == squashed:
            return entry
    return None


def _by_symbol(view: FileView, symbol: str, budget: int) -> str:
    entry = find_symbol(view.outline, symbol)
    if entry is None:
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
    label = f"## {entry.name} ({entry.kind}) L{entry.start}-{entry.end}"
    return _range_answer(view, entry.start, entry.end, budget, label)


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

    def render(self) -> str:
        first = self.chunks[0]
        s, e = first.metadata["lines"][0], self.chunks[-1].metadata["lines"][1]
        label = f"## L{s}-{e} {_PART.sub('', first.metadata.get('symbol') or '')}".rstrip()
        return label + "\n" + number_lines("".join(c.content for c in self.chunks).splitlines(), s)


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


def _by_query(app: App, view: FileView, query: str, budget: int) -> str:
    from ctx_tree_store import query_words

    if not query_words(query):
        raise ToolInputError("query", "has no words to match; give a few words or identifiers")
    ranked = _rank_groups(app, view, query)
    if not ranked:
        return _outline(view, budget, note=f"no chunk matched {query!r}; outline instead")
    floor = RELEVANCE_FLOOR * ranked[0].score
    relevant = [g for g in ranked if g.score >= floor]

    def body(room: int) -> tuple[str, list[Node]]:
        parts: list[str] = []
        included: list[Node] = []

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
            if room < 30:
                break
            if add(group):  # the whole definition fits: keep it together
                continue
            for sub in sorted(group.subs, key=lambda g: -g.score):
                if sub.score >= floor and room >= 30:
                    add(sub)
            if not parts and room > 50:  # best match larger than the budget: its head
                best = max(group.subs, key=lambda g: g.score)
                parts.append(fit_lines(best.render(), room)[0])
                included.extend(best.chunks)
                room = 0
        return "".join(parts), included

    def manifest(included: list[Node]) -> Manifest:
        m = Manifest(_head(view))
        m.add(
            "query",
            f"{query!r}: {len(ranked)} matching definitions, {len(relevant)} relevant, best first",
        )
        m.add("included", _included(included, 8))
        m.add("omitted", _omitted(view, included))
        m.add(
            "more",
            f"{call('ctx_tree_read', path=view.relative, symbol='…')} or "
            f"{tool_ref('ctx_tree_get')} with a chunk's node id",
        )
        return m

    return fitted_answer(budget, body, manifest, _file_tokens(view), "file")


def _symbol_ids(view: FileView) -> dict[str, str]:
    """Symbol name → id of the chunk holding it (its own chunk, else the one with its def line)."""
    ids: dict[str, str] = {}
    for c in view.chunks:
        sym = c.metadata.get("symbol")
        if sym:
            ids.setdefault(_PART.sub("", sym), c.id)
    for e in view.outline:
        if e.name not in ids:
            for c in view.chunks:
                s, end = c.metadata["lines"]
                if s <= e.def_line <= end:
                    ids[e.name] = c.id
                    break
    return ids


def _outline(view: FileView, budget: int, note: str = "") -> str:
    whole = number_lines(_lines_of(view, 1, view.total_lines), 1)
    if not note and estimate_tokens(whole) <= budget - 60:
        # Small file: the whole file costs less than an outline would; nothing is left out.
        manifest = Manifest(_head(view))
        manifest.add("included", f"whole file, {len(view.chunks)} chunks")
        return finish(whole, manifest, budget, _file_tokens(view), "file")
    entries = list(view.outline)
    outline_room = budget // 2
    ids = _symbol_ids(view)

    def row(e: OutlineEntry) -> str:
        return f"L{e.start}-{e.end} {e.kind} {e.name} {ids.get(e.name, '')}".rstrip()

    text = "\n".join(row(e) for e in entries)
    nested_note = ""
    if estimate_tokens(text) > outline_room:
        top = [row(e) for e in entries if "." not in e.name]
        text = "\n".join(top)
        nested_note = f"{len(entries) - len(top)} nested symbols not listed"
        if estimate_tokens(text) > outline_room:
            text, _ = fit_lines(text, outline_room)
            nested_note = "outline cut"
    head = (
        (f"{note}\n" if note else "")
        + f"## outline ({len(entries)} symbols)\n"
        + (text + "\n" if text else "")
    )

    def body(room: int) -> tuple[str, tuple[list[Node], int]]:
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
        )

    def manifest(state: tuple[list[Node], int]) -> Manifest:
        included, last_line = state
        m = Manifest(_head(view))
        if nested_note:
            m.add(
                "outline",
                f"{nested_note}; full outline: {call('ctx_tree_get', node_id=view.root.id)}",
            )
        m.add("included", _included(included))
        m.add("omitted", _omitted(view, included))
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
