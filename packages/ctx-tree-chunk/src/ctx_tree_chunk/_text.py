"""Decoding and line bookkeeping shared by all chunkers."""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from ._types import BinaryContentError, Chunk

_BOM = b"\xef\xbb\xbf"
_SNIFF = 8192
_FILLER_CHARS = " \t\r\n\f\v{}()[];,"
_LONE_CR = re.compile(r"\r(?!\n)")
#: One line and its end (CRLF, CR or LF), or a last line without one.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def default_count_tokens(text: str) -> int:
    """Estimate tokens as ``ceil(len(text) / 4)`` (characters / 4)."""
    return math.ceil(len(text) / 4)


def decode(data: bytes) -> tuple[str, int]:
    """Decode UTF-8 input; return ``(text, offset)`` where ``offset`` is 3 after a BOM else 0.

    Raises:
        BinaryContentError: NUL byte in the first 8 KiB, or invalid UTF-8.
    """
    if b"\x00" in data[:_SNIFF]:
        raise BinaryContentError("input looks binary (NUL byte in the first 8 KiB)")
    offset = 3 if data.startswith(_BOM) else 0
    try:
        return data[offset:].decode("utf-8"), offset
    except UnicodeDecodeError as exc:
        raise BinaryContentError(f"input is not valid UTF-8: {exc}") from None


class Lines:
    """The text split into lines on ``\\n`` (each keeps its line ending), with byte offsets.

    Rows are 0-based internally; the public types are 1-based.
    """

    __slots__ = ("_cost_prefix", "_count", "byte_starts", "char_prefix", "lines", "n")

    def __init__(
        self,
        text: str,
        byte_offset: int,
        count_tokens: Callable[[str], int] | None,
    ) -> None:
        if "\r" in text and _LONE_CR.search(text):
            # a lone CR ends a line too (classic Mac files, mixed line ends)
            self.lines = _LINE.findall(text)
        else:
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
                self.lines = [line + "\n" for line in lines]
            else:
                last = lines.pop()
                self.lines = [line + "\n" for line in lines] + [last]
        self.n = len(self.lines)
        sizes = [len(line) for line in self.lines]
        bsizes = sizes if text.isascii() else [len(line.encode("utf-8")) for line in self.lines]
        self.byte_starts = list(accumulate(bsizes, initial=byte_offset))
        self.char_prefix = list(accumulate(sizes, initial=0))
        self._count = count_tokens
        self._cost_prefix: list[int] | None = None

    def is_blank(self, row: int) -> bool:
        return not self.lines[row].strip()

    def text(self, a: int, b: int) -> str:
        return "".join(self.lines[a : b + 1])

    def cost(self, a: int, b: int) -> int:
        """Token estimate of rows ``a..b`` (inclusive)."""
        if b < a:
            return 0
        if self._count is None:
            return math.ceil((self.char_prefix[b + 1] - self.char_prefix[a]) / 4)
        if self._cost_prefix is None:
            self._cost_prefix = list(accumulate((self._count(ln) for ln in self.lines), initial=0))
        return self._cost_prefix[b + 1] - self._cost_prefix[a]

    def exact_cost(self, a: int, b: int) -> int:
        if self._count is None:
            return self.cost(a, b)
        return self._count(self.text(a, b))

    def chunk(
        self, a: int, b: int, symbol: str | None, kind: str, chunking: str, doc: str | None = None
    ) -> Chunk:
        return Chunk(
            symbol=symbol,
            kind=kind,
            start_line=a + 1,
            end_line=b + 1,
            start_byte=self.byte_starts[a],
            end_byte=self.byte_starts[b + 1],
            text=self.text(a, b),
            chunking=chunking,
            doc=doc,
        )


#: How far past ``max_tokens`` a symbol's first part may run to hold its definition line.
FIRST_PART_STRETCH = 1.5


def split_range(
    lines: Lines,
    a: int,
    b: int,
    max_tokens: int,
    boundaries: list[int] | None = None,
    first_through: int | None = None,
) -> list[tuple[int, int]]:
    """Split rows ``a..b`` into pieces of at most ``max_tokens`` (estimated).

    Cuts prefer ``boundaries`` (rows where a statement starts), then rows following a
    blank line, then any row.  A single line longer than the budget is its own piece.

    ``first_through``: a row the first piece must hold, the definition line of a symbol
    whose doc comment or decorators come first, so that a symbol's first part always names
    it (a part of doc comment alone says what, but not where). When the first cut would fall
    before it, the first piece is cut as above within :data:`FIRST_PART_STRETCH` times the
    budget and after that row (so it also keeps the lines that follow the definition, a
    Python docstring among them); a lead-in longer than that is cut as any range is.
    """
    if b < a:
        return []
    if lines.exact_cost(a, b) <= max_tokens:
        return [(a, b)]
    preferred = sorted({r for r in boundaries or () if a < r <= b})
    pieces: list[tuple[int, int]] = []
    start = a
    while start <= b:
        if lines.cost(start, b) <= max_tokens:
            pieces.append((start, b))
            break
        cut = _cut(lines, preferred, start, b, max_tokens, start)
        if start == a and first_through is not None and cut <= first_through <= b:
            stretched = int(max_tokens * FIRST_PART_STRETCH)
            if lines.cost(a, first_through) <= stretched:
                cut = _cut(lines, preferred, a, b, stretched, first_through + 1)
        pieces.append((start, cut - 1))
        start = cut
    return pieces


