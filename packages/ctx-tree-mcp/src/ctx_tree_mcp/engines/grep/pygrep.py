"""Search with the ``regex`` module for the patterns ripgrep's engine refuses.

ripgrep's default engine guarantees linear time and so has no look-around (``(?<=def )\\w+``)
and no backreferences (``(\\w+)\\s+\\1``); the ``ripgrep`` wheel is built without PCRE2. Such a
pattern is searched here instead: over the same files (``rg --files`` with the same path, glob,
``.gitignore`` and denylist), with ripgrep's line semantics (``^``/``$`` at line ends; without
``multiline`` a match stays within one line), into the same :class:`GrepResult`. The search
runs in a worker thread under the same timeout and match cap; a backtracking pattern that runs
away is stopped by the ``regex`` module's own timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tree_mcp.engines.grep.excerpt import compile_pattern, excerpter
from ctx_tree_mcp.engines.grep.lineends import LONE_CR_BYTES
from ctx_tree_mcp.engines.grep.ripgrep import (
    LONG_LINE,
    GrepResult,
    add_line,
    invalid_pattern,
    start_rg,
)

if TYPE_CHECKING:
    import regex

#: Bytes read to tell a binary file (a NUL byte among them), as ripgrep does.
BINARY_PROBE = 8192


async def list_files(args: list[str], cwd: Path, timeout_s: float) -> tuple[list[str], bool]:
    """The files ``rg --files`` lists with ``args`` (see :func:`ripgrep.files_args`), and
    whether the listing finished: at ``timeout_s`` seconds rg is stopped and the files listed
    by then are returned with False."""
    proc = await start_rg(args, cwd, stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdout is not None
    blocks: list[bytes] = []

    async def read() -> None:
        assert proc.stdout is not None
        while block := await proc.stdout.read(1 << 16):
            blocks.append(block)

    finished = True
    try:
        await asyncio.wait_for(read(), timeout_s)
    except TimeoutError:
        finished = False
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
    names = b"".join(blocks).split(b"\0")
    if not finished:
        names = names[:-1]  # the last name may be cut
    return [p.decode("utf-8", "replace").removeprefix("./") for p in names if p], finished


async def search(
    pattern: str,
    cwd: Path,
    files: list[str],
    *,
    ignore_case: bool,
    multiline: bool,
    context_lines: int,
    timeout_s: float,
    max_matches: int,
    keep_bytes: int,
    after_context: int | None = None,
) -> GrepResult:
    """Search ``files`` (relative to ``cwd``) for ``pattern``: ``context_lines`` lines
    before each matched line, ``after_context`` (default: the same) after it.

    Raises :class:`~ctx_tree_mcp.errors.ToolInputError` (``pattern``) when the ``regex``
    module cannot compile it.
    Cancelling the awaiting task stops the worker thread at its next file.
    """
    matcher = compile_pattern(pattern, ignore_case=ignore_case, fixed_strings=False)
    if matcher is None:
        import regex

        try:
            regex.compile(pattern)
        except (regex.error, ValueError, OverflowError, RecursionError) as exc:
            raise invalid_pattern(str(exc)) from None
        raise invalid_pattern("not accepted by the regex module")
    stop = threading.Event()
    deadline = time.monotonic() + timeout_s
    job = asyncio.to_thread(
        _search_files,
        matcher,
        cwd,
        files,
        multiline,
        (context_lines, context_lines if after_context is None else after_context),
        deadline,
        max_matches,
        keep_bytes,
        stop,
    )
    try:
        return await job
    except asyncio.CancelledError:
        stop.set()
        raise


def _search_files(
    matcher: regex.Pattern[str],
    cwd: Path,
    files: list[str],
    multiline: bool,
    context: tuple[int, int],
    deadline: float,
    max_matches: int,
    keep_bytes: int,
    stop: threading.Event,
) -> GrepResult:
    result = GrepResult(searched=0, to_search=len(files))
    before, after = context
    cut = excerpter(lambda: matcher)
    for index, rel in enumerate(files):
        result.searched = index  # files searched to the end before this one
        left = deadline - time.monotonic()
        if stop.is_set() or left <= 0:
            result.timed_out = True
            break
        try:
            data = (cwd / rel).read_bytes()
        except OSError:
            continue
        if b"\0" in data[:BINARY_PROBE]:
            continue
        text = data.decode("utf-8", "replace")
        try:
            hits = _match_lines(matcher, text, multiline, max_matches - result.match_count, left)
        except TimeoutError:
            result.timed_out = True
            break
        if not hits:
            continue
        if b"\r" in data and LONE_CR_BYTES.search(data):
            result.lone_cr.add(rel)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        shown = sorted(
            {
                n
                for hit in hits
                for n in range(max(1, hit - before), min(len(lines), hit + after) + 1)
            }
        )
        for n in shown:
            line = lines[n - 1]
            raw = len(rel) + len(str(n)) + len(line.encode("utf-8", "surrogatepass")) + 2
            add_line(
                result,
                rel,
                n,
                cut(line) if len(line) > LONG_LINE else line,
                n in hits,
                keep_bytes,
                raw,
            )
        if result.match_count >= max_matches:
            result.capped = True
            result.searched = index + 1
            break
    else:
        result.searched = len(files)
    return result


def _match_lines(
    matcher: regex.Pattern[str], text: str, multiline: bool, room: int, timeout: float
) -> set[int]:
    """1-based numbers of the lines holding a match (every line a multi-line match spans).
    Without ``multiline`` a match that would cross a line end is searched again within its
    first line, as ripgrep searches line by line. Raises ``TimeoutError`` after ``timeout``."""
    hits: set[int] = set()
    number, pos = 1, 0
    for m in matcher.finditer(text, timeout=timeout):
        start, end = m.span()
        number += text.count("\n", pos, start)
        pos = start
        if "\n" in text[start:end]:
            if multiline:
                hits.update(range(number, number + text.count("\n", start, end - 1) + 1))
            else:
                first = text.rfind("\n", 0, start) + 1
                last = text.find("\n", start)
                if matcher.search(text, first, last if last >= 0 else len(text), timeout=timeout):
                    hits.add(number)
        else:
            hits.add(number)
        if len(hits) >= room:
            break
    return hits
