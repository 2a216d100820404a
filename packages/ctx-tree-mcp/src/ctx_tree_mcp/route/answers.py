"""What a routed command prints: its output when it fits the budget, else a slice in the native
layout (docs/routing.md, "Answers").

Every routed output is stored whole (a file read through the file cache, a grep's or a run's
output as a ``tool_output`` node), and the answer counts in the usage counters as
``route:<kind>``: the tokens the host would have passed (``tokens_source``) and what it passed
(``tokens_served``), which ``ctx-tree stats`` shows per kind.

- **read** (``cat``, ``head``, ``tail``, ``sed -n``, ``nl -ba``, ``cat -n``): the file's outline
  and as much of its top and end as fit, or the range cut to the budget, as ``ctx_tree_read``
  answers them, plain or numbered as the native command prints; hints are shell commands
  (``sed -n 'A,Bp' FILE``). When the output is not the file's text (it changed meanwhile), it
  is answered as a run's.
- **grep**: the native lines themselves (``path:line:text``, context, ``--``), the first
  matches of every file when all do not fit, the files left out named with their counts;
  ``-c`` keeps the files with matches, ``-l`` the first names and a count per directory.
- **run**: the digest ``ctx_tree_bash`` shows (summaries, failures, errors, the tail).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.budget import estimate_tokens, tokens_for_chars
from ctx_tree_mcp.answers.render import Manifest, fitted_answer, plural
from ctx_tree_mcp.wire.route import GREP, READ, Shape

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.files.filecache import FileView

#: Longest grep line shown whole; a longer one is cut (its start kept), as the store keeps it.
GREP_LINE_CHARS = 300
#: Files the manifest names at least when grep output is cut.
FILES_NAMED = 6


@dataclass(frozen=True)
class Routed:
    """A command waiting for its output: its shape, the original command, where it runs
    (``cwd``), the session that ran it and when (``time.monotonic()``)."""

    shape: Shape
    command: str
    cwd: str
    session: str
    started: float


def answer(app: App, routed: Routed, data: bytes, budget: int) -> str | None:
    """The text the client prints for ``data`` (the whole output), or None to print the output
    as it was (it fits ``budget`` tokens). Stores the output either way. Raises nothing the
    caller should not treat as "print it as it was" (store faults included)."""
    text, later = reply(app, routed, data, budget)
    if later is not None:
        later()
    return text


def reply(
    app: App, routed: Routed, data: bytes, budget: int
) -> tuple[str | None, Callable[[], None] | None]:
    """``(text, later)``: the text as :func:`answer` gives it and, for an output that fits
    ``budget`` and is printed as it was, the storing and counting left to do once the client
    has it (``later()``; the host's call need not wait for the store's write). ``later`` is
    None when all is done: a cut answer names the stored node, so it is stored first."""
    text = data.decode("utf-8", "replace")
    native = estimate_tokens(text)
    if native <= budget:

        def later() -> None:
            _store(app, routed, text)
            app.count(
                f"route:{routed.shape.kind}", tokens_served=native, tokens_source=native, routed=1
            )

        return None, later
    return _cut(app, routed, text, native, budget), None


def _cut(app: App, routed: Routed, text: str, native: int, budget: int) -> str | None:
    """The answer to an output of ``native`` tokens over ``budget`` (stored first), or None
    when it would not be smaller."""
    from ctx_tree_mcp.answers.surface import shell_surface
    from ctx_tree_mcp.tools.registry import BY_NAME

    kind = routed.shape.kind
    with shell_surface(BY_NAME):
        result = None
        if kind == READ:
            result = _read_answer(app, routed, text, budget)
        elif kind == GREP:
            result = _grep_answer(app, routed, text, budget)
        if result is None:
            result = _run_answer(app, routed, text, budget)
    served = estimate_tokens(result)
    if served >= native:  # nothing saved: the output as it was
        app.count(f"route:{kind}", tokens_served=native, tokens_source=native, routed=1)
        return None
    app.count(f"route:{kind}", tokens_served=served, tokens_source=native, routed=1)
    return result


def _store(app: App, routed: Routed, text: str) -> None:
    """Keep a whole output that is printed as it was: a read through the file cache, anything
    else as the command's output."""
    if routed.shape.kind == READ and _view(app, routed) is not None:
        return
    _record(app, routed, text)


def _record(app: App, routed: Routed, text: str) -> tuple[str, str, bool]:
    """Store ``text`` as the command's output: (node id, stored content, stored in the file)."""
    from ctx_tree_mcp.engines.shell.record import record_output

    rec = record_output(app, text, command=routed.command, cwd=routed.cwd, source="route:Bash")
    return rec.node_id, rec.content, app.store.in_file(rec.node_id)


def _view(app: App, routed: Routed) -> FileView | None:
    from ctx_tree_mcp.engines.files.filecache import load
    from ctx_tree_mcp.errors import ToolInputError

    path = os.path.join(routed.cwd, routed.shape.paths[0])
    try:
        resolved, st = app.policy.resolve_file(os.path.realpath(path))
        return load(app, resolved, st)
    except (ToolInputError, OSError):
        return None


