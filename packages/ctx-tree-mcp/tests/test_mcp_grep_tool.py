"""ctx_tree_grep contract: grouping, budget, storage, denylist, errors."""

from __future__ import annotations

import asyncio
import re

import pytest
from answers import call_tool, last_output
from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.get import get
from ctx_tree_mcp.tools.grep import grep


def run(app, *args, **kw):
    return asyncio.run(grep(app, *args, **kw))


def test_single_definition_costs_little_more_than_rg(app):
    text = run(app, r"def raw_decode\b")
    assert text.startswith("src/decoder.py:")
    assert tokens(text) < 100  # the node id alone costs ~20 BPE tokens


def test_broad_pattern_stays_in_budget_and_pages_the_rest(app):
    text = run(app, r"self", budget_tokens=400)
    assert tokens(text) <= 400
    m = re.search(r'ctx_tree_get\(node_id="([0-9A-Z]{26})", offset=(\d+)\)', text)
    assert m
    page = get(app, m.group(1), offset=int(m.group(2)), budget_tokens=400)
    assert re.match(r"src/\S+:\d+:", page)
    node = app.store.get(m.group(1))
    assert node.kind.value == "tool_output" and node.source_uri.startswith("grep://")
    assert node.metadata["match_count"] > 100


def test_denylisted_files_never_appear(app, root):
    (root / ".env").write_text("NEEDLE_TOKEN=1\n")
    (root / "server.pem").write_text("NEEDLE pem\n")
    (root / "ok.txt").write_text("NEEDLE ok\n")
    text = run(app, "NEEDLE")
    assert "ok.txt" in text and ".env" not in text and "server.pem" not in text
    dump = app.store.con.execute("SELECT group_concat(ctx_text(content), '') FROM nodes").get
    assert "server.pem" not in dump


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"pattern": "("}, "pattern"),
        ({"pattern": ""}, "pattern"),
        ({"pattern": "x", "glob": "{"}, "glob"),
        ({"pattern": "x", "path": "../"}, "path"),
        ({"pattern": "x", "path": "missing"}, "path"),
        ({"pattern": "x", "context_lines": 99}, "context_lines"),
        ({"pattern": "x", "head_limit": 0}, "head_limit"),
        ({"pattern": "x", "head_limit": 1_000_001}, "head_limit"),
        ({"pattern": "x", "after_context": 11}, "after_context"),
        ({"pattern": "x", "budget_tokens": 99}, "budget_tokens"),
    ],
)
def test_bad_arguments_name_the_argument(app, kwargs, argument):
    with pytest.raises(ToolInputError) as err:
        call_tool(app, "ctx_tree_grep", **kwargs)
    assert err.value.argument == argument


def test_context_lines_and_flags(app):
    text = run(app, "JSONDECODEERROR", ignore_case=True, context_lines=1, glob="*.py")
    assert re.search(r"^\d+-", text, re.M)  # context lines rg-style
    fixed = run(app, "(", fixed_strings=True, budget_tokens=200)
    assert "match" in fixed


def test_grep_in_a_single_file_prints_lines_as_rg_does(app):
    text = run(app, r"def raw_decode\b", path="src/decoder.py")
    assert text == "343:    def raw_decode(self, s, idx=0):\n"  # no path, no manifest
    assert run(app, r"def raw_decode\b", path="src").startswith("src/decoder.py:343:")


def test_head_limit_shows_the_first_lines_and_pages_the_rest(app):
    whole = run(app, "self", path="src/decoder.py", budget_tokens=20000)
    assert "-- ctx-tree" not in whole
    first = run(app, "self", path="src/decoder.py", head_limit=3)
    assert first.split("-- ctx-tree")[0] == "".join(whole.splitlines(keepends=True)[:3])
    head = first.split("-- ctx-tree")[1]
    assert "head_limit 3 shown" in head and "other files" not in head
    offset = int(re.search(r"offset=(\d+)", head).group(1))
    rest = get(app, last_output(app), offset=offset, budget_tokens=20000).split("-- ctx-tree")[0]
    assert rest.splitlines()[0].endswith(whole.splitlines()[3])
    assert run(app, "nothing_like_this_anywhere") == "no matches\n"


def test_identical_grep_reuses_the_live_node(app):
    run(app, "JSONDecoder")
    first = last_output(app)
    run(app, "JSONDecoder")
    second = last_output(app)
    assert first == second  # still pending: reused
    from ctx_tree_schema import NodeStatus

    app.store.set_status([first], NodeStatus.LIVE)  # as the filter walker would
    run(app, "JSONDecoder")
    third = last_output(app)
    assert third == first
    assert sum(c for (k, _s), (c, _b) in app.store.counts().items() if k == "tool_output") == 1


def _big_tree(root, lines=60_000):
    (root / "big.txt").write_text(
        "".join(f"needle line {n} with some padding text here\n" for n in range(lines))
    )


def test_capped_grep_returns_and_says_so(root, tmp_path):
    """rg killed at grep.maxMatches with unread output must not hang (asyncio waits for pipes)."""
    from ctx_tree_mcp.app import App

    _big_tree(root)
    home = tmp_path / "capped"
    home.mkdir()
    (home / "config.json").write_text('{"grep": {"maxMatches": 50}}')
    app = App(root, home=home)
    try:
        for _ in range(5):
            text = asyncio.run(asyncio.wait_for(grep(app, "needle", budget_tokens=300), 20))
            assert "stopped at 50 matches (grep.maxMatches)" in text
    finally:
        app.close()


def _rg_children() -> list[str]:
    import os
    from pathlib import Path

    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split()
        except OSError:
            continue
        if fields[3] == me and fields[1] == "(rg)":
            found.append(fields[0])
    return found


def test_cancelled_grep_kills_ripgrep(app, root):
    _big_tree(root, 400_000)

    async def main():
        task = asyncio.create_task(grep(app, r"(needle|line)\s+\d+\s+with", budget_tokens=300))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return _rg_children()

    assert asyncio.run(asyncio.wait_for(main(), 30)) == []


def test_paging_a_grep_repeats_no_line_and_loses_none(app):
    """Following the manifest's next calls yields every stored line exactly once."""
    text = run(app, "self", budget_tokens=300)
    node_id = last_output(app)
    full = app.store.get(node_id).content
    body = text.split("-- ctx-tree")[0]
    # lines shown in the first answer, rebuilt in the stored "path:line:text" shape
    shown, current = [], None
    for line in body.splitlines():
        if re.match(r"^\d+[:-]", line):
            shown.append(f"{current}:{line}")
        else:
            current = line
    offset = int(re.search(r"offset=(\d+)", text).group(1))
    assert full[:offset].splitlines() == shown
    pages = []
    while offset is not None:
        page = get(app, node_id, offset=offset, budget_tokens=2000)
        pages.append(page.split("-- ctx-tree")[0])
        m = re.search(r"offset=(\d+)\)", page.split("-- ctx-tree")[1])
        offset = int(m.group(1)) if m else None
    assert "".join(pages) == full[len("\n".join(shown)) + 1 :]


def test_counts_over_a_thousand_read_the_same_in_head_and_shown(root, app):
    """The head and the ``shown:`` line write 12,000 alike (one formatting of counts)."""
    (root / "many.txt").write_text("".join(f"needle {n}\n" for n in range(12_000)))
    text = run(app, "needle", path="many.txt", budget_tokens=300)
    assert "12,000 matches in 1 file" in text, text[:200]
    assert "12000" not in text
    assert re.search(r"shown: [\d,]+ of 12,000 matches in 1 of 1 file", text), text[-400:]
