"""``ctx_tree_read`` with no selector: a small file whole, else its whole outline (one line
per symbol: its lines and its signature) and as many of the first lines as fit; ``next``
offers a symbol, not the next page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.budget import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines
from ctx_tree_mcp.answers.render import (
    Manifest,
    call,
    finish,
    fitted_answer,
    number_lines,
    split_lines,
)
from ctx_tree_mcp.answers.surface import argument_name, on_shell
from ctx_tree_mcp.engines.files.filecache import FileView
from ctx_tree_mcp.tools.lookup import NOT_STORED
from ctx_tree_mcp.tools.read_view import (
    Cut,
    continue_call,
    file_tokens,
    file_what,
    find_symbols,
    lines_of,
    slice_lines,
    truncation_hint,
    view_manifest,
)

if TYPE_CHECKING:
    from ctx_tree_mcp.engines.files.filecache import OutlineEntry


def entry_ids(view: FileView) -> list[str]:
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


#: Characters of a symbol's doc summary an outline row shows (cut at a word, with "…").
OUTLINE_DOC_CHARS = 60


def entry_docs(view: FileView, ids: list[str]) -> list[str]:
    """Each outline entry's doc summary cut to :data:`OUTLINE_DOC_CHARS` ("" when it has
    none): the ``doc`` of the chunk that starts the entry's symbol."""
    by_id = {c.id: c.metadata for c in view.chunks}
    docs: list[str] = []
    for e, node_id in zip(view.outline, ids, strict=True):
        meta = by_id.get(node_id) or {}
        doc = meta.get("doc") or ""
        if meta.get("symbol") not in (e.name, f"{e.name}#1"):
            doc = ""  # the chunk holding the line starts another symbol (a nested one)
        if len(doc) > OUTLINE_DOC_CHARS:
            cut = doc.rfind(" ", 0, OUTLINE_DOC_CHARS)
            doc = doc[: cut if cut > 0 else OUTLINE_DOC_CHARS - 1].rstrip(" ,;:") + "…"
        docs.append(doc)
    return docs


#: Tokens of a whole read's room an outline with signatures leaves for code at least (else
#: the outline shows names only).
OUTLINE_CODE_MIN = 300