# --- reads --------------------------------------------------------------------------------


_NUMBER = re.compile(r"^ *\d+\t")


def _read_answer(app: App, routed: Routed, text: str, budget: int) -> str | None:
    from ctx_tree_mcp.tools.read_outline import outline_answer
    from ctx_tree_mcp.tools.read_view import lines_of, range_answer

    view = _view(app, routed)
    if view is None:
        return None
    shape = routed.shape
    total = view.total_lines
    first, last = 1, total
    if shape.last is not None:
        first = max(1, total - shape.last + 1)
    elif shape.start is not None:
        first, last = shape.start, min(shape.end or total, total)
    if first > max(total, 1) or last < first:
        return None
    got = text.split("\n")
    if got and got[-1] == "":
        got.pop()
    if shape.numbered:
        got = [_NUMBER.sub("", line, count=1) for line in got]
    if got != lines_of(view, first, last):  # not the file as it is now
        return None
    if shape.start is None and shape.last is None:
        return outline_answer(view, budget, numbered=shape.numbered)
    return range_answer(view, first, last, budget, "", shape.numbered)


# --- greps --------------------------------------------------------------------------------


@dataclass
class _File:
    """One file's lines of a grep output, in order: (line, is a match)."""

    path: str
    lines: list[tuple[str, bool]]

    @property
    def matches(self) -> int:
        return sum(1 for _, m in self.lines if m)


