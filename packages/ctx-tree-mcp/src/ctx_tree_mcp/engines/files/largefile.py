"""Lines of a large file read from disk, without parsing or storing the file (docs/tools.md,
"Large files").

A read by lines, or without a selector, of a file over :data:`LARGE_FILE_BYTES` costs the
lines it answers, not the file: the file is scanned once in blocks for its line ends (in C:
``bytes.count``; a block holding a CR is counted by its CRLF, lone-CR and LF ends, as
read numbers lines, docs/tools.md "Line numbers"), and only the bytes of the lines shown are
decoded and redacted. A parse and a store of a 45 MB file took half a minute and 1.6 GB for
three of its lines.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: Files larger than this (bytes) are read by lines from disk (read by lines or without a
#: selector); ``symbol`` and ``query`` reads still parse and store them.
LARGE_FILE_BYTES = 1 << 20
#: Bytes read at a time while counting line ends.
BLOCK_BYTES = 1 << 20
#: Bytes looked at to tell a text file's encoding, and binary (a NUL among the first 8 KiB).
SAMPLE_BYTES = 64 * 1024
BINARY_PROBE = 8192
#: Bytes before and after what is shown that are redacted with it, so a secret (a PEM block)
#: across the edge is recognised whole.
REDACT_MARGIN = 4096

_ENDS = re.compile(rb"\r\n|\r|\n")


class NotPlainText(Exception):
    """The file is text in another encoding than UTF-8: it is read through the store
    (``filecache``), which decodes it."""


@dataclass(frozen=True, slots=True)
class Window:
    """Lines ``first..last`` (1-based, inclusive) of a file, read from disk and redacted:
    ``head`` holds lines from ``first`` on (the last one cut when ``head_cut``: a line longer
    than what was read of it), ``tail`` the lines that end at ``last`` when ``head`` does not
    reach them (the lines between are not read), each without its line end. ``total_lines``
    and ``size`` (bytes) are the whole file's."""

    first: int
    last: int
    total_lines: int
    size: int
    head: tuple[str, ...]
    head_cut: bool
    tail: tuple[str, ...]

    @property
    def whole(self) -> bool:
        """True when every line of the range was read whole."""
        return not self.tail and not self.head_cut and len(self.head) == self.last - self.first + 1


def _ends(block: bytes) -> int:
    """Line ends in ``block`` (CRLF, a lone CR, LF), a CRLF never split between blocks."""
    if b"\r" not in block:
        return block.count(b"\n")
    return block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")


def _read_block(fh: BinaryIO) -> bytes:
    """The next block, extended by one byte when it ends inside a CRLF."""
    block = fh.read(BLOCK_BYTES)
    if block.endswith(b"\r"):
        more = fh.read(1)
        if more == b"\n":
            block += more
        elif more:
            fh.seek(-1, 1)
    return block


def _scan(fh: BinaryIO, wanted: list[int]) -> tuple[dict[int, int], int, bool]:
    """For each ``n`` in ``wanted``, the byte offset just past the file's ``n``-th line end
    (``0`` for ``n = 0``; missing when there are fewer ends); the number of line ends; and
    whether the file ends with one."""
    found = {n: 0 for n in wanted if n <= 0}
    todo = sorted({n for n in wanted if n > 0})
    pos = ends = 0
    ended = True
    while block := _read_block(fh):
        count = _ends(block)
        while todo and ends + count >= todo[0]:
            target = todo.pop(0) - ends
            for seen, m in enumerate(_ENDS.finditer(block), 1):
                if seen == target:
                    found[ends + target] = pos + m.end()
                    break
        ends += count
        pos += len(block)
        ended = block.endswith((b"\n", b"\r"))
    return found, ends, ended


def _decode(data: bytes, *, final: bool) -> str:
    """UTF-8 ``data`` as text: an undecodable byte as U+FFFD, a character cut at the end of
    a part (``final=False``) left out."""
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=final)


def _lines(text: str) -> list[str]:
    from ctx_tree_mcp.answers.render import split_lines

    return split_lines(text, keepends=True)


