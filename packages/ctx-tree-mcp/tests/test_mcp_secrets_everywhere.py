"""Secrets never reach the store or an answer through side doors (titles, patterns, late denylist)."""

from __future__ import annotations

import asyncio
import re

import pytest
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.get import get
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search

KEY = "AKIA" + "QQQQQQQQQQQQQQQQ"


def dump(app) -> str:
    return (
        app.store.con.execute(
            "SELECT group_concat(ctx_text(content) || ctx_meta(metadata, source_uri) || terms, '') FROM nodes"
        ).get
        or ""
    )


def test_note_title_and_grep_pattern_are_redacted_in_the_store_and_answers(app):
    note(app, "plain note text", title=f"key {KEY} title")
    asyncio.run(grep(app, KEY, fixed_strings=True))
    assert KEY not in dump(app)
    assert KEY not in search(app, "key title")


def test_files_denied_after_reading_are_withheld(app, root):
    read(app, "src/decoder.py")
    hit = re.search(r"node_id=([0-9A-Z]{26})", search(app, "scanstring")).group(1)
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "path.deny").write_text("src/decoder.py\n")
    app.__dict__.pop("policy", None)  # a new server reads path.deny at start
    assert "decoder.py" not in search(app, "scanstring").split("-- ctx-tree")[0]
    with pytest.raises(ToolInputError, match="denylist"):
        get(app, hit)
    with pytest.raises(ToolInputError, match="denylist"):
        read(app, "src/decoder.py")


def test_every_answer_is_redacted_as_it_leaves_on_both_surfaces(app):
    # A search answer echoes its query; run_tool is what the MCP server and the CLI both
    # call, so neither surface shows the key.
    from ctx_tree_mcp.tools.registry import run_tool

    assert KEY in search(app, KEY)  # the handler alone echoes the query ...
    answer = asyncio.run(run_tool(app, "ctx_tree_search", {"query": KEY}))
    assert KEY not in answer and "[REDACTED:aws_access_key]" in answer  # ... the answer does not


def test_a_file_whose_name_holds_a_secret_is_never_read_nor_listed(app, root):
    # the path would be kept whole in the node's source, metadata and the grep output's lines
    named = root / "src" / f"creds-{KEY}.txt"
    named.write_text("hello from the named file\n")
    with pytest.raises(ToolInputError, match="looks like a secret"):
        read(app, f"src/creds-{KEY}.txt")
    answer = asyncio.run(grep(app, "hello from the named"))
    assert answer == "no matches\n"
    uris = app.store.con.execute("SELECT group_concat(source_uri, '') FROM nodes").get or ""
    assert KEY not in dump(app) and KEY not in uris
