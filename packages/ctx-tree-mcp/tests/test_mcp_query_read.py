"""Read by query: the best match that does not fit is named with the call that returns it,
counts are of definitions and true, and a tiny budget still gets content and a next call."""

from __future__ import annotations

import re

import pytest
from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.tools.read import read

EXPORT_BODY = "\n".join(
    f"        fragment_{i} = render_html_fragment(self._buffer, index={i})  # export html part"
    for i in range(45)
)
SRC = f'''"""A console that records output."""


class Console:
    def export_text(self, clear=True):
        """Export the recorded text."""
        return "".join(self._buffer)

    def export_html(self, theme=None, clear=True):
        """Generate HTML from console contents."""
{EXPORT_BODY}
        return "<html>" + "".join(self._buffer) + "</html>"

    def save_html(self, path, theme=None):
        """Write HTML to a file."""
        html = self.export_html(theme=theme)
        with open(path, "w") as fh:
            fh.write(html)

    def unrelated(self):
        return 42
'''


@pytest.fixture
def console(root):
    (root / "console.py").write_text(SRC)
    return "console.py"


def test_best_match_that_does_not_fit_is_named_with_its_call(app, console):
    text = read(app, console, query="export html", budget_tokens=600)
    assert tokens(text) <= 600
    assert "Console.save_html" in text
    assert "not shown in full: Console.export_html" in text
    assert 'next: ctx_tree_read(path="console.py", symbol="Console.export_html")' in text


def test_counts_are_of_definitions_and_match_what_is_shown(app, console):
    text = read(app, console, query="export html", budget_tokens=4000)
    m = re.search(r"(\d+) matching definitions?, (\d+) relevant, (\d+) shown in full", text)
    assert m, text
    matching, relevant, shown = map(int, m.groups())
    # export_text, export_html and save_html mention the words; unrelated() does not
    assert (matching, shown) == (3, 3) and relevant <= matching
    for name in ("export_text", "export_html", "save_html"):
        assert f"def {name}(" in text


# The manifest alone (file, node id, the best match and its call) costs ~85 BPE tokens.
@pytest.mark.parametrize("budget", [180, 220, 260])
def test_tiny_budget_still_shows_the_best_match_head_and_a_next(app, console, budget):
    text = read(app, console, query="export html", budget_tokens=budget)
    assert tokens(text) <= budget
    assert re.search(r"^\d+\t", text, re.M)  # some code
    assert re.search(r"^next: ctx_tree_read\(", text, re.M)
    # the best match is shown (its head) or named with the call that returns it
    assert "def export_html" in text or 'symbol="Console.export_html"' in text


def test_query_on_a_one_line_json_shows_the_match_and_continues(app, root):
    import json

    items = [{"id": i, "name": f"item{i}", "tags": ["alpha", "gamma"]} for i in range(600)]
    (root / "big.json").write_text(json.dumps({"items": items}))
    text = read(app, "big.json", query="item342 gamma", budget_tokens=300)
    assert tokens(text) <= 300
    assert '"name": "item342"' in text  # the excerpt is at the rarest word, not the line's head
    assert "around the first match" in text
    assert re.search(r'^next: ctx_tree_get\(node_id="\w+", offset=\d+\)', text, re.M)
