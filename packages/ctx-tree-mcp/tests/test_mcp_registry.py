"""The tool registry: one definition per tool gives the schema, the validation and its errors."""

from __future__ import annotations

import asyncio
import json

import pytest
from ctx_tree_mcp.answers.budget import MAX_BUDGET, MIN_BUDGET
from ctx_tree_mcp.answers.surface import cli_surface
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.registry import BY_NAME, TOOLS, run_tool, tools_list


def test_every_schema_refuses_unknown_arguments_and_shows_ranges() -> None:
    for spec in TOOLS:
        schema = spec.input_schema()
        assert schema["additionalProperties"] is False, spec.name
        assert '"title": "' not in json.dumps(schema), spec.name  # pydantic's generated titles
        budget = schema["properties"].get("budget_tokens")
        if budget:
            assert (budget["minimum"], budget["maximum"]) == (MIN_BUDGET, MAX_BUDGET)
    limit = BY_NAME["ctx_tree_search"].input_schema()["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 100, 10)
    assert BY_NAME["ctx_tree_grep"].input_schema()["properties"]["context_lines"]["maximum"] == 10


def test_every_argument_has_help_text_and_every_example_validates() -> None:
    for spec in TOOLS:
        for name in spec.args.model_fields:
            assert spec.cli_of(name).help, f"{spec.name}.{name} has no help text"
        spec.validate(spec.example)  # the call shown in errors and docs is itself valid


def test_tools_list_stays_small() -> None:
    wire = json.dumps(tools_list(), separators=(",", ":"))  # what the client receives
    assert -(-len(wire) // 4) <= 1500


@pytest.mark.parametrize(
    ("name", "arguments", "argument", "says"),
    [
        ("ctx_tree_read", {}, "path", "required"),
        ("ctx_tree_read", {"path": "a.py", "bogus": 1}, "bogus", "unknown argument; allowed: path"),
        ("ctx_tree_read", {"path": "a.py", "budget_tokens": 5}, "budget_tokens", "100..50000"),
        ("ctx_tree_grep", {"pattern": "x", "context_lines": 11}, "context_lines", "0..10"),
        (
            "ctx_tree_search",
            {"query": "x", "mode": "fuzzy"},
            "mode",
            "one of: 'keyword', 'semantic' or 'hybrid'",
        ),
        ("ctx_tree_search", {"query": "x", "limit": "many"}, "limit", "expected an integer"),
        ("ctx_tree_compose", {"seed_ids": "x", "weights": []}, "seed_ids", "expected a list"),
        ("ctx_tree_read", {"path": "\ud800"}, "path", "surrogate"),
        ("ctx_tree_read", {"path": "a.py", "budget_tokens": None}, "budget_tokens", "got null"),
        ("ctx_tree_read", {"path": "a.py", "budget_tokens": 1e308}, "budget_tokens", "a number"),
    ],
)
def test_bad_arguments_name_the_argument_the_rule_and_a_working_call(
    name: str, arguments: dict, argument: str, says: str
) -> None:
    with pytest.raises(ToolInputError) as exc:
        BY_NAME[name].validate(arguments)
    text = str(exc.value)
    assert exc.value.argument == argument and says in text, text
    assert "pydantic" not in text and "http" not in text and "validation error" not in text
    if "surrogate" not in says:
        assert f"a call that works: {name}(" in text


def test_errors_on_the_cli_surface_use_flags_and_cli_syntax() -> None:
    with cli_surface(BY_NAME), pytest.raises(ToolInputError) as exc:
        BY_NAME["ctx_tree_read"].validate({"path": "a.py", "budget_tokens": 5})
    text = str(exc.value)
    assert text.startswith("--budget: 5 is out of range")
    assert text.endswith("a call that works: ctx-tree read a.py")
    assert "ctx_tree_read(" not in text


@pytest.mark.parametrize(
    ("name", "arguments", "works"),
    [
        (
            "ctx_tree_search",
            {"query": "retry", "mode": "hybrid", "limit": 400},
            'ctx_tree_search(query="retry", mode="hybrid")',
        ),
        ("ctx_tree_recent", {"status": ["nope"]}, "ctx_tree_recent()"),
        (
            "ctx_tree_read",
            {"path": "a.py", "symbol": "f", "budget_tokens": 5},
            'ctx_tree_read(path="a.py", symbol="f")',
        ),
    ],
)
def test_the_working_call_is_the_callers_own_without_the_bad_argument(
    name: str, arguments: dict, works: str
) -> None:
    with pytest.raises(ToolInputError) as exc:
        BY_NAME[name].validate(arguments)
    assert str(exc.value).endswith(f"a call that works: {works}")


def test_a_bad_required_argument_or_a_second_bad_one_gets_the_tool_example() -> None:
    spec = BY_NAME["ctx_tree_search"]
    example = f"a call that works: {spec.name}("
    for arguments in ({"query": 5}, {"query": "x", "limit": 0, "mode": "fuzzy"}):
        with pytest.raises(ToolInputError) as exc:
            spec.validate(arguments)
        assert example + 'query="token budget manifest"' in str(exc.value), exc.value


def test_run_tool_calls_the_handler_with_every_field(app) -> None:
    text = asyncio.run(run_tool(app, "ctx_tree_read", {"path": "src/decoder.py", "start_line": 3}))
    assert text.startswith("3\t")
    with pytest.raises(ToolInputError, match="unknown tool 'nope'"):
        asyncio.run(run_tool(app, "nope", {}))
