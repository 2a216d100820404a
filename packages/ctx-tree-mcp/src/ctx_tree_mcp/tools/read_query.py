"""``ctx_tree_read`` by query: the file's definitions ranked by the query's words, the best
shown whole within the budget, the rest named in the manifest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.budget import estimate_tokens
from ctx_tree_mcp.answers.render import (
    Manifest,
    call,
    fitted_answer,
    number_lines,
    plural,
    split_lines,
)
from ctx_tree_mcp.engines.files.filecache import FileView
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.read_outline import outline_answer
from ctx_tree_mcp.tools.read_view import (
    PART,
    Cut,
    continue_call,
    excerpt_at,
    file_tokens,
    file_what,
    find_symbols,
    not_shown,
    overlapping,
    range_call,
    slice_lines,
    view_manifest,
)

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ctx_tree_mcp.app import App


RELEVANCE_FLOOR = 0.3  # query mode: chunks scoring below this share of the best are left out


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
        return PART.sub("", self.chunks[0].metadata.get("symbol") or "")

    def label(self) -> str:
        s, e = self.lines
        return f"## L{s}-{e} {self.name}".rstrip()

    def render(self) -> str:
        return (
            self.label()
            + "\n"
            + number_lines(split_lines("".join(c.content for c in self.chunks)), self.lines[0])
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
        sub_key = PART.sub("", sym) if sym else c.id
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
    return range_call(view, *group.lines)


def _def_label(d: _Group) -> str:
    name = d.name or d.chunks[0].metadata.get("kind") or "lines"
    tokens = sum(estimate_tokens(c.content) for c in d.chunks)
    return f"{name} L{d.lines[0]}-{d.lines[1]} ({tokens:,}t)"


def by_query(app: App, view: FileView, query: str, budget: int) -> str:
    """The definitions best matching ``query``, best first, as many as fit. Counts are of
    definitions (a symbol and its split parts); the best relevant one not shown in full is
    named in the manifest with the call that returns it."""
    from ctx_tree_store import query_words

    if not query_words(query):
        raise ToolInputError("query", "has no words to match; give a few words or identifiers")
    ranked = _rank_groups(app, view, query)
    if not ranked:
        return outline_answer(view, budget, note=f"no chunk matched {query!r}; outline instead")
    floor = RELEVANCE_FLOOR * ranked[0].score
    relevant = [g for g in ranked if g.score >= floor]
    defs = sorted((sub for g in ranked for sub in g.subs if sub.score > 0), key=lambda g: -g.score)
    relevant_defs = [d for d in defs if d.score >= floor]

    def body(room: int) -> tuple[str, tuple[list[Node], Cut | None]]:
        parts: list[str] = []
        included: list[Node] = []
        head_cut: Cut | None = None

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
                text, head_cut = slice_lines(view, *best.lines, room, best.label())
                if head_cut.partial:  # a line longer than the budget: show it at the match
                    text, head_cut = excerpt_at(view, head_cut, query, room, best.label()) or (
                        text,
                        head_cut,
                    )
                if not head_cut.empty:
                    parts.append(text)
                    included.extend(
                        overlapping(view, best.lines[0], max(head_cut.shown_to, best.lines[0]))
                    )
                room = 0
        return "".join(parts), (included, head_cut)

    def manifest(state: tuple[list[Node], Cut | None]) -> Manifest:
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
        m = view_manifest(view)
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
            m.add("excerpt", not_shown(short))
        if short is not None and not short.empty:
            following, more = continue_call(view, short)
            m.add("next", following)
            m.add("more", more)
        elif missing:
            m.add("next", _def_call(view, missing[0]))
        return m

    return fitted_answer(budget, body, manifest, file_tokens(view), file_what(view), terse=True)
