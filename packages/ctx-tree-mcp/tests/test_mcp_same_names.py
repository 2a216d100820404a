"""Same-named sections and definitions each get their own node id, and a symbol read with
several matches says so and returns each."""

from __future__ import annotations

import re

from ctx_tree_mcp.tools.read import read

DOC = """# API

## connect

Opens a connection.

### Parameters

- host: the host name
- port: the port number

## close

Closes the connection.

### Parameters

- force: close even with pending writes
- timeout_close: seconds to wait
""" + "".join(f"\n## extra {i}\n\n" + "filler text here. " * 20 + "\n" for i in range(12))

BRANCHES = '''import sys

if sys.platform == "win32":
    def helper(x):
        """Windows flavour."""
        return x.replace("/", "-")
else:
    def helper(x):
        """POSIX flavour."""
        return x


def main():
    return helper("a/b")
'''


def _outline_ranges(text: str, name: str) -> list[tuple[int, int]]:
    found = re.findall(rf"^ *(\d+)-(\d+) .*\b{re.escape(name)}$", text, re.M)
    return [(int(a), int(b)) for a, b in found]


def test_same_named_headings_have_distinct_outline_rows_that_lead_to_their_section(app, root):
    (root / "doc.md").write_text(DOC)
    outline = read(app, "doc.md", budget_tokens=600)
    ranges = _outline_ranges(outline, "Parameters")
    assert len(ranges) == 2 and ranges[0] != ranges[1], outline
    first, second = (read(app, "doc.md", start_line=a, end_line=b) for a, b in ranges)
    assert "host: the host name" in first and "force:" not in first
    assert "force: close even with pending writes" in second and "host:" not in second


def test_symbol_with_two_headings_returns_both_and_says_so(app, root):
    (root / "doc.md").write_text(DOC)
    text = read(app, "doc.md", symbol="Parameters", budget_tokens=800)
    assert "[1 of 2]" in text and "[2 of 2]" in text and "-- ctx-tree" not in text
    assert "7\t### Parameters" in text and "16\t### Parameters" in text
    assert "host: the host name" in text and "force: close even" in text


def test_def_in_both_branches_of_an_if(app, root):
    (root / "branches.py").write_text(BRANCHES)
    text = read(app, "branches.py", symbol="helper", budget_tokens=600)
    assert "[1 of 2]" in text and "[2 of 2]" in text
    assert '"""Windows flavour."""' in text and '"""POSIX flavour."""' in text
    ranges = re.findall(r"^## helper \(\w+\) L(\d+)-(\d+)", text, re.M)
    assert len(set(ranges)) == 2
    one, two = (read(app, "branches.py", start_line=int(a), end_line=int(b)) for a, b in ranges)
    assert "Windows" in one and "POSIX" in two


def test_several_matches_that_do_not_fit_name_the_call_for_the_rest(app, root):
    body = "\n".join(f"        x{i} = {i}" for i in range(60))
    src = f"if True:\n    def big():\n{body}\nelse:\n    def big():\n        return 2\n"
    (root / "big.py").write_text(src)
    text = read(app, "big.py", symbol="big", budget_tokens=300)
    assert "2 definitions match 'big'" in text
    assert re.search(r'next: ctx_tree_read\(path="big.py", start_line=\d+, end_line=62\)', text)


def test_component_and_notebook_symbols_are_read(app, root):
    import json

    (root / "Hello.svelte").write_text(
        "<script>\n  function greet(who) {\n    return who;\n  }\n</script>\n\n<h1>hi</h1>\n"
    )
    text = read(app, "Hello.svelte", symbol="greet")
    assert "2\t  function greet(who) {" in text and "<h1>" not in text
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title"},
        {
            "cell_type": "code",
            "metadata": {},
            "source": "def area(r):\n    return 3 * r * r",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "x\n" * 500}],
        },
    ]
    (root / "a.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}}))
    text = read(app, "a.ipynb", symbol="area")
    assert "def area(r):" in text and "cells rendered as text" in text
    outline = read(app, "a.ipynb", budget_tokens=400)
    assert "# %% [output] cell 2" in outline and "[… " in outline  # capped
