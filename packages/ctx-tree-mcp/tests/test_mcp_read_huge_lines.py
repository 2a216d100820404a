"""Huge single lines (minified bundles, one-line JSON): a read shows content, its outline rows
name their own symbols, and its cost follows what it answers, not the line's length."""

from __future__ import annotations

import re

from ctx_tree_mcp.tools.read import read

MINIFIED = "".join(
    f"function f{i}(a,b){{var c=a+b*{i};if(c>{i % 97}){{return g{i}(c)}}return c}};"
    for i in range(1000)
)


def test_an_outline_of_a_minified_line_costs_the_line_once_not_once_a_symbol(
    app, root, monkeypatch
) -> None:
    """Every definition of a minified bundle is on line 1: each outline row took that line
    again to find its signature (1,000 symbols, 1,000 copies of a 70 KB line; a 5 MB bundle
    did not finish in minutes). A line holding several definitions, or a very long one,
    shows each one's label instead, and the line is taken once."""
    from ctx_tree_mcp.tools import read_outline

    taken: list[int] = []
    lines_of = read_outline.lines_of

    def counted(view, first, last):
        found = lines_of(view, first, last)
        taken.append(sum(map(len, found)))
        return found

    monkeypatch.setattr(read_outline, "lines_of", counted)
    (root / "app.min.js").write_text(MINIFIED + "\n")
    text = read(app, "app.min.js", budget_tokens=2000)
    assert "## outline (1000 symbols" in text, text[:500]
    assert sum(taken) <= 3 * len(MINIFIED), (len(taken), sum(taken))
    rows = re.findall(r"^1-1 (.*)$", text, re.M)
    assert rows and all(re.fullmatch(r"function f\d+", row) for row in rows), rows[:5]


def test_a_line_longer_than_the_budget_shows_its_head_and_where_to_go_on(app, root) -> None:
    """A one-line JSON file of 100 KB at budget 500: the outline has nothing to list, and no
    chunk fits, so the answer was its manifest alone. It shows the line's head now."""
    line = "[" + ",".join(str(n) for n in range(20_000)) + "]"
    (root / "one.json").write_text(line + "\n")
    text = read(app, "one.json", budget_tokens=500)
    body = text.split("-- ctx-tree")[0]
    assert "1\t[0,1,2,3,4,5" in body, text
    assert "[…line continues]" in body, text
    assert re.search(r"next: ctx_tree_get\(node_id=\"\w+\", offset=\d+\)", text), text
    assert len(text) < 500 * 4, len(text)
