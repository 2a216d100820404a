"""Numbered lines are the file's lines: a form feed or another character Python's
``str.splitlines`` breaks at (``\\v``, ``\\x1c``, ``\\x85``, U+2028) is inside a line, as for
the chunker, ripgrep and editors, so no line number after it shifts and no line is lost."""

from __future__ import annotations

import re

import pytest
from answers import file_node
from ctx_tree_mcp.tools.compose import compose
from ctx_tree_mcp.tools.read import read

# a form feed between sections (as in GNU and CPython sources), and the rarer breaks
SOURCE = (
    "import os\n"
    "\x0c\n"
    "def first():\n"
    '    """Form feed above."""\n'
    "    return 1\n"
    "\x0cdef second():\n"
    '    text = "a\x0bb\x1cc\x85d\u2028e"\n'
    "    return text\n"
    "\n"
    "\n"
    "def third():\n"
    "    return 3\n"
)
FILE_LINES = SOURCE.split("\n")[:-1]


@pytest.fixture
def feed(root):
    (root / "feed.py").write_text(SOURCE, encoding="utf-8")
    return "feed.py"


def _numbered(text: str) -> dict[int, str]:
    return {int(m[1]): m[2] for m in re.finditer(r"^(\d+)\t(.*)$", text, re.M)}


def _assert_file_lines(text: str, first: int, last: int) -> None:
    shown = _numbered(text)
    assert shown == {n: FILE_LINES[n - 1] for n in range(first, last + 1)}


def test_whole_file_read_numbers_every_line_as_the_file_does(app, feed):
    _assert_file_lines(read(app, feed), 1, 12)


def test_line_range_after_a_form_feed_is_those_lines(app, feed):
    _assert_file_lines(read(app, feed, start_line=6, end_line=12), 6, 12)


def test_symbol_after_a_form_feed_is_shown_at_its_own_lines(app, feed):
    _assert_file_lines(read(app, feed, symbol="third"), 11, 12)


def test_query_read_numbers_lines_as_the_file_does(app, feed):
    shown = _numbered(read(app, feed, query="second text"))
    assert shown
    assert all(FILE_LINES[n - 1] == line for n, line in shown.items())


def test_compose_numbers_chunks_as_the_file_does(app, feed):
    read(app, feed)
    shown = _numbered(compose(app, [file_node(app, feed)], depth=1))
    assert {6, 11, 12} <= set(shown)
    assert all(FILE_LINES[n - 1] == line for n, line in shown.items())
