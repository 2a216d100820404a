"""``ctx_tree_read`` with no selector: a small file whole, else its outline (one line per
symbol with the chunk's node id) and as many of the first lines as fit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import MAX_CHARS_PER_TOKEN, WHOLE_FILE_RESERVE, estimate_tokens, fit_lines
from ..filecache import FileView
from ..render import Manifest, call, finish, fitted_answer, number_lines, split_lines
from .lookup import NOT_STORED
from .read_view import (
    file_tokens,
    file_what,
    included_summary,
    lines_of,
    omitted_summary,
    view_head,
)

if TYPE_CHECKING:
    from ctx_tree_schema import Node


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


def outline_text(rows: list[str], docs: list[str], top: list[bool], room: int) -> tuple[str, str]:
    """The outline rows within ``room`` tokens, and a note on what is not listed: every row
    with its doc summary (``" — doc"``), else every row without, else the top-level rows
    (``top[i]``), else those cut to fit."""
    if any(docs):
        text = "\n".join(
            f"{row} — {doc}" if doc else row for row, doc in zip(rows, docs, strict=True)
        )
        if estimate_tokens(text) <= room:
            return text, ""
    text = "\n".join(rows)
    if estimate_tokens(text) <= room:
        return text, ""
    text = "\n".join(row for row, is_top in zip(rows, top, strict=True) if is_top)
    if estimate_tokens(text) <= room:
        return text, f"{len(rows) - sum(top)} nested symbols not listed"
    return fit_lines(text, max(room, 0))[0].rstrip("\n"), "outline cut"


def outline_answer(view: FileView, budget: int, note: str = "") -> str:
    """The answer without a selector: the whole file when it fits with
    :data:`~ctx_tree_mcp.budget.WHOLE_FILE_RESERVE` to spare, else the outline (``note`` first)
    and as many of the first lines as fit."""
    whole = number_lines(lines_of(view, 1, view.total_lines), 1)
    if (
        not note
        and len(whole) <= MAX_CHARS_PER_TOKEN * budget
        and estimate_tokens(whole) <= budget - WHOLE_FILE_RESERVE
    ):
        # Small file: the whole file costs less than an outline would; nothing is left out.
        whole_manifest = Manifest(view_head(view))
        whole_manifest.add("included", f"whole file, {len(view.chunks)} chunks", optional=True)
        return finish(whole, whole_manifest, budget, file_tokens(view), file_what(view))
    entries = list(view.outline)
    ids = entry_ids(view)
    rows = [f"L{e.start}-{e.end} {e.label} {ids[i]}".rstrip() for i, e in enumerate(entries)]
    top = ["." not in e.name for e in entries]
    docs = entry_docs(view, ids)

    def body(room: int) -> tuple[str, tuple[list[Node], int, str]]:
        title = (f"{note}\n" if note else "") + f"## outline ({len(entries)} symbols)\n"
        room_left = min(budget // 2, room) - estimate_tokens(title)
        text, nested_note = outline_text(rows, docs, top, room_left)
        head = title + (text + "\n" if text else "")
        room -= estimate_tokens(head) + 10
        parts: list[str] = []
        included: list[Node] = []
        last_line = 0
        for c in view.chunks:
            block = number_lines(split_lines(c.content), c.metadata["lines"][0])
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
        m = Manifest(view_head(view))
        if nested_note:
            m.add(
                "outline",
                f"{nested_note}; full outline: "
                + (call("ctx_tree_get", node_id=view.root.id) if view.stored else NOT_STORED),
            )
        m.add("included", included_summary(included), optional=True)
        m.add("omitted", omitted_summary(view, included), optional=True)
        if last_line < view.total_lines:
            m.add("next", call("ctx_tree_read", path=view.relative, start_line=last_line + 1))
        return m

    return fitted_answer(budget, body, manifest, file_tokens(view), file_what(view))