def _grep_files(text: str, cwd: str) -> tuple[list[_File], bool]:
    """The output's lines grouped by file, and whether they carry file names. A name is the
    text before the first ``:`` of a line, when it is a file under ``cwd``; context lines
    (``path-N-text``) join the file whose name they start with; ``--`` separators stay."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    known: dict[str, bool] = {}

    def is_file(name: str) -> bool:
        if name not in known:
            known[name] = bool(name) and os.path.isfile(os.path.join(cwd, name))
        return known[name]

    files: list[_File] = []
    named = False
    for line in lines:
        head, sep, _ = line.partition(":")
        if sep and is_file(head):
            named = True
            if not files or files[-1].path != head:
                files.append(_File(head, []))
            files[-1].lines.append((line, True))
            continue
        current = files[-1] if files else None
        if current is not None and named and line.startswith(current.path + "-"):
            current.lines.append((line, False))
        elif line == "--":
            if current is not None:
                current.lines.append((line, False))
        elif named and current is not None:
            current.lines.append((line, False))
        else:
            if not files:
                files.append(_File("", []))
            files[-1].lines.append((line, not named))
    return files, named


def _short(line: str) -> str:
    return line if len(line) <= GREP_LINE_CHARS else line[:GREP_LINE_CHARS] + "…"


def _first_matches(f: _File, k: int) -> list[str]:
    """The file's lines up to its ``k``-th match and that match's context after it."""
    out: list[str] = []
    seen = 0
    for line, is_match in f.lines:
        if is_match:
            if seen == k:
                break
            seen += 1
        out.append(_short(line))
    while out and out[-1] == "--":
        out.pop()
    return out


def _grep_answer(app: App, routed: Routed, text: str, budget: int) -> str | None:
    shape = routed.shape
    files, named = _grep_files(text, routed.cwd)
    node_id, _content, stored = _record(app, routed, text)
    get = _get(node_id) if stored else ""
    total_matches = sum(f.matches for f in files)
    if shape.mode == "count":
        return _count_answer(files, text, budget, get)
    if shape.mode == "files" or not named:
        return _list_answer(text, budget, get, shape.mode == "files")
    most = max((f.matches for f in files), default=0)

    def body(room: int) -> tuple[str, tuple[int, int]]:
        """The first k matches of every file, k as large as fits; when even one each does not
        fit, one each of the first files. State: (k, files shown)."""
        best: list[str] | None = None
        best_k = 0
        lo, hi = 1, most
        while lo <= hi:
            k = (lo + hi) // 2
            lines = [ln for f in files for ln in _first_matches(f, k)]
            if estimate_tokens("\n".join(lines) + "\n") <= room:
                best, best_k, lo = lines, k, k + 1
            else:
                hi = k - 1
        if best is not None:
            return "\n".join(best) + "\n", (best_k, len(files))
        shown: list[str] = []
        used = count = 0
        for f in files:
            lines = _first_matches(f, 1)
            cost = estimate_tokens("\n".join(lines) + "\n")
            if used + cost > room:
                break
            shown += lines
            used += cost
            count += 1
        return ("\n".join(shown) + "\n" if shown else ""), (1, count)

    def manifest(state: tuple[int, int]) -> Manifest:
        k, files_shown = state
        m = Manifest(f"{plural(total_matches, 'match', 'matches')} in {plural(len(files), 'file')}")
        each = (
            "each file" if files_shown == len(files) else f"each of the first {files_shown} files"
        )
        m.add("shown", f"the first {plural(k, 'match', 'matches')} of {each}")
        unshown = [(f.path, f.matches - k) for f in files[:files_shown] if f.matches > k]
        unshown += [(f.path, f.matches) for f in files[files_shown:]]
        if unshown:
            listed = ", ".join(f"{path} ({n})" for path, n in unshown[:FILES_NAMED])
            more = len(unshown) - FILES_NAMED
            m.add("not shown", listed + (f" (+{more} files)" if more > 0 else ""), optional=True)
        if get:
            m.add("all", get)
        return m

    return fitted_answer(budget, body, manifest, estimate_tokens(text), "output", terse=True)


def _count_answer(files: list[_File], text: str, budget: int, get: str) -> str:
    """``grep -c``: the files with matches (``path:0`` lines left out), most first when even
    they do not fit."""
    rows = [ln for f in files for ln, _ in f.lines] if files else []
    counted = []
    zero = 0
    for row in rows:
        _, _, n = row.rpartition(":")
        if n == "0":
            zero += 1
        else:
            counted.append((int(n) if n.isdigit() else 0, row))

    def body(room: int) -> tuple[str, int]:
        out: list[str] = []
        used = 0
        for _n, row in sorted(counted, key=lambda c: -c[0]):
            cost = estimate_tokens(row + "\n")
            if used + cost > room:
                break
            out.append(row)
            used += cost
        keep = set(out)
        ordered = [row for _, row in counted if row in keep]
        return ("\n".join(ordered) + "\n" if ordered else ""), len(ordered)

    def manifest(shown: int) -> Manifest:
        m = Manifest(f"{plural(len(counted), 'file')} with matches, {zero:,} without")
        m.add("shown", f"{shown:,} files with matches (most first)" if shown < len(counted) else "")
        if zero:
            m.add("left out", f"{plural(zero, 'file')} with 0")
        if get:
            m.add("all", get)
        return m

    return fitted_answer(budget, body, manifest, estimate_tokens(text), "output", terse=True)


def _list_answer(text: str, budget: int, get: str, names: bool) -> str:
    """``grep -l`` (``names``): the first file names and, for the rest, a count per
    directory; any other output without file names: its first lines."""
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()

    def body(room: int) -> tuple[str, int]:
        out: list[str] = []
        used = 0
        for row in rows:
            cost = estimate_tokens(_short(row) + "\n")
            if used + cost > room:
                break
            out.append(_short(row))
            used += cost
        return ("\n".join(out) + "\n" if out else ""), len(out)

    def manifest(shown: int) -> Manifest:
        what = "file" if names else "line"
        m = Manifest(f"{plural(len(rows), what)}; the first {shown:,} shown")
        if names and shown < len(rows):
            dirs: dict[str, int] = {}
            for row in rows[shown:]:
                parts = row.split("/")
                key = (
                    "/".join(parts[:2]) + "/"
                    if len(parts) > 2
                    else (parts[0] if len(parts) > 1 else ".")
                )
                dirs[key] = dirs.get(key, 0) + 1
            top = sorted(dirs.items(), key=lambda d: -d[1])
            listed = ", ".join(f"{d} ({n})" for d, n in top[:FILES_NAMED])
            more = f" (+{len(top) - FILES_NAMED} more)" if len(top) > FILES_NAMED else ""
            m.add("more in", listed + more, optional=True)
        if get:
            m.add("all", get)
        return m

    return fitted_answer(budget, body, manifest, estimate_tokens(text), "output", terse=True)


def _get(node_id: str, offset: int | None = None) -> str:
    from ctx_tree_mcp.answers.surface import call

    return call("ctx_tree_get", node_id=node_id, offset=offset)


# --- runs ---------------------------------------------------------------------------------


def _run_answer(app: App, routed: Routed, text: str, budget: int) -> str:
    """The digest ``ctx_tree_bash`` shows of a long output (its summaries, failures, errors
    and tail), led by the output's size; the exit status is the host's to show."""
    from ctx_tree_mcp.engines.shell.digest import render_lines, scan, select_lines

    node_id, content, stored = _record(app, routed, text)
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head = f"{plural(len(lines), 'line')} of output\n"
    found = scan(lines)

    def body(room: int) -> tuple[str, list[tuple[int, int]]]:
        chosen = select_lines(found, max(room - estimate_tokens(head), 0))
        shown, gaps = render_lines(lines, chosen.shown, terse=True)
        return head + shown, gaps

    def manifest(gaps: list[tuple[int, int]]) -> Manifest:
        m = Manifest(f"node {node_id}" if stored else "output not stored")
        if gaps:
            runs = ", ".join(f"{a}-{b}" for a, b in gaps[:6])
            more = f" (+{len(gaps) - 6} more)" if len(gaps) > 6 else ""
            m.add("omitted", f"lines {runs}{more}", optional=True)
            if stored:
                offset = sum(len(line) + 1 for line in lines[: gaps[0][0] - 1])
                m.add("next", _get(node_id, offset))
        return m

    return fitted_answer(budget, body, manifest, tokens_for_chars(len(text)), "output", terse=True)
