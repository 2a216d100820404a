"""``ctx_tree_read``: a file's slice by symbol, line range or query, or its outline (docs/tools.md).

Every answer holds real content checked against the file on disk (mtime, size and sha256):
a cache hit only skips parsing; it is never an "unchanged" stub.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ctx_tree_mcp.answers.budget import estimate_tokens
from ctx_tree_mcp.answers.render import call
from ctx_tree_mcp.engines.files.filecache import FileView, load, mark_gone
from ctx_tree_mcp.engines.files.largefile import LARGE_FILE_BYTES
from ctx_tree_mcp.errors import PathMissing, ToolInputError
from ctx_tree_mcp.tools.read_large import large_answer
from ctx_tree_mcp.tools.read_outline import entry_ids, outline_answer
from ctx_tree_mcp.tools.read_query import by_query
from ctx_tree_mcp.tools.read_view import (
    file_tokens,
    find_symbols,
    range_answer,
    ranges_answer,
    truncation_hint,
)
from ctx_tree_mcp.tools.spec import Budget, Cli, Input, Sugar, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.policy.paths import ResolvedPath

DESCRIPTION = (
    "Read a file within budget_tokens: whole if it fits, else outline + top/end; or by symbol, "
    "lines or query; a dir: its ranked map."
)


class Args(Input):
    """Arguments of ``ctx_tree_read``."""

    path: Annotated[
        str,
        Field(description="under the project root"),
        Cli("file, relative to the project root (or absolute inside it)", positional=True),
    ]
    symbol: Annotated[
        str | None,
        Field(description="Class.method or a name"),
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
        Field(description="what you seek"),
        Cli("words; the best-matching chunks come first", short="-q"),
    ] = None
    numbers: Annotated[
        bool, Cli("number the lines (`cat -n`); `--no-numbers`: plain, as `cat`/`sed -n`")
    ] = True
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


def read(
    app: App,
    path: str,
    symbol: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
    query: str | None = None,
    budget_tokens: int = 2000,
    numbers: bool = True,
) -> str:
    """Handle ``ctx_tree_read``; returns the answer text (content, then manifest).

    ``numbers`` False: the lines of a whole file, a range or a symbol come plain, as
    ``cat``/``sed -n`` print them (an outline's and a query's lines stay numbered).

    Raises ``ToolInputError`` for a bad argument, a refused path, a missing, binary or
    special file, or an unknown symbol (with the nearest names).
    """
    budget = budget_tokens
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
        raise ToolInputError(
            "end_line", f"the range ends at line {end_line}, before it starts (line {start_line})"
        )
    if not modes:  # a directory (or "."): its ranked map (repomap.py)
        target = app.policy.resolve(path)
        if os.path.isdir(target.absolute):  # False, not an error, for an over-long name
            from ctx_tree_mcp.engines.files.repomap import map_answer

            text = map_answer(app, target, budget)
            app.count("read", tokens_served=estimate_tokens(text), reads=1)
            return text
    resolved, st = _resolve(app, path)
    numbered = numbers is not False
    if not (symbol or query) and st.st_size > LARGE_FILE_BYTES:
        # a large file by lines, or its head and end: read from disk, not parsed or stored
        large = large_answer(
            resolved,
            start_line or 1,
            end_line,
            budget,
            numbered,
            whole_file=start_line is None and end_line is None,
        )
        if large is not None:
            text, source = large
            app.count("read", tokens_served=estimate_tokens(text), tokens_source=source, reads=1)
            return text
    view = load(app, resolved, st)
    if symbol:
        text = _by_symbol(view, symbol, budget, numbered)
    elif start_line is not None or end_line is not None:
        text = _by_lines(view, start_line or 1, end_line, budget, numbered)
    elif query:
        text = by_query(app, view, query, budget)
    else:
        text = outline_answer(view, budget, numbered=numbered)
    app.count("read", tokens_served=estimate_tokens(text), tokens_source=file_tokens(view), reads=1)
    return text


def _resolve(app: App, path: str) -> tuple[ResolvedPath, os.stat_result]:
    try:
        return app.policy.resolve_file(path)
    except PathMissing:
        with contextlib.suppress(ToolInputError):
            mark_gone(app, app.policy.resolve(path))
        raise


MAX_MATCHES_LISTED = 10


def _by_symbol(view: FileView, symbol: str, budget: int, numbered: bool = True) -> str:
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
            + truncation_hint(view),
        )
    matches = ""
    if len(entries) > 1:
        ids = dict(zip(view.outline, entry_ids(view), strict=True))
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
    return ranges_answer(view, ranges, budget, matches, numbered)


def _by_lines(
    view: FileView, first: int, last: int | None, budget: int, numbered: bool = True
) -> str:
    total = view.total_lines
    if first > max(total, 1):
        raise ToolInputError(
            "start_line",
            f"{first} is past the end of {view.relative} ({total} line{'s' if total != 1 else ''}){truncation_hint(view)}",
        )
    last = min(last or total, total)
    if last < first:  # an empty file: nothing to show, as a whole read of it shows nothing
        return ranges_answer(view, [], budget, numbered=numbered)
    return range_answer(view, first, last, budget, "", numbered)


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