def outline_text(
    rows: list[str],
    docs: list[str],
    top: list[bool],
    room: int,
    names: list[str] | None = None,
    folded: list[str] | None = None,
) -> tuple[str, str]:
    """The outline rows within ``room`` tokens, and a note on what is not listed: every row
    with its doc summary (``" — doc"``), else every row without, when that leaves
    :data:`OUTLINE_CODE_MIN` tokens of the room for code; else the ``names`` form (line
    range and name, no signature), else the ``folded`` form (each top-level row with its
    members' names on it), the first that takes at most half the room (the other half shows
    code), else the first that fits; else the top-level rows (``top[i]``), else those cut to
    fit."""
    rich: list[list[str]] = []
    if any(docs):
        rich.append([f"{row} — {doc}" if doc else row for row, doc in zip(rows, docs, strict=True)])
    rich.append(rows)
    for form in rich:
        text = "\n".join(form)
        if estimate_tokens(text) <= room - OUTLINE_CODE_MIN:
            return text, ""
    compact = [f for f in (names, folded) if f is not None] or [rows]
    for limit in (room // 2, room):
        for form in compact:
            text = "\n".join(form)
            if estimate_tokens(text) <= limit:
                return text, ""
    if names is not None:
        rows = names
    text = "\n".join(row for row, is_top in zip(rows, top, strict=True) if is_top)
    if estimate_tokens(text) <= room:
        return text, f"{len(rows) - sum(top)} nested symbols not listed"
    return fit_lines(text, max(room, 0))[0].rstrip("\n"), "outline cut"


#: Characters of a signature an outline row shows (cut with "…").
SIGNATURE_CHARS = 100
#: A definition line longer than this (minified code) is not a signature: its row shows the
#: entry's label, as does a line that holds several definitions.
SIGNATURE_LINE_CHARS = 1000


def signature(view: FileView, entry: OutlineEntry, line: str | None = None) -> str:
    """The entry's definition line as an outline row shows it: stripped, without a closing
    ``:`` or ``{``, cut at :data:`SIGNATURE_CHARS`; the entry's label when the line does not
    name it (a Markdown heading, a JSON key) or is longer than :data:`SIGNATURE_LINE_CHARS`.
    ``line``: that line's text, when the caller has it."""
    if line is None:
        line = " ".join(lines_of(view, entry.def_line, entry.def_line))
    text = line.strip()
    bare = entry.name.split(".")[-1]
    if not text or len(text) > SIGNATURE_LINE_CHARS or bare not in text:
        return entry.label
    text = text.rstrip("{:").rstrip()
    if len(text) > SIGNATURE_CHARS:
        text = text[: SIGNATURE_CHARS - 1].rstrip() + "…"
    return text


def signatures(view: FileView) -> list[str]:
    """:func:`signature` of every outline entry, each definition line taken once; an entry
    whose line holds other definitions too (one-line classes, minified code) shows its
    label: the line's head would name another one."""
    from collections import Counter

    defs = Counter(e.def_line for e in view.outline)
    rows: list[str] = []
    for e in view.outline:
        if defs[e.def_line] > 1:
            rows.append(e.label)
        else:
            rows.append(signature(view, e, " ".join(lines_of(view, e.def_line, e.def_line))))
    return rows


#: Tokens the outline must leave for the file's first lines to be shown when no whole chunk
#: fits (a line longer than the room): below it the outline is the answer.
MIN_LINES_ROOM = 50


def _folded(entries: list[OutlineEntry], depth: list[int]) -> list[str]:
    """The outline's top-level rows, each with its direct members' names after it
    (``862-1649 class Plotter: __init__ save show …``): every name of a class at a third of
    a row each."""
    out: list[str] = []
    for i, (e, d) in enumerate(zip(entries, depth, strict=True)):
        if d:
            continue
        members = [
            m.name.rsplit(".", 1)[-1]
            for m, md in zip(entries[i + 1 :], depth[i + 1 :], strict=True)
            if md == 1 and m.name.startswith(e.name + ".")
        ]
        out.append(f"{e.start}-{e.end} {e.label}" + (f": {' '.join(members)}" if members else ""))
    return out


#: Fewest tokens of a chunk cut to fill an outline answer's last room (fewer: left empty).
PART_MIN_TOKENS = 40


def top_and_end(
    view: FileView, blocks: list[str], costs: list[int], room: int, *, halves: bool = False
) -> tuple[str, str, int, int]:
    """The top and the end of the file within ``room`` tokens, as numbered lines: ``blocks``
    are the chunks numbered, ``costs`` their tokens. Returns the top's text, the end's text,
    the top's last line (0: none) and the end's first line (0: none).

    In about equal shares: a module's end holds what its head does not (entry points,
    registrations, the last definitions). The side shown less so far (the end, at first)
    takes its next chunk; when that does not fit, the other side goes on alone. ``halves``:
    first each side within half the room (one long last function does not crowd out the
    head's small definitions), then either within all that is left. The room no whole chunk
    fits goes to
    the side shown less, cut at a line: the last lines of the end's next chunk, or the first
    lines of the top's."""
    top_n, end_n = 0, len(blocks)
    top_used = end_used = 0
    share = room // 2  # with ``halves``: first each side within its half, then within the rest
    while top_n < end_n:
        top_fits = (top_used if halves else 0) + costs[top_n] <= (share if halves else room)
        end_fits = (end_used if halves else 0) + costs[end_n - 1] <= (share if halves else room)
        if halves and not (top_fits or end_fits):
            halves = False
            continue
        if top_fits and (top_used < end_used or not end_fits):
            room -= costs[top_n]
            top_used += costs[top_n]
            top_n += 1
        elif end_fits:
            room -= costs[end_n - 1]
            end_used += costs[end_n - 1]
            end_n -= 1
        else:
            break
    last_line = view.chunks[top_n - 1].metadata["lines"][1] if top_n else 0
    resume = view.chunks[end_n].metadata["lines"][0] if end_n < len(blocks) else 0
    top_text, end_text = "".join(blocks[:top_n]), "".join(blocks[end_n:])
    if top_n < end_n and room - 10 >= PART_MIN_TOKENS:
        if end_used <= top_used:
            chunk = view.chunks[end_n - 1]
            lines = split_lines(chunk.content)
            first = chunk.metadata["lines"][0]
            k = len(lines)
            while (
                k > 0 and estimate_tokens(number_lines(lines[k - 1 :], first + k - 1)) <= room - 10
            ):
                k -= 1
            if k < len(lines):
                end_text = number_lines(lines[k:], first + k) + end_text
                resume = first + k
        else:
            part, _cut = fit_lines(blocks[top_n], room - 10)
            if part.endswith("\n"):
                top_text += part
                last_line += part.count("\n")
    return top_text, end_text, last_line, resume


def outline_answer(view: FileView, budget: int, note: str = "", numbered: bool = True) -> str:
    """The answer without a selector: the whole file when it fits the budget (nothing else:
    it is what a native read prints), else the whole outline (``note`` first), every symbol
    with its line range and signature, nested ones indented, and as many lines of the top and
    of the end of the file as fit (whole chunks, then the room left to the side shown less,
    cut at a line; docs/tools.md). An outline that would leave code less than
    :data:`OUTLINE_CODE_MIN` and half the room lists only the symbols the code, given its half
    first and each side half of that first, does not show whole. ``next`` reads the first definition
    not shown, by symbol. ``numbered`` False: the whole file as plain lines (as ``cat``
    prints it); the outline's lines stay numbered."""
    # the file's characters bound its numbered text from below: past the budget, not built
    if not note and sum(len(c.content) for c in view.chunks) <= MAX_CHARS_PER_TOKEN * budget:
        all_lines = lines_of(view, 1, view.total_lines)
        whole = number_lines(all_lines, 1) if numbered else "".join(f"{ln}\n" for ln in all_lines)
        if len(whole) <= MAX_CHARS_PER_TOKEN * budget and estimate_tokens(whole) <= budget:
            whole_manifest = view_manifest(view)
            whole_manifest.complete = not view.root.truncated
            if view.root.truncated:
                whole_manifest.add("truncated", truncation_hint(view).removeprefix("; "))
            return finish(whole, whole_manifest, budget, 0, "", terse=True)
    entries = list(view.outline)
    depth = [e.name.count(".") for e in entries]
    rows = [
        f"{'  ' * d}{e.start}-{e.end} {sig}"
        for d, e, sig in zip(depth, entries, signatures(view), strict=True)
    ]
    names = [f"{'  ' * d}{e.start}-{e.end} {e.label}" for d, e in zip(depth, entries, strict=True)]
    folded = _folded(entries, depth)
    top = [d == 0 for d in depth]
    docs = entry_docs(view, entry_ids(view))
    pick = argument_name("ctx_tree_read", "symbol")
    pick += " NAME" if pick.startswith("-") else "=NAME"
    # a routed `cat` (docs/routing.md): the rows' line ranges are what the shell reads by
    pick_note = "" if on_shell() else f"; {pick} reads one"

    # The chunks as numbered lines, made once: the body is fitted more than once.
    blocks = [number_lines(split_lines(c.content), c.metadata["lines"][0]) for c in view.chunks]
    costs = [estimate_tokens(b) for b in blocks]

    def body(room: int) -> tuple[str, tuple[int, int, str, Cut | None]]:
        # a file without definitions (a log, a text): its top and end alone
        outline = f"## outline ({len(entries)} symbols{pick_note})\n" if entries else ""
        title = (f"{note}\n" if note else "") + outline
        room_left = room - 40 - estimate_tokens(title)
        text, nested_note = outline_text(rows, docs, top, room_left, names, folded)
        if estimate_tokens(text) <= max(room_left // 2, room_left - OUTLINE_CODE_MIN):
            head = title + (text + "\n" if text else "")
            room -= estimate_tokens(head) + 20
            top_text, end_text, last_line, resume = top_and_end(view, blocks, costs, room)
        else:
            # No form of the outline leaves OUTLINE_CODE_MIN or half the room for code: the
            # code takes its half first, and the outline lists the symbols it does not show
            # whole.
            room -= estimate_tokens(title) + 20
            top_text, end_text, last_line, resume = top_and_end(
                view, blocks, costs, room // 2, halves=True
            )
            unseen = [not (e.end <= last_line or 0 < resume <= e.start) for e in entries]
            listed = [row for row, keep in zip(names, unseen, strict=True) if keep]
            text, nested_note = outline_text(
                listed,
                [""] * len(listed),
                [t for t, keep in zip(top, unseen, strict=True) if keep],
                room - estimate_tokens(top_text + end_text) - 20,
            )
            head = title + (text + "\n" if text else "")
            room -= estimate_tokens(head) - estimate_tokens(title)
        out = head
        if last_line:
            out += f"## lines 1-{last_line}\n" + top_text
        elif blocks and not resume and room >= MIN_LINES_ROOM:
            # No chunk fits, though the outline left room (a line longer than it: minified
            # code, one-line JSON): the first lines, or the first cut by characters, rather
            # than no content at all.
            first = view.chunks[0].metadata["lines"]
            part, cut = slice_lines(
                view, first[0], first[1], room, f"## lines {first[0]}-{first[1]}", numbered
            )
            if not cut.empty:
                return out + part, (cut.shown_to, 0, nested_note, cut)
        if resume:
            out += f"## lines {resume}-{view.total_lines}\n" + end_text
        return out, (last_line, resume, nested_note, None)

    def manifest(state: tuple[int, int, str, Cut | None]) -> Manifest:
        last_line, resume, nested_note, cut = state
        shown = [
            f"lines {a}-{b}"
            for a, b in ((1, last_line), (resume, view.total_lines))
            if a and b >= a
        ]
        if cut is not None and cut.partial:
            shown.append(f"line {cut.first} in part ({cut.partial:,} characters)")
        elif cut is not None:
            shown.append(f"lines {cut.first}-{cut.shown_to}")
        m = view_manifest(view, "; shown: " + ", ".join(["outline", *shown]))
        if nested_note:
            m.add(
                "outline",
                f"{nested_note}; full outline: "
                + (call("ctx_tree_get", node_id=view.root.id) if view.stored else NOT_STORED),
            )
        if cut is not None:  # the line cut by characters goes on from where it was cut
            following, more = continue_call(view, cut, numbered)
            m.add("next", following)
            m.add("more", more)
            return m
        gap_end = (resume - 1) if resume else view.total_lines
        after = next((e for e in entries if last_line < e.start <= gap_end), None)
        plain = False if on_shell() and not numbered else None
        if after is not None and on_shell():
            m.add(
                "next",
                call(
                    "ctx_tree_read",
                    path=view.relative,
                    start_line=after.start,
                    end_line=after.end,
                    numbers=plain,
                ),
            )
        elif after is not None and len(find_symbols(view.outline, after.name)) == 1:
            m.add("next", call("ctx_tree_read", path=view.relative, symbol=after.name))
        elif last_line < gap_end:
            m.add(
                "next",
                call(
                    "ctx_tree_read",
                    path=view.relative,
                    start_line=last_line + 1,
                    end_line=gap_end,
                    numbers=plain,
                ),
            )
        return m

    return fitted_answer(budget, body, manifest, file_tokens(view), file_what(view), terse=True)
