"""Running ripgrep: locate the ``ripgrep`` PyPI package's ``rg`` and parse its output.

``rg`` is looked up beside the running interpreter first (the venv's scripts directory, where
the ``ripgrep`` package installs it), then on ``PATH``. Output is read with ``--null`` so paths
holding ``:`` parse correctly. The search honours ``.gitignore`` (ripgrep's default), stops at a
timeout and at a match cap, and the process is killed when the caller is cancelled.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .errors import CtxTreeError, ToolInputError


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
    kept_all: bool = True
    timed_out: bool = False
    capped: bool = False
    error: str = ""


def build_args(
    pattern: str,
    target: str,
    *,
    glob: str | None,
    ignore_case: bool,
    fixed_strings: bool,
    context_lines: int,
    deny_globs: tuple[str, ...],
) -> list[str]:
    """The ``rg`` argument list (without the executable)."""
    args = [
        "--no-heading",
        "--with-filename",
        "--line-number",
        "--null",
        "--color",
        "never",
        "--no-messages",
    ]
    args += ["--max-columns", "400", "--max-columns-preview", "--no-config"]
    if ignore_case:
        args.append("--ignore-case")
    if fixed_strings:
        args.append("--fixed-strings")
    if context_lines:
        args += ["--context", str(context_lines)]
    if glob:
        args += ["--glob", glob]
    for deny in deny_globs:  # case-insensitive, as the path policy is
        args += ["--iglob", "!" + deny]
    args += ["--regexp", pattern, "--", target]
    return args


# One output line: path NUL number (':' match | '-' context) text. Parsed in C by the regex.
_LINE = re.compile(rb"^([^\x00\n]*)\x00(\d+)([:-])([^\n]*)$", re.M)


def _parse_block(block: bytes, result: GrepResult, keep_bytes: int) -> None:
    for path_b, num, kind, text in _LINE.findall(block):
        path = path_b.decode("utf-8", "replace")
        if path.startswith("./"):
            path = path[2:]
        is_match = kind == b":"
        if is_match:
            result.match_count += 1
            result.counts[path] = result.counts.get(path, 0) + 1
        else:
            result.counts.setdefault(path, 0)
        size = len(path_b) + len(num) + len(text) + 2
        result.output_bytes += size
        if result.output_bytes <= keep_bytes:
            result.files.setdefault(path, []).append(
                Line(int(num), text.decode("utf-8", "replace"), is_match)
            )
        else:
            result.kept_all = False


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
    args: list[str], cwd: Path, *, timeout_s: float, max_matches: int, keep_bytes: int
) -> GrepResult:
    """Run ``rg`` with ``args`` in ``cwd``; stop at ``timeout_s`` seconds or ``max_matches``.

    Every match is counted per file; the lines themselves are kept only for the first
    ``keep_bytes`` bytes of output (what the store keeps, ``capture.maxBytes``).

    Raises :class:`ToolInputError` (argument ``pattern`` or ``glob``) when rg rejects the regex
    or glob, :class:`RipgrepMissing` when rg is absent. Cancelling the awaiting task kills rg.
    """
    proc = await asyncio.create_subprocess_exec(
        find_rg(),
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    result = GrepResult()

    async def consume() -> None:
        assert proc.stdout is not None
        pending = b""
        while True:
            block = await proc.stdout.read(1 << 18)
            if not block:
                break
            block = pending + block
            cut = block.rfind(b"\n") + 1
            pending = block[cut:]
            _parse_block(block[:cut], result, keep_bytes)
            if result.match_count >= max_matches:
                result.capped = True
                return
        if pending:
            _parse_block(pending, result, keep_bytes)

    try:
        try:
            await asyncio.wait_for(consume(), timeout=timeout_s)
        except TimeoutError:
            result.timed_out = True
        if result.capped or result.timed_out:
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
        if "regex" in message.lower() or "error parsing" in message.lower():
            detail = " ".join(line.strip() for line in message.splitlines()[-4:])
            raise ToolInputError(
                "pattern",
                f"invalid regex ({detail[:300]}); escape special characters or pass fixed_strings=true",
            )
        result.error = message[:300]
    return result
