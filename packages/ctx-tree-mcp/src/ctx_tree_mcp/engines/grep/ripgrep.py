"""Running ripgrep: locate the ``ripgrep`` PyPI package's ``rg`` and parse its output.

``rg`` is looked up beside the running interpreter first (the venv's scripts directory, where
the ``ripgrep`` package installs it), then on ``PATH``. Output is read with ``--null`` so paths
holding ``:`` parse correctly. The search honours ``.gitignore`` (ripgrep's default), stops at a
timeout and at a match cap, and the process is killed when the caller is cancelled.

A line longer than :data:`LONG_LINE` characters is kept as an excerpt around its matches (see
:mod:`ctx_tree_mcp.engines.grep.excerpt`). A pattern that ripgrep's engine refuses for its look-around or
backreferences raises :class:`NeedsBacktracking`: the caller searches with
:mod:`ctx_tree_mcp.engines.grep.pygrep` instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ctx_tree_mcp.errors import CtxTreeError, ToolInputError
from ctx_tree_mcp.policy.names import shown

#: Characters above which an output line is shown as an excerpt around its matches.
LONG_LINE = 400
#: The longest pattern passed to rg, in UTF-8 bytes: one command-line argument may hold at most
#: 128 KiB on Linux (``MAX_ARG_STRLEN``).
MAX_PATTERN_BYTES = 100_000


class NeedsBacktracking(CtxTreeError):
    """rg's engine refused the pattern for a feature only a backtracking engine has
    (look-around, backreferences). ``feature`` names it."""

    def __init__(self, feature: str) -> None:
        super().__init__(feature)
        self.feature = feature


class RipgrepMissing(CtxTreeError, RuntimeError):
    """No ``rg`` executable was found; install the ``ripgrep`` PyPI package."""


@lru_cache(maxsize=1)
def find_rg() -> str:
    """Absolute path of ``rg``: the interpreter's scripts dir, then ``PATH``.

    Raises :class:`RipgrepMissing` naming the package to install.
    """
    candidates = [
        Path(sysconfig.get_path("scripts")) / "rg",
        Path(sys.executable).parent / "rg",
    ]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("rg")
    if found:
        return found
    raise RipgrepMissing(
        "ripgrep (rg) not found: install the 'ripgrep' PyPI package (pip install 'ripgrep<15')"
    )


@dataclass(slots=True)
class Line:
    """One output line: a match (``is_match``) or a context line, 1-based ``number``."""

    number: int
    text: str
    is_match: bool


@dataclass(slots=True)
class GrepResult:
    """rg's output: per-file match counts for everything, and the lines themselves (grouped
    by path relative to the search cwd, in rg's order) until ``keep_bytes`` of output."""

    files: dict[str, list[Line]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    match_count: int = 0
    output_bytes: int = 0
    kept_bytes: int = 0
    kept_all: bool = True
    timed_out: bool = False
    capped: bool = False
    error: str = ""
    #: Files searched to the end, and files there were to search, where the engine knows
    #: (the ``regex`` fallback searches one file after another; ripgrep does not say).
    searched: int | None = None
    to_search: int | None = None
    #: True when the listing of the files to search stopped at the timeout (``to_search``
    #: counts those listed by then).
    listing_cut: bool = False
    #: Paths whose lines keep ripgrep's LF-only numbers: numbering them as read does (lone
    #: CRs) timed out.
    lf_numbered: list[str] = field(default_factory=list)
    #: Paths with a lone CR (a line end for read, not for rg) in a line of their output.
    lone_cr: set[str] = field(default_factory=set)


def has_lone_cr(line: bytes) -> bool:
    """True when an output line (its LF removed) holds a CR other than a CRLF's."""
    found = line.find(b"\r")
    return 0 <= found < len(line) - 1


def build_args(
    pattern: str,
    target: str,
    *,
    glob: str | None,
    ignore_case: bool,
    fixed_strings: bool,
    context_lines: int,
    deny_globs: tuple[str, ...],
    multiline: bool = False,
    after_context: int | None = None,
) -> list[str]:
    """The ``rg`` argument list (without the executable). Lines are not cut by rg (no
    ``--max-columns``): long ones are excerpted around their matches when parsed.
    ``context_lines`` lines before each match, ``after_context`` (default: the same) after."""
    args = [
        "--no-heading",
        "--with-filename",
        "--line-number",
        "--null",
        "--color",
        "never",
        "--no-messages",
    ]
    args.append("--no-config")
    if multiline:
        args.append("--multiline")
    if ignore_case:
        args.append("--ignore-case")
    if fixed_strings:
        args.append("--fixed-strings")
    after = context_lines if after_context is None else after_context
    if context_lines == after:
        if after:
            args += ["--context", str(after)]
    else:
        args += ["--before-context", str(context_lines), "--after-context", str(after)]
    if glob:
        args += ["--glob", glob]
    for deny in deny_globs:  # case-insensitive, as the path policy is
        args += ["--iglob", "!" + deny]
    args += ["--regexp", pattern, "--", target]
    return args


def files_args(target: str, *, glob: str | None, deny_globs: tuple[str, ...]) -> list[str]:
    """The ``rg --files`` argument list listing the files a search of ``target`` would read
    (``.gitignore``, ``glob`` and the denylist applied), NUL-separated."""
    args = ["--files", "--null", "--no-messages", "--no-config"]
    if glob:
        args += ["--glob", glob]
    for deny in deny_globs:
        args += ["--iglob", "!" + deny]
    return [*args, "--", target]


def add_line(
    result: GrepResult,
    path: str,
    number: int,
    text: str,
    is_match: bool,
    keep_bytes: int,
    raw_size: int,
) -> None:
    """Count one output line (``raw_size`` bytes as rg printed it) and keep it while the kept
    lines stay within ``keep_bytes``."""
    if is_match:
        result.match_count += 1
        result.counts[path] = result.counts.get(path, 0) + 1
    else:
        result.counts.setdefault(path, 0)
    result.output_bytes += raw_size
    size = len(path) + len(text) + 8
    if result.kept_all and result.kept_bytes + size <= keep_bytes:
        result.kept_bytes += size
        result.files.setdefault(path, []).append(Line(number, text, is_match))
    else:
        result.kept_all = False


def invalid_pattern(detail: str) -> ToolInputError:
    """The error for a pattern no engine accepts, with the fix."""
    return ToolInputError(
        "pattern",
        f"invalid regex ({detail[:300]}); escape special characters such as ( [ {{ with a "
        f"backslash, or pass {switch_flag('fixed_strings')} to search for the text as written",
    )


def switch_flag(name: str) -> str:
    """How to turn a boolean argument of ``ctx_tree_grep`` on: ``multiline=true`` over MCP,
    ``--multiline`` on the CLI."""
    from ctx_tree_mcp.answers.surface import argument_name

    flag = argument_name("ctx_tree_grep", name)
    return flag if flag.startswith("-") else f"{flag}=true"


# One output line: path NUL number (':' match | '-' context) text. Parsed in C by the regex.
_LINE = re.compile(rb"^([^\x00\n]*)\x00(\d+)([:-])([^\n]*)$", re.M)


def _parse_block(
    block: bytes,
    result: GrepResult,
    keep_bytes: int,
    excerpt: Callable[[str], str],
    max_matches: int | None = None,
) -> None:
    """Add rg's output lines in ``block`` to ``result``; stops before match ``max_matches + 1``
    (so the count never passes the cap, even inside one read)."""
    from ctx_tree_mcp.answers.render import one_line

    previous_end = 0
    any_cr = b"\r" in block  # one scan of the block spares a test per line
    for found in _LINE.finditer(block):
        path_b, num, kind, text_b = found.groups()
        # A file name holding a line break: its first part is the unmatched text just before
        # this line (rg's "path NUL" record cannot be told apart from a line otherwise).
        if found.start() - previous_end > 1:  # more than the line break between records
            gap = [
                part
                for part in block[previous_end : found.start()].split(b"\n")
                if part and part != b"--"  # rg's separator between context groups
            ]
            if gap and b"\x00" not in gap[-1]:
                path_b = gap[-1] + b"\n" + path_b
        previous_end = found.end()
        if kind == b":" and max_matches is not None and result.match_count >= max_matches:
            result.capped = True
            return
        # escaped (``a.py\\nnext: …``): the name stays on its line in the answer and the store
        path = one_line(shown(os.fsdecode(path_b)))  # a name not UTF-8: %XX (policy/names.py)
        if path.startswith("./"):
            path = path[2:]
        if any_cr and has_lone_cr(text_b):
            result.lone_cr.add(path)
        text = text_b.decode("utf-8", "replace")
        if len(text) > LONG_LINE:
            text = excerpt(text)
        size = len(path_b) + len(num) + len(text_b) + 2
        add_line(result, path, int(num), text, kind == b":", keep_bytes, size)


async def start_rg(args: list[str], cwd: Path, *, stderr: int) -> asyncio.subprocess.Process:
    """``rg`` (:func:`find_rg`) with ``args`` in ``cwd``: no stdin, stdout piped, ``stderr``
    piped or discarded (``asyncio.subprocess.PIPE`` / ``DEVNULL``). Raises ``OSError``."""
    return await asyncio.create_subprocess_exec(
        find_rg(),
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )


async def _drain(proc: asyncio.subprocess.Process) -> None:
    """Read stdout to EOF. asyncio's ``wait()`` returns only once every pipe is closed, and a
    pipe we stopped reading stays paused (full buffer) forever, so a killed rg must be drained."""
    if proc.stdout is not None:
        while await proc.stdout.read(1 << 18):
            pass


async def _drain_and_wait(proc: asyncio.subprocess.Process) -> None:
    await _drain(proc)
    await proc.wait()


async def run_rg(
    args: list[str],
    cwd: Path,
    *,
    timeout_s: float,
    max_matches: int,
    keep_bytes: int,
    excerpt: Callable[[str], str] | None = None,
) -> GrepResult:
    """Run ``rg`` with ``args`` in ``cwd``; stop at ``timeout_s`` seconds or ``max_matches``.

    Every match is counted per file; the lines themselves are kept only for the first
    ``keep_bytes`` bytes of output (what the store keeps, ``capture.maxBytes``); a line over
    :data:`LONG_LINE` characters is kept as ``excerpt(line)`` (default: its head).

    Raises :class:`ToolInputError` (argument ``pattern`` or ``glob``) when rg rejects the regex
    or glob, :class:`NeedsBacktracking` for look-around or backreferences,
    :class:`RipgrepMissing` when rg is absent. Cancelling the awaiting task kills rg.
    """
    cut = excerpt or (lambda text: text[:LONG_LINE] + " …")
    proc = await start_rg(args, cwd, stderr=asyncio.subprocess.PIPE)
    result = GrepResult()

    async def consume() -> None:
        assert proc.stdout is not None
        # The start of a line not ended yet, as the blocks that hold it: joined once, when its
        # end arrives, so a line of 50 MB (a minified bundle) costs its size, not its size
        # squared over 256 KB reads.
        pending: list[bytes] = []
        while True:
            block = await proc.stdout.read(1 << 18)
            if not block:
                break
            end = block.rfind(b"\n") + 1
            if not end:
                pending.append(block)
                continue
            lines = b"".join([*pending, block[:end]]) if pending else block[:end]
            pending = [block[end:]] if end < len(block) else []
            _parse_block(lines, result, keep_bytes, cut, max_matches)
            if result.capped:
                return
        if pending:
            _parse_block(b"".join(pending), result, keep_bytes, cut, max_matches)

    try:
        try:
            await asyncio.wait_for(consume(), timeout=timeout_s)
        except TimeoutError:
            result.timed_out = True
        if (result.capped or result.timed_out) and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # rg may have exited meanwhile
                proc.kill()
            await _drain(proc)
        stderr = await proc.stderr.read() if proc.stderr else b""
        code = await proc.wait()
    finally:
        if proc.returncode is None:  # cancelled: kill rg, and drain so wait() can finish
            proc.kill()
            await asyncio.shield(_drain_and_wait(proc))
    if code == 2 and not result.files and not (result.capped or result.timed_out):
        message = stderr.decode("utf-8", "replace").strip()
        if "glob" in message.lower():
            raise ToolInputError(
                "glob", f"invalid glob: {message.splitlines()[-1] if message else ''}"
            )
        lowered = message.lower()
        if "look-around" in lowered:
            raise NeedsBacktracking("look-around")
        if "backreferences are not supported" in lowered:
            raise NeedsBacktracking("backreferences")
        if 'literal "\\n" is not allowed' in lowered:
            raise ToolInputError(
                "pattern",
                f"matches a line break (\\n); pass {switch_flag('multiline')} to let a match span lines",
            )
        if "regex" in lowered or "error parsing" in lowered:
            raise invalid_pattern(" ".join(line.strip() for line in message.splitlines()[-4:]))
        result.error = message[:300]
    return result
