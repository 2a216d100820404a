"""``ctx_tree_grep``: ripgrep over the project, full output stored, a budgeted slice returned.

The answer gives totals, then matches grouped by file (``path`` then ``line:text``; context
lines as ``line-text``; without numbers, ``text``), files with the most matches first. The full output (``path:line:text``
lines, redacted) is stored as a ``tool_output`` node under the session with source
``grep://<sha256 of the normalised arguments>``; ``ctx_tree_get`` pages it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ctx_tree_mcp.answers.budget import (
    GREP_MANIFEST_RESERVE,
    estimate_tokens,
)
from ctx_tree_mcp.answers.render import Manifest, fitted_answer, over_the_capture_cap, plural
from ctx_tree_mcp.answers.surface import argument_name
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.lookup import NOT_STORED, get_call
from ctx_tree_mcp.tools.spec import Budget, Cli, Input, Reply, ToolSpec
from ctx_tree_mcp.wire.redact import redact_text

if TYPE_CHECKING:
    import regex
    from ctx_tree_schema import GrepMeta

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.grep.ripgrep import GrepResult, Line

DESCRIPTION = "ripgrep (.gitignore respected) within budget_tokens; full output stored."


#: The most ``head_limit`` lines (the schema gives only its minimum, to keep ``tools/list`` small).
MAX_HEAD_LIMIT = 1_000_000


class Args(Input):
    """Arguments of ``ctx_tree_grep``."""

    pattern: Annotated[str, Cli("ripgrep (Rust) regex", positional=True)]
    path: Annotated[str, Cli("file or directory under the root", positional=True)] = "."
    glob: Annotated[str | None, Cli("file glob, e.g. `*.py`", short="-g")] = None
    ignore_case: Annotated[bool, Cli("case-insensitive match", short="-i")] = False
    fixed_strings: Annotated[bool, Cli("`pattern` is a literal, not a regex", short="-F")] = False
    multiline: Annotated[bool, Cli("a match may span lines (`\\n` in `pattern`)", short="-U")] = (
        False
    )
    context_lines: Annotated[
        int,
        Field(ge=0, le=10),
        Cli("lines of context around each match", flag="--context", short="-C"),
    ] = 0
    # No range in the schema (tools/list is paid for every turn): checked by the handler.
    after_context: Annotated[
        int | None, Cli("lines after each match, 0..10 (default: `context_lines`)", short="-A")
    ] = None
    before_context: Annotated[
        int | None, Cli("lines before each match, 0..10 (default: `context_lines`)", short="-B")
    ] = None
    numbers: Annotated[
        bool, Cli("show line numbers (`grep -n`); `--no-numbers`: none, as grep without `-n`")
    ] = True
    head_limit: Annotated[
        int | None,
        Field(ge=1),
        Cli("show only the first N output lines, as `| head -n N`"),
    ] = None
    output_mode: Annotated[
        Literal["count", "files_with_matches"] | None,
        Cli(
            "`count`: matches per file (`grep -c`); `files_with_matches`: names only "
            "(`grep -l`); default: the lines"
        ),
    ] = None
    budget_tokens: Budget = 2000


def _fmt(line: Line) -> str:
    return f"{line.number}{':' if line.is_match else '-'}{line.text}"


async def grep(
    app: App,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    ignore_case: bool = False,
    fixed_strings: bool = False,
    context_lines: int = 0,
    budget_tokens: int = 2000,
    multiline: bool = False,
    head_limit: int | None = None,
    after_context: int | None = None,
    before_context: int | None = None,
    numbers: bool = True,
    output_mode: str | None = None,
) -> str | Reply:
    """Handle ``ctx_tree_grep``; returns the answer text, or a :class:`Reply` with exit status
    :data:`TIMED_OUT_STATUS` when the search stopped at ``grep.timeoutMs`` (not an answer).

    ripgrep searches; a pattern with look-around or backreferences, which ripgrep's engine
    does not have, is searched with the ``regex`` module instead (:mod:`ctx_tree_mcp.engines.grep.pygrep`).
    A line over ``LONG_LINE`` characters shows as an excerpt around its matches.

    Raises ``ToolInputError`` for an empty, invalid or too long (over ``MAX_PATTERN_BYTES``
    UTF-8 bytes) pattern, a line break in a pattern without ``multiline``, a bad glob, a
    refused path, or out-of-range ``after_context`` or ``before_context`` (0..10) or
    ``head_limit`` (over :data:`MAX_HEAD_LIMIT`): ranges ``tools/list`` leaves out to stay small;
    the others are the input model's, checked by ``run_tool``.

    ``after_context``/``before_context`` (``rg -A``/``-B``) override ``context_lines`` (``-C``)
    on their side, as in ripgrep. ``numbers=False`` prints the lines without their numbers, as
    grep without ``-n`` does (each file's path, then its lines as ``text``; ``path:text`` for a
    single hit, no path for one file); the stored output keeps them (docs/tools.md, "Native-mirroring arguments").

    ``head_limit`` shows the first N output lines (match, context and ``--`` lines, in the
    answer's order) as ``| head -n N`` would; the full output is stored all the same. A search of one
    file prints ``line:text`` without the path, as ``rg -n PATTERN FILE`` does.

    ``output_mode`` ``count`` answers ``path:N`` per file with matches (``grep -c``),
    ``files_with_matches`` the file names (``grep -l``), most matches first, within the budget;
    the stored output is the same as for ``content``.
    """
    from ctx_tree_mcp.engines.grep.excerpt import compile_pattern, excerpter
    from ctx_tree_mcp.engines.grep.ripgrep import (
        MAX_PATTERN_BYTES,
        NeedsBacktracking,
        build_args,
        files_args,
        run_rg,
        switch_flag,
    )

    budget = budget_tokens
    if head_limit is not None and head_limit > MAX_HEAD_LIMIT:  # the schema leaves it out
        raise ToolInputError("head_limit", f"{head_limit} is out of range; use 1..{MAX_HEAD_LIMIT}")
    before, after = (
        context_lines if value is None else _context(name, value)
        for name, value in (("before_context", before_context), ("after_context", after_context))
    )
    if not isinstance(pattern, str) or not pattern:
        literal = switch_flag("fixed_strings")
        raise ToolInputError("pattern", f"give a regex (or {literal} for a literal)")
    if "\x00" in pattern:
        raise ToolInputError("pattern", "contains a NUL byte")
    size = len(pattern.encode("utf-8", "surrogatepass"))
    if size > MAX_PATTERN_BYTES:
        raise ToolInputError(
            "pattern",
            f"is {size:,} bytes; the most is {MAX_PATTERN_BYTES:,}: search for a shorter, "
            "distinctive part of the text",
        )
    if glob is not None and (not isinstance(glob, str) or "\x00" in glob or not glob.strip()):
        raise ToolInputError("glob", "give a file glob such as '*.py', or leave it out")
    target = app.policy.resolve(path or ".")
    try:
        exists = target.absolute.exists()
    except OSError as exc:  # a name longer than the file system allows
        raise ToolInputError("path", f"{path!r} cannot be searched: {exc.strerror}") from None
    if not exists:
        raise ToolInputError(
            "path",
            f"{path!r} does not exist; check the path (relative to {app.root}), or leave it "
            "out to search the whole project",
        )
    if not (target.absolute.is_dir() or target.absolute.is_file()):
        raise ToolInputError(
            "path", f"{path!r} is not a regular file or directory (FIFO, device or socket)"
        )
    from ctx_tree_mcp.policy.paths import DENYLIST

    deny = DENYLIST  # .ctx-tree/path.deny lines are enforced by the post-filter below
    args = build_args(
        pattern,
        target.relative,
        glob=glob,
        ignore_case=bool(ignore_case),
        fixed_strings=bool(fixed_strings),
        context_lines=before,
        after_context=after,
        deny_globs=deny,
        multiline=bool(multiline),
    )
    cfg = app.config.data["grep"]
    max_bytes = app.config.data["capture"]["maxBytes"]
    engine = "rg"
    compiled: list[regex.Pattern[str] | None] = []

    def matcher() -> (
        regex.Pattern[str] | None
    ):  # compiled once, when a long line or a lone CR needs it
        if not compiled:
            compiled.append(
                compile_pattern(
                    pattern, ignore_case=bool(ignore_case), fixed_strings=bool(fixed_strings)
                )
            )
        return compiled[0]

    cut = excerpter(matcher)
    try:
        result = await run_rg(
            args,
            app.root,
            timeout_s=cfg["timeoutMs"] / 1000,
            max_matches=cfg["maxMatches"],
            keep_bytes=max_bytes,
            excerpt=cut,
        )
    except NeedsBacktracking as need:
        import time

        from ctx_tree_mcp.engines.grep import pygrep

        engine = f"regex ({need.feature})"
        deadline = time.monotonic() + cfg["timeoutMs"] / 1000  # listing and search share it
        files, listed_all = await pygrep.list_files(
            files_args(target.relative, glob=glob, deny_globs=deny),
            app.root,
            cfg["timeoutMs"] / 1000,
        )
        result = await pygrep.search(
            pattern,
            app.root,
            files,
            ignore_case=bool(ignore_case),
            multiline=bool(multiline),
            context_lines=before,
            after_context=after,
            timeout_s=max(0.0, deadline - time.monotonic()),
            max_matches=cfg["maxMatches"],
            keep_bytes=max_bytes,
        )
        if not listed_all:
            result.timed_out = result.listing_cut = True
    # Filter after rg too: a denylisted file must never show (e.g. reached via a symlink).
    for rel in [p for p in result.counts if app.policy.is_denied(p)]:
        result.match_count -= result.counts.pop(rel)
        result.files.pop(rel, None)
    _check_files(app, result, matcher, (before, after), cut)
    # The limits are part of the key: a capped output is a different output.
    parts: list[object] = [pattern, target.relative, glob, bool(ignore_case), bool(fixed_strings)]
    parts += [before if before == after else [before, after], cfg["maxMatches"], max_bytes]
    key = json.dumps([*parts, True] if multiline else parts)
    uri = "grep://" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    order = sorted(result.counts, key=lambda p: (-result.counts[p], p))  # best files first
    lines = {
        p: redact_text("\n".join(_fmt(ln) for ln in result.files[p])).split("\n")
        for p in order
        if p in result.files
    }
    stored = [p for p in order if p in lines]
    per_file = {p: "".join(f"{p}:{text}\n" for text in lines[p]) for p in stored}
    full = "".join(per_file.values())
    from ctx_tree_schema import NodeKind

    meta: GrepMeta = {
        "tool": "ctx_tree_grep",
        "pattern": pattern,
        "path": target.relative,
        "file_glob": glob,
        "ignore_case": bool(ignore_case),
        "fixed_strings": bool(fixed_strings),
        "context_lines": before if before == after else None,
        "multiline": bool(multiline),
        "engine": engine,
        "match_count": result.match_count,
        "file_count": len(order),
        "cwd": str(app.root),
        "timed_out": result.timed_out,
        "capped": result.capped,
    }
    if before != after:
        meta["before_context"], meta["after_context"] = before, after
    node_id = app.recorder.capture(
        NodeKind.TOOL_OUTPUT,
        full,
        source_uri=uri,
        metadata=meta,
        terms=pattern,
        original_bytes=None if result.kept_all else result.output_bytes,
        redacted=True,  # made of the redacted lines the answer is rendered from
    )
    # The whole output's tokens: measured on what is stored, scaled when not all was kept.
    full_tokens = estimate_tokens(full)
    if not result.kept_all and full:
        full_tokens = (
            full_tokens * result.output_bytes // max(1, len(full.encode("utf-8", "replace")))
        )
    if output_mode in ("count", "files_with_matches"):
        text = _per_file_answer(app, result, order, node_id, budget, output_mode, full_tokens)
        app.count("grep", tokens_served=estimate_tokens(text), tokens_source=full_tokens, greps=1)
        return Reply(text, TIMED_OUT_STATUS) if result.timed_out else text
    if output_mode is not None:
        raise ToolInputError(
            "output_mode", f"{output_mode!r}: give count or files_with_matches, or leave it out"
        )
    shape = _Shape(before + after > 0, target.absolute.is_file(), head_limit, bool(numbers))
    stopped = _timeout_note(app, result, target.relative) if result.timed_out else None

    def body(room: int) -> tuple[str, Manifest]:
        return _attempt(
            app, result, order, stored, lines, per_file, node_id, room, engine, shape, stopped
        )

    # Fitted first for GREP_MANIFEST_RESERVE tokens of manifest, then for its measured cost, so
    # the final fit never cuts lines the manifest's next offset counts as shown.
    text = fitted_answer(
        budget,
        body,
        lambda m: m,
        full_tokens,
        "full output",
        reserve=GREP_MANIFEST_RESERVE,
        terse=True,
    )
    app.count("grep", tokens_served=estimate_tokens(text), tokens_source=full_tokens, greps=1)
    # A search cut short by its timeout is not an answer: `ctx-tree grep` exits 2, as grep
    # and rg do on an error, so `&&` and `set -e` do not take it for one.
    return Reply(text, TIMED_OUT_STATUS) if result.timed_out else text


#: The exit status of ``ctx-tree grep`` for a search stopped at ``grep.timeoutMs``.
TIMED_OUT_STATUS = 2


def _timeout_note(app: App, result: GrepResult, where: str) -> str:
    """What a search stopped at ``grep.timeoutMs`` says: what it searched, how far it got
    (where the engine knows), that the rest may hold matches, and what to do."""
    limit = f"{app.config.data['grep']['timeoutMs']:,} ms"
    scope = "the project" if where in ("", ".") else where
    if result.listing_cut:
        got = f"while listing the files to search ({plural(result.to_search or 0, 'file')} so far)"
    elif result.searched is not None and result.to_search is not None:
        got = f"after {result.searched:,} of {plural(result.to_search, 'file')}"
    else:
        got = "before it finished"
    return (
        f"the search of {scope} timed out at {limit} (grep.timeoutMs) {got}; the files it had "
        f"not reached may hold matches: narrow it ({_narrow()}) or raise grep.timeoutMs"
    )


def _per_file_answer(
    app: App,
    result: GrepResult,
    order: list[str],
    node_id: str,
    budget: int,
    mode: str,
    full_tokens: int,
) -> str:
    """``output_mode`` ``count`` (``path:N``) or ``files_with_matches`` (``path``), files with
    the most matches first, as many as fit; the manifest counts the rest."""
    rows = [f"{p}:{result.counts[p]}" if mode == "count" else p for p in order]

    def body(room: int) -> tuple[str, Manifest]:
        shown: list[str] = []
        used = 0
        for row in rows:
            cost = estimate_tokens(row + "\n")
            if used + cost > room:
                break
            shown.append(row)
            used += cost
        total_m = result.match_count
        m = Manifest(f"{plural(total_m, 'match', 'matches')} in {plural(len(order), 'file')}")
        rest = order[len(shown) :]
        if not rest:
            m.complete = not (result.timed_out or result.capped or not result.kept_all)
        else:
            left = sum(result.counts[p] for p in rest)
            m.add(
                "not shown", f"{plural(len(rest), 'file')} with {plural(left, 'match', 'matches')}"
            )
            get = get_call(app, node_id)
            m.add("next", get or f"the matches are {NOT_STORED}")
        return ("\n".join(shown) + "\n" if shown else "no matches\n"), m

    return fitted_answer(budget, body, lambda m: m, full_tokens, "full output", terse=True)


def _context(name: str, value: object) -> int:
    """``after_context``/``before_context`` checked: 0..10 lines (the schema leaves the range
    out to keep ``tools/list`` small). Raises ``ToolInputError`` naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
        context = argument_name("ctx_tree_grep", "context_lines")
        raise ToolInputError(
            argument_name("ctx_tree_grep", name),
            f"{value!r} is out of range; give 0..10 lines, or leave it out ({context} applies)",
        )
    return value


@dataclass(frozen=True)
class _Shape:
    """How the answer prints: ``rg -C`` separators (``context``), no path for a search of
    one file (``one_file``), at most ``head`` output lines (``head_limit``), line numbers
    (``numbers``; grep without ``-n`` has none)."""

    context: bool
    one_file: bool
    head: int | None
    numbers: bool = True

    def show(self, formatted: str) -> str:
        """An output line as printed: ``<n>:text``/``<n>-text``, or ``text`` without numbers
        (``--`` separators stay)."""
        if self.numbers or formatted == _SEP:
            return formatted
        return formatted[len(formatted) - len(formatted.lstrip("0123456789")) + 1 :]


def _attempt(
    app: App,
    result: GrepResult,
    order: list[str],
    stored: list[str],
    lines: dict[str, list[str]],
    per_file: dict[str, str],
    node_id: str,
    room: int,
    engine: str,
    shape: _Shape,
    stopped: str | None = None,
) -> tuple[str, Manifest]:
    """Body and manifest with ``room`` tokens for the body; ``stopped``: the search timed
    out, and this says so (:func:`_timeout_note`)."""
    total_m, total_f = result.match_count, len(order)
    head = f"{plural(total_m, 'match', 'matches')} in {plural(total_f, 'file')}"
    manifest = Manifest(head)
    if stopped:
        manifest.add("incomplete", stopped)
    if result.capped:
        manifest.add(
            "note",
            f"stopped at {app.config.data['grep']['maxMatches']:,} matches (grep.maxMatches)",
        )
    if not result.kept_all:
        manifest.add(
            "note",
            f"{_over_the_cap(app)}: the matches past it are not kept; narrow the search to "
            "see them",
        )
    if result.error:
        manifest.add("note", f"rg: {result.error}")
    if result.lf_numbered:
        manifest.add(
            "note",
            f"line numbers of {', '.join(result.lf_numbered[:3])} count LF line ends only "
            "(numbering its lone-CR lines as read does timed out)",
        )
    if engine != "rg":
        manifest.add(
            "note",
            f"searched with Python's regex module: rg has no {engine[7:-1]} (a backtracking "
            "engine; slower on large trees)",
        )
    complete = not (result.timed_out or result.capped or not result.kept_all)
    if not order:
        manifest.complete = complete
        # a timeout is not an answer: never "no matches" for a search that did not finish
        return ("timed out before any match\n" if stopped else "no matches\n"), manifest
    blocks: list[str] = []
    shown: list[str] = []
    shown_matches = 0
    partial: str | None = None
    partial_chars = 0  # stored characters of the partly shown file's lines already shown
    quota = shape.head
    lines_out = 0
    for p in stored:
        block_lines = _separated(lines[p]) if shape.context else lines[p]
        title = "" if shape.one_file else p + "\n"
        printed = [shape.show(text) for text in block_lines]
        if shape.one_file:
            block = "\n".join(printed) + "\n"
        elif total_m == 1 and len(block_lines) == 1:
            block = f"{p}:{printed[0]}\n"  # one hit: rg -n shape, nothing to manage
        else:
            block = title + "\n".join(printed) + "\n"
        cost = estimate_tokens(block)
        output_lines = len(block_lines)  # `--` too: `| head -n N` counts every printed line
        if cost <= room and (quota is None or output_lines <= quota):
            blocks.append(block)
            room -= cost
            shown.append(p)
            shown_matches += sum(_is_match(text) for text in block_lines)
            lines_out += output_lines
            if quota is not None:
                quota -= output_lines
                if quota == 0:
                    break
            continue
        # Partial file: as many lines as fit (and as head_limit allows), then stop.
        kept: list[str] = []
        used = estimate_tokens(title)
        taken = 0
        for text in block_lines:
            c = estimate_tokens(shape.show(text) + "\n")
            if used + c > room or (quota is not None and taken >= quota):
                break
            kept.append(text)
            used += c
            taken += 1
            shown_matches += _is_match(text)
        while kept and kept[-1] == _SEP:
            kept.pop()
        lines_out += taken
        if taken:
            blocks.append(title + "\n".join(shape.show(text) for text in kept) + "\n")
            room -= used
            partial = p
            partial_chars = sum(len(f"{p}:{text}\n") for text in kept if text != _SEP)
        break
    seen = set(shown) | ({partial} if partial else set())
    rest = [p for p in order if p not in seen]
    if not (shown_matches < total_m or partial or rest):
        manifest.complete = complete
    limited = shape.head is not None and lines_out >= shape.head
    if rest and not limited:
        names: list[str] = []
        cost = 0
        for p in rest:
            entry = f"{p} ({result.counts[p]})"
            cost += estimate_tokens(entry + ", ")
            if cost > max(room, 0) and len(names) >= MIN_FILES_NAMED:
                break
            names.append(entry)
        more = len(rest) - len(names)
        manifest.add("other files", ", ".join(names) + (f" (+{more} more)" if more else ""))
    if shown_matches < total_m or partial or rest:
        offset = sum(len(per_file[p]) for p in shown) + partial_chars
        get = get_call(app, node_id, offset)
        if limited and get:  # the caller asked for the head: the rest in one short line
            manifest.head += f"; {argument_name('ctx_tree_grep', 'head_limit')} {shape.head} shown"
            manifest.add("next", get)
            return "".join(blocks), manifest
        manifest.add(
            "shown",
            f"{shown_matches:,} of {plural(total_m, 'match', 'matches')} in {len(seen):,} of "
            f"{plural(total_f, 'file')}",
        )
        # a next line is one call (docs/tools.md); narrowing is advice, on a more line
        if offset < sum(len(t) for t in per_file.values()) and get:
            manifest.add("next", get)
        elif offset < sum(len(t) for t in per_file.values()):
            manifest.add("more", f"the rest of the output is {NOT_STORED}: narrow with {_narrow()}")
        else:
            manifest.add(
                "more", f"the rest was not stored ({_over_the_cap(app)}): narrow with {_narrow()}"
            )
    return "".join(blocks), manifest


def _over_the_cap(app: App) -> str:
    """Why a grep's output was cut (``render.over_the_capture_cap``)."""
    return over_the_capture_cap(int(app.config.data["capture"]["maxBytes"]))


def _check_files(
    app: App,
    result: GrepResult,
    matcher: Callable[[], object | None],
    context: tuple[int, int],
    cut: Callable[[str], str],
) -> None:
    """Read the matched files that need it, once each: a file with a lone CR in its output
    gets read's line numbers (:mod:`ctx_tree_mcp.engines.grep.lineends`), and every output line that lies
    inside a PEM private key block, judged on the whole file, is replaced (a grep shows a
    block's body lines without its ``BEGIN`` and ``END`` lines, and the per-answer redaction
    could not see them; one line stays one line, so the counts and offsets stay true). Only
    files with a lone CR or a line shaped like a key's line are read (a cheap test: reading
    every matched file would cost a third of rg's time)."""
    from ctx_tree_mcp.engines.grep.lineends import LONE_CR_BYTES, renumber
    from ctx_tree_mcp.policy.keylines import KEY_LINE_MARK, key_blocks, might_hold_key, read_start

    for rel, lines in result.files.items():
        lone_cr = rel in result.lone_cr
        if not lone_cr and not might_hold_key("\n".join(line.text for line in lines)):
            continue
        try:
            data = read_start(app.root / rel)
        except OSError:
            continue
        text = data.decode("utf-8", "replace")
        if lone_cr or (b"\r" in data and LONE_CR_BYTES.search(data)):
            try:
                renumbered = renumber(lines, text, matcher(), context[0], cut, context[1])
            except TimeoutError:
                result.lf_numbered.append(rel)
                renumbered = None
            if renumbered is not None:
                found = sum(line.is_match for line in renumbered)
                change = found - sum(line.is_match for line in lines)
                result.match_count += change
                result.counts[rel] += change
                result.files[rel] = lines = renumbered
        blocks = key_blocks(text)
        for line in lines:
            if blocks.holds(line.text, line.number):
                line.text = KEY_LINE_MARK


_SEP = "--"
#: Files the "other files" line names even when the budget is spent (then "+N more").
MIN_FILES_NAMED = 3


def _separated(block_lines: list[str]) -> list[str]:
    """A file's ``<n>:``/``<n>-`` lines with ``--`` between groups that are not adjacent, as
    ``rg -C`` prints them (display only: the stored output has no separators)."""
    out: list[str] = []
    last = None
    for text in block_lines:
        number = int(text[: len(text) - len(text.lstrip("0123456789"))] or 0)
        if last is not None and number > last + 1:
            out.append(_SEP)
        out.append(text)
        last = number
    return out


def _is_match(formatted: str) -> bool:
    """True for a ``<n>:<text>`` match line, False for a ``<n>-<text>`` context line."""
    digits = len(formatted) - len(formatted.lstrip("0123456789"))
    return formatted[digits : digits + 1] == ":"


def _narrow() -> str:
    """``path=/glob=`` over MCP, ``PATH/--glob`` on the CLI."""
    suffix = "" if argument_name("ctx_tree_grep", "glob").startswith("-") else "="
    return f"{argument_name('ctx_tree_grep', 'path')}{suffix}/{argument_name('ctx_tree_grep', 'glob')}{suffix}"


SPEC = ToolSpec(
    name="ctx_tree_grep",
    description=DESCRIPTION,
    args=Args,
    handler=grep,
    example={"pattern": "def run\\b", "glob": "*.py", "budget_tokens": 500},
    help="ripgrep the project; full output stored, a budgeted slice shown",
)
