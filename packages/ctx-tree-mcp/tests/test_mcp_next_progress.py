"""Every ``next:`` reaches new content: follow the chain of a set of answers (read by outline,
symbol, lines and query; grep; get; compose; search; recent) and assert each step shows bytes
no earlier step showed, and that the chain ends."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from answers import file_node
from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.tools.registry import run_tool

MAX_STEPS = 400


def parse_next(text: str) -> tuple[str, dict] | None:
    """The call on the answer's ``next:`` line: tool name and arguments."""
    m = re.search(r"^next: (ctx_tree_\w+)\(", text, re.M)
    if m is None:
        return None
    name, pos, args = m.group(1), m.end(), {}
    decoder = json.JSONDecoder()
    while text[pos] != ")":
        key = re.match(r"(\w+)=", text[pos:])
        assert key, text[pos:]
        value, end = decoder.raw_decode(text, pos + key.end())
        args[key.group(1)] = value
        pos = end + (2 if text.startswith(", ", end) else 0)
    return name, args


def body(text: str) -> str:
    return text.split("-- ctx-tree:", 1)[0]


def call(app, name: str, args: dict) -> str:
    return asyncio.run(run_tool(app, name, args))


def follow(app, name: str, args: dict, budget: int | None) -> list[str]:
    """Answers of the call and every ``next`` after it; asserts progress and an end."""
    seen = ""
    answers = []
    for _ in range(MAX_STEPS):
        text = call(app, name, args)
        if budget is not None and "budget_tokens" in args:
            assert tokens(text) <= args["budget_tokens"]
        shown = body(text)
        assert shown.strip(), f"{name}({args}) showed nothing:\n{text}"
        assert shown not in seen, f"{name}({args}) repeats earlier content:\n{text}"
        seen += shown
        answers.append(text)
        step = parse_next(text)
        if step is None:
            return answers
        name, args = step
        if budget is not None and name in ("ctx_tree_read", "ctx_tree_get"):
            args.setdefault("budget_tokens", budget)
    raise AssertionError(f"no end after {MAX_STEPS} steps: last {name}({args})")


@pytest.fixture
def files(root):
    items = [{"id": i, "name": f"item{i}", "tags": ["alpha", "beta"]} for i in range(400)]
    (root / "big.json").write_text(json.dumps({"items": items, "last": True}))
    (root / "doc.md").write_text(
        "# API\n\n"
        + "".join(
            f"## part {i}\n\n" + " ".join(f"w{i}x{j}" for j in range(90)) + "\n\n"
            for i in range(30)
        )
    )
    return root


@pytest.mark.parametrize("budget", [400, 600])  # a manifest with ids costs ~100 (BPE)
@pytest.mark.parametrize(
    "args",
    [
        {"path": "big.json", "start_line": 1, "end_line": 1},
        {"path": "big.json", "query": "item42 beta"},
        {"path": "big.json"},
        {"path": "src/argparse_copy.py", "symbol": "ArgumentParser.parse_known_args"},
        {"path": "src/argparse_copy.py", "query": "parse known args namespace"},
        {"path": "src/argparse_copy.py", "start_line": 100, "end_line": 400},
        {"path": "src/decoder.py"},
        {"path": "doc.md"},
    ],
)
def test_read_chains_make_progress(app, files, args, budget):
    follow(app, "ctx_tree_read", {**args, "budget_tokens": budget}, budget)


@pytest.mark.parametrize("budget", [400, 600])  # a manifest with ids costs ~100 (BPE)
def test_grep_get_and_compose_chains_make_progress(app, files, budget):
    follow(app, "ctx_tree_grep", {"pattern": "def |item", "budget_tokens": budget}, budget)
    follow(
        app,
        "ctx_tree_grep",
        {"pattern": "return", "context_lines": 2, "budget_tokens": budget},
        budget,
    )
    call(app, "ctx_tree_read", {"path": "src/decoder.py"})
    root_id = file_node(app, "src/decoder.py")
    follow(app, "ctx_tree_get", {"node_id": root_id, "budget_tokens": budget}, budget)
    follow(app, "ctx_tree_compose", {"seed_ids": [root_id], "budget_tokens": budget}, budget)


