"""A file of many chunks: the chunk found for a line range by bisection is the one a full scan
finds, so every line range, symbol and whole-file read shows the file's own lines."""

from __future__ import annotations

import re

import pytest
from ctx_tree_mcp.engines.files.filecache import load
from ctx_tree_mcp.tools.read import read

DEFS = 400
SOURCE = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(DEFS))
FILE_LINES = SOURCE.split("\n")[:-1]


@pytest.fixture
def many(root):
    (root / "many.py").write_text(SOURCE, encoding="utf-8")
    return "many.py"


def _numbered(text: str) -> dict[int, str]:
    return {int(m[1]): m[2] for m in re.finditer(r"^(\d+)\t(.*)$", text, re.M)}


def _view(app, rel):
    resolved = app.policy.resolve(rel)
    return load(app, resolved, resolved.absolute.stat())


def test_chunks_over_matches_a_full_scan(app, many):
    view = _view(app, many)
    assert len(view.chunks) > 50
    total = view.total_lines
    for first, last in [(1, 1), (2, 9), (37, 37), (100, 260), (total - 3, total), (1, total)]:
        scanned = [
            c
            for c in view.chunks
            if not (c.metadata["lines"][1] < first or c.metadata["lines"][0] > last)
        ]
        assert list(view.chunks_over(first, last)) == scanned, (first, last)


@pytest.mark.parametrize("first,last", [(1, 12), (996, 1011), (1990, 2000)])
def test_line_ranges_across_many_chunks_are_the_files_lines(app, many, first, last):
    shown = _numbered(read(app, many, start_line=first, end_line=last))
    assert shown == {n: FILE_LINES[n - 1] for n in range(first, last + 1)}


def test_a_late_symbol_is_read_at_its_own_lines(app, many):
    shown = _numbered(read(app, many, symbol=f"f{DEFS - 1}"))
    start = 5 * (DEFS - 1) + 1
    assert shown[start] == f"def f{DEFS - 1}(x):"
    assert shown[start + 2] == "    return y"