def _cut(lines: Lines, preferred: list[int], start: int, b: int, budget: int, floor: int) -> int:
    """Where the piece starting at ``start`` ends (exclusive): the furthest fitting row after
    ``floor - 1`` that starts a statement, else follows a blank line, else any fitting row
    (never before ``floor``, never a piece under a third of ``budget`` when a longer one
    fits)."""
    # furthest row `end` (exclusive) such that start..end-1 fits
    lo, hi = max(start + 1, floor), b + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if lines.cost(start, mid - 1) <= budget:
            lo = mid
        else:
            hi = mid - 1
    limit = lo  # start..limit-1 fits (at least one row; at least up to floor)
    i = bisect_right(preferred, limit) - 1
    cut = preferred[i] if i >= 0 and preferred[i] > start and preferred[i] >= floor else None
    if cut is None or lines.cost(start, cut - 1) < budget // 3:
        blank_cut = None
        for r in range(limit, max(start, floor - 1), -1):
            if lines.is_blank(r - 1) and not (r <= b and lines.is_blank(r)):
                blank_cut = r
                break
        if blank_cut is not None and lines.cost(start, blank_cut - 1) >= budget // 3:
            cut = blank_cut
        elif cut is None or lines.cost(start, cut - 1) < budget // 3:
            cut = limit
    return cut


def is_filler(line: str) -> bool:
    """Blank, or only closing/opening brackets, ``;``, ``,`` and at most an ``end``."""
    return line.strip(_FILLER_CHARS) in ("", "end")


@dataclass(slots=True)
class Span:
    """A stretch of rows on its way to becoming a chunk: rows ``start..end`` (0-based,
    inclusive), the symbol it holds (None for none), the chunk kind, and whether it is a gap
    between definitions rather than a definition, and the doc summary of the symbol it starts."""

    start: int
    end: int
    symbol: str | None
    kind: str
    gap: bool
    doc: str | None = None


def finalize(lines: Lines, items: list[Span], chunking: str) -> list[Chunk]:
    """Turn spans (in order, tiling the file) into chunks.

    Gap items made only of blank lines and brackets (or ``end``) are merged into the
    previous chunk (the next one at the top of the file); a gap's leading blank lines go
    to the previous chunk.
    """
    merged: list[Span] = []
    pending: int | None = None
    for item in items:
        a, b, gap = item.start, item.end, item.gap
        if gap and all(is_filler(lines.lines[r]) for r in range(a, b + 1)):
            if merged:
                merged[-1].end = b
            elif pending is None:
                pending = a
            continue
        if pending is not None:
            item.start = pending
            pending = None
        elif gap and merged:
            while a < b and lines.is_blank(a):
                a += 1
            merged[-1].end = a - 1
            item.start = a
        merged.append(item)
    if pending is not None:  # the whole file is filler
        merged.append(Span(pending, lines.n - 1, None, "module", True))
    return [lines.chunk(m.start, m.end, m.symbol, m.kind, chunking, m.doc) for m in merged]


def emit_split(
    lines: Lines,
    out: list[Span],
    a: int,
    b: int,
    symbol: str | None,
    kind: str,
    max_tokens: int,
    gap: bool,
    boundaries: Callable[[], list[int] | None] | None = None,
    doc: str | None = None,
    def_row: int | None = None,
    doc_row: int | None = None,
) -> None:
    """Append rows ``a..b`` to ``out`` as one item, or as ``symbol#1``, ``#2``... parts
    when above ``max_tokens`` (gap parts keep their symbol unnumbered); ``doc`` goes with
    the part holding ``doc_row`` (the docstring's last row; the first part when None or
    not found). ``def_row``: the last row the first part must hold (see :func:`split_range`)."""
    if b < a:
        return
    if lines.exact_cost(a, b) <= max_tokens:
        out.append(Span(a, b, symbol, kind, gap, doc))
        return
    pieces = split_range(
        lines, a, b, max_tokens, boundaries() if boundaries else None, first_through=def_row
    )
    many = len(pieces) > 1
    holder = next(
        (i for i, (x, y) in enumerate(pieces, 1) if doc_row is not None and x <= doc_row <= y), 1
    )
    for i, (x, y) in enumerate(pieces, 1):
        sym = f"{symbol}#{i}" if symbol is not None and many and not gap else symbol
        out.append(Span(x, y, sym, kind, gap, doc if i == holder else None))
