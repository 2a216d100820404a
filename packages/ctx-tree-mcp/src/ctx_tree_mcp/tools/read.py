"""``ctx_tree_read``: a file's slice by symbol, line range or query, or its outline (issue 5).

Every answer holds real content checked against the file on disk (mtime, size and sha256):
a cache hit only skips parsing; it is never an "unchanged" stub.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..budget import check_budget, estimate_tokens, fit_lines
from ..errors import ToolInputError
from ..filecache import FileView, OutlineEntry, load, mark_gone
from ..render import Manifest, call, finish, number_lines

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ..app import App

DESCRIPTION = (
    "Read a file (path relative to the project root) by symbol, line range or query, within "
    "budget_tokens. With none: outline + first chunks. Full file is stored; the manifest says how to get more."
)
MANIFEST_RESERVE = 120  # tokens kept back for the manifest while fitting the body
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
    app.store.bump(tokens_served=estimate_tokens(text), tokens_source=_file_tokens(view), reads=1)
    return text


def _resolve(app: App, path: str):
    from ..paths import PathPolicy  # noqa: F401  (policy lives on app)

    try:
        return app.policy.resolve_file(path)
    except ToolInputError as exc:
        if "does not exist" in str(exc):
            with contextlib.suppress(ToolInputError):
                mark_gone(app, app.policy.resolve(path))
        raise


def _file_tokens(view: FileView) -> int:
    return sum(estimate_tokens(c.content) for c in view.chunks) + estimate_tokens(
        "".join(f"{n}\t\n" for n in range(1, view.total_lines + 1))
    )


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


def _slice(view: FileView, first: int, last: int, budget: int, label: str) -> tuple[str, int, bool]:
    """Numbered lines first..last fitted into budget; returns (body, last line shown, cut)."""
    lines = _lines_of(view, first, last)
    body = number_lines(lines, first)
    fitted, cut = fit_lines(body, max(0, budget - MANIFEST_RESERVE))
    shown = fitted.count("\n")
    return (f"{label}\n" if label else "") + fitted, first + shown - 1, cut


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


def _range_answer(view: FileView, first: int, last: int, budget: int, label: str) -> str:
    body, shown_to, cut = _slice(view, first, last, budget, label)
    manifest = Manifest(_head(view))
    included = _overlapping(view, first, shown_to)
    manifest.add(
        "included",
        "; ".join(_chunk_label(c) for c in included[:6])
        + (f" (+{len(included) - 6} more)" if len(included) > 6 else ""),
    )
    if cut:
        manifest.add("truncated", f"lines {shown_to + 1}-{last} not shown")
        manifest.add(
            "next",
            call("ctx_tree_read", path=view.relative, start_line=shown_to + 1, end_line=last),
        )
    manifest.add("omitted", _omitted(view, included))
    return finish(body, manifest, budget, _file_tokens(view), "file")


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
        names = [e.name for e in view.outline]
        close = difflib.get_close_matches(
            symbol, names, n=5, cutoff=0.5
        ) or difflib.get_close_matches(
            symbol.split(".")[-1], [n.split(".")[-1] for n in names], n=5, cutoff=0.5
        )
        hint = f"nearest: {', '.join(close)}" if close else f"{len(names)} symbols in the file"
        raise ToolInputError(
            "symbol",
            f"{symbol!r} not found in {view.relative} ({hint}); call ctx_tree_read(path) for the outline",
        )
    label = f"## {entry.name} ({entry.kind}) L{entry.start}-{entry.end}"
    return _range_answer(view, entry.start, entry.end, budget, label)


def _by_lines(view: FileView, first: int, last: int | None, budget: int) -> str:
    total = view.total_lines
    if first > max(total, 1):
        raise ToolInputError(
            "start_line", f"{first} is past the end of {view.relative} ({total} lines)"
        )
    last = min(last or total, total)
    return _range_answer(view, first, last, budget, "")


def _by_query(app: App, view: FileView, query: str, budget: int) -> str:
    from ctx_tree_store import query_words, split_identifier

    words = query_words(query)
    if not words:
        raise ToolInputError("query", "has no words to match; give a few words or identifiers")
    chunks = [c for c in view.chunks if c.content.strip()]
    fts = app.store.fts_scores(query, [c.id for c in chunks])
    top = max(fts.values(), default=0.0) or 1.0
    wordset = set(words)
    groups: dict[str, list[Node]] = {}
    scores: dict[str, float] = {}
    for c in chunks:
        sym = c.metadata.get("symbol")
        key = _PART.sub("", sym) if sym else c.id
        sym_words = {w.lower() for w in split_identifier(sym or "")}
        name_hit = len(wordset & sym_words) / len(wordset) if sym_words else 0.0
        score = fts.get(c.id, 0.0) / top + name_hit
        groups.setdefault(key, []).append(c)
        scores[key] = max(scores.get(key, 0.0), score)
    ranked = [k for k in sorted(groups, key=lambda k: -scores[k]) if scores[k] > 0]
    if not ranked:
        return _outline(view, budget, note=f"no chunk matched {query!r}; outline instead")
    room = budget - MANIFEST_RESERVE - 40
    parts: list[str] = []
    included: list[Node] = []
    for key in ranked:
        group = groups[key]
        s, e = group[0].metadata["lines"][0], group[-1].metadata["lines"][1]
        block = (
            f"## L{s}-{e} {group[0].metadata.get('symbol') or ''}".rstrip()
            + "\n"
            + number_lines("".join(c.content for c in group).splitlines(), s)
        )
        cost = estimate_tokens(block)
        if cost <= room:
            parts.append(block)
            included.extend(group)
            room -= cost
        elif not parts and room > 50:  # best match larger than the budget: show its head
            fitted, _ = fit_lines(block, room)
            parts.append(fitted)
            included.extend(group)
            room = 0
        if room < 30:
            break
    manifest = Manifest(_head(view))
    manifest.add("query", f"{query!r}: {len(ranked)} matching chunks, best first")
    manifest.add(
        "included",
        "; ".join(_chunk_label(c) for c in included[:8])
        + (f" (+{len(included) - 8} more)" if len(included) > 8 else ""),
    )
    manifest.add("omitted", _omitted(view, included))
    manifest.add(
        "more", "ctx_tree_read(path, symbol=…) or ctx_tree_get(node_id) for any chunk above"
    )
    return finish("".join(parts), manifest, budget, _file_tokens(view), "file")


def _outline(view: FileView, budget: int, note: str = "") -> str:
    entries = list(view.outline)
    outline_room = budget // 2
    lines = [f"L{e.start}-{e.end} {e.kind} {e.name}" for e in entries]
    text = "\n".join(lines)
    nested_note = ""
    if estimate_tokens(text) > outline_room:
        top = [f"L{e.start}-{e.end} {e.kind} {e.name}" for e in entries if "." not in e.name]
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
    room = budget - MANIFEST_RESERVE - estimate_tokens(head) - 10
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
    body = head + ("## lines 1-%d\n" % last_line + "".join(parts) if parts else "")
    manifest = Manifest(_head(view))
    if nested_note:
        manifest.add(
            "outline", f"{nested_note}; full outline: {call('ctx_tree_get', node_id=view.root.id)}"
        )
    manifest.add(
        "included",
        "; ".join(_chunk_label(c) for c in included[:6])
        + (f" (+{len(included) - 6} more)" if len(included) > 6 else ""),
    )
    manifest.add("omitted", _omitted(view, included))
    if last_line < view.total_lines:
        manifest.add("next", call("ctx_tree_read", path=view.relative, start_line=last_line + 1))
    return finish(body, manifest, budget, _file_tokens(view), "file")
