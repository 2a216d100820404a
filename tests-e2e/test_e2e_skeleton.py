"""The walking skeleton over real stdio: list, read, grep, search, refusals."""

from __future__ import annotations

import ast
import json
import re
import subprocess

import pytest
from e2e_support import run_client, store_rows, text_of

MODES = ["legacy", "auto"]
EXPECTED_TOOLS = {
    "ctx_tree_read",
    "ctx_tree_grep",
    "ctx_tree_search",
    "ctx_tree_get",
    "ctx_tree_note",
    "ctx_tree_compose",
    "ctx_tree_neighbors",
    "ctx_tree_path_to_root",
    "ctx_tree_recent",
    "ctx_tree_bash",
}


def tokens(text: str) -> int:
    from ctx_tree_compose import estimate_tokens

    return estimate_tokens(text)


@pytest.mark.parametrize("mode", MODES)
def test_tools_listed_plain_text_small_and_annotated(project, home, mode):
    async def body(c):
        return (await c.list_tools()).tools

    tools = run_client(project, home, mode, body)
    assert {t.name for t in tools} == EXPECTED_TOOLS
    for t in tools:
        assert t.output_schema is None, t.name  # plain text answers (checks README)
        assert t.annotations is not None
        if t.name == "ctx_tree_bash":  # runs any command: hosts ask permission as for a shell
            assert t.annotations.read_only_hint is False
            assert t.annotations.destructive_hint is True
            assert t.annotations.open_world_hint is not False  # unset: MCP default true
            continue
        assert t.annotations.open_world_hint is False
        if t.name != "ctx_tree_note":
            assert t.annotations.read_only_hint is True, t.name
    as_json = json.dumps(  # as on the wire: compact JSON
        [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools],
        separators=(",", ":"),
    )
    # a wire-size aim, in characters / 4 (docs/architecture.md)
    assert -(-len(as_json) // 4) <= 1500


def _gold(path, qualname):
    tree = ast.parse(path.read_text())
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and f"{cls.name}.{fn.name}" == qualname:
                    return fn.lineno, fn.end_lineno
    raise AssertionError(qualname)


@pytest.mark.parametrize("mode", MODES)
def test_read_by_symbol_and_query_returns_the_lines_within_budget(project, home, mode):
    src = project / "pkg" / "argparse_copy.py"
    lines = src.read_text().splitlines()
    start, end = _gold(src, "ArgumentParser.parse_known_args")

    async def body(c):
        by_symbol = await c.call_tool(
            "ctx_tree_read",
            {
                "path": "pkg/argparse_copy.py",
                "symbol": "ArgumentParser.parse_known_args",
                "budget_tokens": 1200,
            },
        )
        by_query = await c.call_tool(
            "ctx_tree_read",
            {
                "path": "pkg/argparse_copy.py",
                "query": "parse known args namespace",
                "budget_tokens": 1500,
            },
        )
        return by_symbol, by_query

    by_symbol, by_query = run_client(project, home, mode, body)
    assert not by_symbol.is_error and not by_query.is_error
    text = text_of(by_symbol)
    assert tokens(text) <= 1200
    for n in (start, start + 1, end):
        assert f"{n}\t{lines[n - 1]}" in text
    assert "-- ctx-tree" not in text  # the whole symbol: nothing left out, no manifest
    q = text_of(by_query)
    assert tokens(q) <= 1500
    assert f"{start}\t{lines[start - 1]}" in q


@pytest.mark.parametrize("mode", MODES)
def test_grep_counts_match_ripgrep(project, home, mode):
    from ctx_tree_mcp.engines.grep.ripgrep import find_rg

    rg = subprocess.run(
        [find_rg(), "-n", "--no-heading", r"def \w+\(", "."],
        cwd=project,
        capture_output=True,
        text=True,
    )
    expected = len(rg.stdout.splitlines())
    files = len({ln.split(":", 1)[0] for ln in rg.stdout.splitlines()})

    async def body(c):
        return await c.call_tool("ctx_tree_grep", {"pattern": r"def \w+\(", "budget_tokens": 800})

    result = run_client(project, home, mode, body)
    text = text_of(result)
    assert not result.is_error
    assert f"{expected} matches in {files} files" in text
    assert tokens(text) <= 800
    assert re.search(r"ctx_tree_get\(node_id=\"[0-9A-Z]{26}\", offset=\d+\)", text)


@pytest.mark.parametrize("mode", MODES)
def test_search_finds_the_chunk_of_a_file_just_read(project, home, mode):
    async def body(c):
        await c.call_tool("ctx_tree_read", {"path": "pkg/decoder.py"})
        return await c.call_tool("ctx_tree_search", {"query": "raw_decode", "limit": 5})

    text = text_of(run_client(project, home, mode, body))
    first = next(line for line in text.splitlines() if line.startswith("1. "))
    assert "pkg/decoder.py:" in first and "raw_decode" in first
    assert re.search(r"node_id=[0-9A-Z]{26}", first)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [".env", "../outside.py", "pkg/../../outside.py"])
def test_refused_paths_are_tool_errors_and_write_nothing(project, home, mode, path):
    async def body(c):
        return await c.call_tool("ctx_tree_read", {"path": path})

    result = run_client(project, home, mode, body)
    assert result.is_error
    assert "path" in text_of(result)
    assert store_rows(home) == 0
