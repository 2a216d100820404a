"""Code embedded in a file of blocks: Vue/Svelte ``<script>`` blocks, notebook code cells.

The code rows of every block are parsed with one grammar over a copy of the text in which every
other byte is a space (newlines kept): rows and byte offsets stay the file's, so the code
chunker's chunks and symbols need no shifting. Its chunks are then cut at block boundaries;
a piece outside code takes its block's name (``section`` kind), and pieces of code keep the
code chunker's symbol. Each block is also a ``section`` symbol of the outline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._text import Lines
from ._types import Chunk, Symbol

#: Every byte but a newline to a space: the rest hidden, rows and offsets kept.
_MASK = bytes(0x0A if b == 0x0A else 0x20 for b in range(256))


@dataclass(frozen=True, slots=True)
class Block:
    """Rows ``first..last`` (0-based, inclusive) named ``name``; ``code`` is the range of rows
    holding code (``None``: no code), inside ``first..last``."""

    name: str
    first: int
    last: int
    code: tuple[int, int] | None = None


def chunk_blocks(
    language: str | None,
    raw: bytes,
    offset: int,
    lines: Lines,
    max_tokens: int,
    blocks: list[Block],
    is_filler: Callable[[str], bool] = lambda line: not line.strip(),
) -> tuple[list[Chunk], list[Symbol], bool]:
    """Chunks (tiling ``lines``) and outline of a file made of ``blocks``; ``raw`` is the text's
    bytes without a BOM (``offset`` bytes dropped). ``language`` parses the code rows (None:
    no code is parsed). Rows in no block are named ``markup``. ``is_filler(line)`` lines (by
    default blank ones) go with the piece above instead of standing alone."""
    from ._code import chunk_code
    from ._text import split_range

    chunks: list[Chunk]
    symbols: list[Symbol] = []
    has_errors = False
    code = [b.code for b in blocks if b.code is not None]
    if language is not None and code:
        masked = bytearray(raw.translate(_MASK))
        for a, b in code:
            start, end = lines.byte_starts[a] - offset, lines.byte_starts[b + 1] - offset
            masked[start:end] = raw[start:end]
        chunks, symbols, has_errors = chunk_code(language, bytes(masked), offset, lines, max_tokens)
    else:
        chunks = [
            lines.chunk(a, b, None, "module", "fallback")
            for a, b in split_range(lines, 0, lines.n - 1, max_tokens)
        ]

    def block_at(row: int) -> Block | None:
        for block in blocks:
            if block.first <= row <= block.last:
                return block
        return None

    cuts = sorted({row for b in blocks for row in (b.first, b.last + 1)})
    pieces: list[list[Any]] = []  # [first_row, last_row, symbol, kind, in code, doc]
    for c in chunks:
        doc = c.doc  # goes with the chunk's first piece of code
        start = c.start_line - 1
        for cut in [*(x for x in cuts if start < x <= c.end_line - 1), c.end_line]:
            block = block_at(start)
            in_code = block is not None and block.code is not None and language is not None
            label = (
                [c.symbol, c.kind] if in_code else [block.name if block else "markup", "section"]
            )
            if pieces and all(is_filler(lines.lines[r]) for r in range(start, cut)):
                pieces[-1][1] = cut - 1  # blank lines, a closing tag: with the piece above
            elif (
                pieces
                and not in_code
                and pieces[-1][2:5] == [*label, False]
                and lines.cost(pieces[-1][0], cut - 1) <= max_tokens
            ):
                pieces[-1][1] = cut - 1  # windows of one block: together while they fit
            else:
                pieces.append([start, cut - 1, *label, in_code, doc if in_code else None])
                doc = None if in_code else doc
            start = cut
    named = [
        lines.chunk(a, b, sym, kind, "tree-sitter" if code_piece else "structure", doc)
        for a, b, sym, kind, code_piece, doc in pieces
    ]
    outline = [
        Symbol(
            name=b.name,
            kind="section",
            start_line=b.first + 1,
            def_line=b.first + 1,
            end_line=b.last + 1,
            parent=None,
        )
        for b in blocks
    ]
    merged = sorted([*outline, *symbols], key=lambda s: (s.start_line, s.kind != "section"))
    return named, merged, has_errors
