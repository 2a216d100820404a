"""Grep output lines that lie inside a PEM private key block of their file (docs/security.md).

A grep shows a key's body lines without its ``BEGIN`` and ``END`` lines, where redaction
cannot tell them from any other base64: they are judged on the whole file, its lines ended as
read ends them (LF, CRLF or a lone CR, docs/tools.md). This module is that one rule, for both
greps ctx-tree sees: ``ctx_tree_grep``'s answer, whose lines carry read's line numbers, and
the host's native Grep output the capture ingester stores, which may have no numbers (a line
is then judged by its text). Each caller only walks its own output's shape::

    if might_hold_key(shown_text):
        blocks = key_blocks(file_text)
        ... line = KEY_LINE_MARK if blocks.holds(line, number) else line
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: An output line that could lie inside a PEM block: a base64 run alone on its line (quotes,
#: ``\n`` escapes and concatenation around it allowed), or a BEGIN/END line.
KEY_LINE = re.compile(
    r"PRIVATE KEY|^[\s\"'`,;()\[\]+]*[A-Za-z0-9+/]{16,}={0,2}(?:\\[nr])?[\s\"'`,;()\[\]+]*$",
    re.M,
)
#: What a hidden line's text becomes (one line stays one line: counts and offsets stay true).
KEY_LINE_MARK = "[REDACTED:private_key]"
#: Bytes of a file read to number its lines or find its PEM blocks (larger files: the first
#: this many bytes).
SCAN_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class KeyBlocks:
    """The PEM private key blocks of one file: ``ranges``, 1-based inclusive ``(first,
    last)`` line numbers (``BEGIN`` and ``END`` lines included); ``texts``, those lines'
    texts, stripped."""

    ranges: tuple[tuple[int, int], ...] = ()
    texts: frozenset[str] = frozenset()

    def holds(self, text: str, number: int | None = None) -> bool:
        """Whether the output line ``text`` (without its path or number) lies inside a block:
        by its line ``number`` when the output gives read's numbers, else by its text."""
        if number is not None:
            return any(first <= number <= last for first, last in self.ranges)
        return text.strip() in self.texts


def might_hold_key(shown: str) -> bool:
    """A cheap test on the shown lines of one file (or one line): False when none can lie
    inside a PEM block, so the file need not be read."""
    return KEY_LINE.search(shown) is not None


def read_start(path: Path) -> bytes:
    """The first :data:`SCAN_BYTES` bytes of the file at ``path``. Raises ``OSError``."""
    with open(path, "rb") as fh:
        return fh.read(SCAN_BYTES)


def key_blocks(text: str) -> KeyBlocks:
    """The blocks of ``text``, a whole file (decoded as read decodes it); empty when it holds
    no private key."""
    from ctx_tree_mcp.answers.render import split_lines
    from ctx_tree_mcp.wire.redact import private_key_lines

    if "PRIVATE KEY" not in text:
        return KeyBlocks()
    ranges = tuple(private_key_lines(text))
    rows = split_lines(text)
    texts = frozenset(r.strip() for first, last in ranges for r in rows[first - 1 : last])
    return KeyBlocks(ranges, texts)