def test_search_and_recent_chains_make_progress(app, files):
    call(app, "ctx_tree_read", {"path": "src/argparse_copy.py", "query": "x"})
    follow(app, "ctx_tree_search", {"query": "parse args", "limit": 3}, None)
    follow(app, "ctx_tree_recent", {"limit": 5}, None)


def test_recent_offers_no_next_when_the_limit_is_exactly_all_there_is(app):
    """Three live nodes (the session and two notes) and limit 3: nothing more to show, so no
    ``next:`` (it would only repeat the same three); limit 2 gets a ``next:`` that shows more."""
    call(app, "ctx_tree_note", {"content": "first finding"})
    call(app, "ctx_tree_note", {"content": "second finding"})
    exact = call(app, "ctx_tree_recent", {"limit": 3})
    assert exact.count("node_id=") == 3 and parse_next(exact) is None
    assert len(follow(app, "ctx_tree_recent", {"limit": 2}, None)) == 2


def test_a_listing_that_fills_its_budget_offers_no_longer_listing():
    """All rows shown but no room for one more: a longer listing would repeat the same rows,
    so there is no ``next:`` (it made ``recent`` loop when ids' estimates varied)."""
    from ctx_tree_mcp.answers.budget import estimate_tokens
    from ctx_tree_mcp.tools.listing import render_listing

    row = "src/argparse_copy.py:2619-2630 ArgumentParser.error file_chunk " + "x" * 200
    hint = "ctx_tree_recent(limit=40)"
    full = [row] * 40
    fitting = [
        r
        for i, r in enumerate(full)
        if sum(estimate_tokens(f"{j}. {full[j]}\n") for j in range(i + 1))
        < 2000 - 80 - estimate_tokens(hint)
    ]
    text = render_listing("recent live", fitting, hint, next_call=True, narrow="narrow the query")
    assert fitting and parse_next(text) is None and "narrow the query" in text
    short = render_listing("recent live", fitting[:3], hint, next_call=True, narrow="")
    assert parse_next(short) == ("ctx_tree_recent", {"limit": 40})


def test_a_listing_cut_by_its_budget_names_the_tools_own_narrowing(app):
    """Rows past the listing's budget cannot be reached by a longer listing: neighbors said
    "raise limit", which showed the same rows again; each listing names its own arguments,
    or, as recent does, pages on from the last row shown."""
    call(app, "ctx_tree_read", {"path": "src/argparse_copy.py"})
    many = call(
        app, "ctx_tree_neighbors", {"node_id": file_node(app, "src/argparse_copy.py"), "limit": 60}
    )
    assert re.search(r"^shown: \d+ of 60$", many, re.M), many
    assert "raise limit" not in many and parse_next(many) is None
    assert "narrow with depth or edge_kinds" in many
    longer = call(
        app, "ctx_tree_neighbors", {"node_id": file_node(app, "src/argparse_copy.py"), "limit": 120}
    )
    assert body(longer) == body(many)  # what a longer listing would have shown: the same rows
    recent = call(app, "ctx_tree_recent", {"limit": 80})  # pages instead (test_mcp_recent_paging)
    assert parse_next(recent)[1]["before_id"] in body(recent) and "narrow" not in recent
    search = call(app, "ctx_tree_search", {"query": "parser", "limit": 80})
    assert "narrow the query or its filters" in search


def test_a_path_to_root_cut_by_its_budget_says_how_to_get_the_rest(app):
    """path_to_root has no query to narrow: a chain longer than the listing's budget says the
    rest is the path to root of the last node shown, and that call shows it."""
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import NewNode

    chain: list[str] = []
    with app.store.transaction():
        for i in range(80):
            parent = chain[-1] if chain else None
            chain += app.store.insert([NewNode(NodeKind.NOTE, f"step {i}", parent_id=parent)])
    parent = chain[-1]
    text = call(app, "ctx_tree_path_to_root", {"node_id": parent})
    shown = re.search(r"^shown: (\d+) of (\d+)$", text, re.M)
    assert shown and int(shown[1]) < int(shown[2]), text
    assert "narrow the query" not in text
    assert "ctx_tree_path_to_root from the last node shown" in text
    last = re.findall(r"node_id=(\w+)", body(text))[-1]
    rest = call(app, "ctx_tree_path_to_root", {"node_id": last})
    assert re.findall(r"node_id=(\w+)", body(rest))[-1] == chain[0]  # the root
