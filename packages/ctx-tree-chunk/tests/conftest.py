from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def _check_tiling(cf, data: bytes) -> None:
    """Chunks are ordered, contiguous, cover every line once and rebuild the text."""
    text = data[3:].decode() if data.startswith(b"\xef\xbb\xbf") else data.decode()
    assert "".join(c.text for c in cf.chunks) == text
    line = 1
    for c in cf.chunks:
        assert c.start_line == line, (c, line)
        assert c.end_line >= c.start_line
        assert data[c.start_byte : c.end_byte].decode() == c.text
        assert c.text.count("\n") in (c.end_line - c.start_line, c.end_line - c.start_line + 1)
        line = c.end_line + 1
    assert line - 1 == cf.total_lines
    if cf.chunks:
        assert cf.chunks[-1].end_byte == len(data)
    for s in cf.symbols:
        assert 1 <= s.start_line <= s.def_line <= s.end_line <= cf.total_lines, s


@pytest.fixture
def check_tiling():
    return _check_tiling