def _redacted(fh: BinaryIO, start: int, end: int, limit: int) -> tuple[list[str], bool]:
    """The lines of bytes ``start..end`` (``start`` a line start, ``end`` a line's end or the
    file's), without their line ends; at most ``limit`` bytes of them, the last line then
    cut (True). They are redacted as one text with up to :data:`REDACT_MARGIN` bytes of
    whole lines before them and after them (after the cut when cut), so a secret across an
    edge is seen whole (redaction keeps the line count, which places them again)."""
    from ctx_tree_mcp.wire.redact import redact_key_bodies, redact_text

    cut = end - start > limit
    stop = start + limit if cut else end
    lo = max(0, start - REDACT_MARGIN)
    fh.seek(lo)
    data = fh.read(stop + REDACT_MARGIN - lo)
    before = data[: start - lo]
    if not lo:
        before = before.removeprefix(codecs.BOM_UTF8)
    else:  # from a whole line on
        first_end = _ENDS.search(before)
        before = before[first_end.end() :] if first_end else b""
    shown = data[start - lo : stop - lo]
    after = data[stop - lo :]
    if cut:
        after = after[: end - stop]  # the cut line's own continuation, no further
    else:
        last_end = max(after.rfind(b"\n"), after.rfind(b"\r"))
        after = after[: last_end + 1] if last_end >= 0 else b""
    before_text = _decode(before, final=True)
    body = _decode(shown, final=not cut)
    whole = before_text + body + _decode(after, final=False)
    redacted = _lines(redact_key_bodies(redact_text(whole)))
    skip, keep = len(_lines(before_text)), _lines(body)
    if len(redacted) == len(_lines(whole)):
        kept = redacted[skip : skip + len(keep)]
    else:  # a line end moved: the part alone, redacted
        kept = _lines(redact_key_bodies(redact_text(body)))
    lines = [line.rstrip("\r\n") for line in kept]
    if cut and lines:  # the cut line as far as it was read
        lines[-1] = lines[-1][: len(keep[-1])]
    return lines, cut


def read_window(path: Path, first: int, last: int | None, max_bytes: int) -> Window:
    """Lines ``first..last`` (``last`` None: to the end; clamped to the file) of the text
    file at ``path``, at most ``max_bytes`` of them read from ``first`` on and as many
    ending at ``last``.

    Raises ``OSError``; :class:`~ctx_tree_mcp.engines.files.textcodec.Binary` for a NUL in
    the first 8 KiB or bytes no encoding reads; :class:`NotPlainText` for text in another
    encoding than UTF-8 (the caller reads it through the store).
    """
    from ctx_tree_mcp.engines.files.textcodec import Binary, to_utf8

    with open(path, "rb") as fh:
        sample = fh.read(SAMPLE_BYTES)
        _, encoding = to_utf8(sample, complete=False)
        if encoding not in (None, "utf-8"):
            raise NotPlainText(encoding)
        if b"\x00" in sample[:BINARY_PROBE]:
            raise Binary("NUL bytes")
        bom = len(codecs.BOM_UTF8) if sample.startswith(codecs.BOM_UTF8) else 0
        fh.seek(0)
        found, ends, ended = _scan(fh, [first - 1, *([last] if last is not None else [])])
        size = fh.tell()
        total = ends + (0 if ended or size <= bom else 1)
        last = total if last is None else min(last, total)
        start = max(found.get(first - 1, size), bom)
        end = found.get(last, size)
        if first > total or last < first:
            return Window(first, last, total, size, (), False, ())
        head, cut = _redacted(fh, start, end, max_bytes)
        tail: list[str] = []
        shown_to = first + len(head) - 1
        if shown_to < last and end - start > max_bytes:
            # the lines ending at `last`: the whole lines of its last max_bytes // 4 bytes
            at = max(start + max_bytes, end - max(1, max_bytes // 4))
            fh.seek(at)
            part = fh.read(end - at)
            first_end = _ENDS.search(part)
            if first_end is not None and first_end.end() < len(part):
                tail, _ = _redacted(fh, at + first_end.end(), end, end - at)
                tail = tail[-(last - shown_to) :] if last > shown_to else []
    return Window(first, last, total, size, tuple(head), cut, tuple(tail))
