"""Grep output lines that lie inside a PEM private key block of their file (docs/security.md).

A grep shows a key's body lines without its ``BEGIN`` and ``END`` lines, where redaction
cannot tell them from any other base64: they are judged on the whole file, its lines ended as
read ends them (LF, CRLF or a lone CR, docs/tools.md). ``ctx_tree_grep`` hides them by line
number; the capture ingester, whose native Grep output may have no numbers, by text.
"""

from __future__ import annotations

import re
from pathlib import Path

#: An output line that could lie inside a PEM block: a base64 run alone on its line (quotes,
#: ``\n`` escapes and concatenation around it allowed), or a BEGIN/END line.
KEY_LINE = re.compile(
    r"PRIVATE KEY|^[\s\"'`,;()\[\]+]*[A-Za-z0-9+/]{16,}={0,2}(?:\\[nr])?[\s\"'`,;()\[\]+]*$",
    re.M,
)
#: Bytes of a file read to number its lines or find its PEM blocks (larger files: the first
#: this many bytes).
SCAN_BYTES = 64 << 20


def read_start(path: Path) -> bytes:
    """The first :data:`SCAN_BYTES` bytes of the file at ``path``. Raises ``OSError``."""
    with open(path, "rb") as fh:
        return fh.read(SCAN_BYTES)


def block_line_texts(text: str) -> set[str]:
    """The lines (stripped) of ``text``, a whole file, that lie inside a PEM private key block,
    its ``BEGIN`` and ``END`` lines included; empty when it holds none."""
    from ctx_tree_mcp.answers.render import split_lines
    from ctx_tree_mcp.guard.redact import private_key_lines

    if "PRIVATE KEY" not in text:
        return set()
    rows = split_lines(text)
    return {r.strip() for first, last in private_key_lines(text) for r in rows[first - 1 : last]}
