"""Single-file components (Vue ``.vue``, Svelte ``.svelte``): symbols of their ``<script>``.

A component is markup with top-level ``<template>``, ``<script>`` and ``<style>`` blocks (a
tag at the start of a line, up to the first line holding its closing tag). The rows between a
script's tags are parsed with the JavaScript grammar, or TypeScript when a script says
``lang="ts"`` (``_embedded.chunk_blocks``). Other blocks become ``section`` chunks named
``template`` or ``style`` (Svelte's loose markup: ``markup``), and every block is a ``section``
symbol of the outline, so ``symbol="template"`` reads it.
"""

from __future__ import annotations

import re

from ._embedded import Block, chunk_blocks
from ._text import Lines
from ._types import Chunk, Symbol

_OPEN = re.compile(r"^<(script|template|style)\b([^>]*)>", re.I)
_LANG = re.compile(r"""\blang\s*=\s*["']?(ts|typescript|tsx)\b""", re.I)


def _blocks(lines: Lines) -> list[tuple[Block, str]]:
    """Top-level blocks with their opening tag's attributes."""
    out: list[tuple[Block, str]] = []
    row = 0
    while row < lines.n:
        m = _OPEN.match(lines.lines[row])
        if m is None:
            row += 1
            continue
        tag, attrs = m.group(1).lower(), m.group(2)
        close = f"</{tag}"
        end = row
        rest = lines.lines[row][m.end() :]
        while close not in rest.lower() and end + 1 < lines.n:
            end += 1
            rest = lines.lines[end]
        code = (row + 1, end - 1) if tag == "script" and end - 1 >= row + 1 else None
        out.append((Block(tag, row, end, code), attrs))
        row = end + 1
    return out


def _filler(line: str) -> bool:
    return not line.strip() or line.strip().lower() == "</script>"


def chunk_sfc(
    language: str, raw: bytes, offset: int, lines: Lines, max_tokens: int
) -> tuple[list[Chunk], list[Symbol], bool]:
    """Chunks and symbols of a component; ``raw`` is the input without a BOM."""
    del language  # vue and svelte are read the same way
    found = _blocks(lines)
    typescript = any(_LANG.search(attrs) for block, attrs in found if block.name == "script")
    return chunk_blocks(
        "typescript" if typescript else "javascript",
        raw,
        offset,
        lines,
        max_tokens,
        [block for block, _ in found],
        _filler,
    )
