"""Every ``next:`` line is one call you can make as it stands, over MCP and on the CLI: a tool
with arguments its model accepts, or a ``ctx-tree`` command line argparse parses, and nothing
else on the line (no "or narrow with …", no prose). What cannot be a call goes on another
manifest line (``more:``, ``note:``)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from pathlib import Path

import pytest
from ctx_tree_mcp.answers.surface import cli_surface
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.main import build_parser, tool_arguments
from ctx_tree_mcp.serve.server import answer
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.registry import BY_NAME
from stores import damaged_store

_CALL = re.compile(r"(ctx_tree_\w+)\((.*)\)")


def mcp_call(line: str) -> tuple[str, dict]:
    """The whole of ``line`` as one MCP call: ``tool(key=<json>, …)``; fails on anything more."""
    m = _CALL.fullmatch(line)
    assert m, f"not one call: {line!r}"
    name, rest, args = m.group(1), m.group(2), {}
    decoder = json.JSONDecoder()
    pos = 0
    while pos < len(rest):
        key = re.match(r"(\w+)=", rest[pos:])
        assert key, f"not one call: {line!r}"
        value, pos = decoder.raw_decode(rest, pos + key.end())
        args[key.group(1)] = value
        if pos < len(rest):
            assert rest.startswith(", ", pos), f"not one call: {line!r}"
            pos += 2
    assert name in BY_NAME, line
    BY_NAME[name].validate(args)
    return name, args


def cli_call(line: str) -> tuple[str, dict]:
    """The whole of ``line`` as one ``ctx-tree`` command line that parses and validates."""
    words = shlex.split(line)
    assert words[:1] == ["ctx-tree"], f"not one command: {line!r}"
    try:
        parsed = build_parser().parse_args(words[1:])
    except SystemExit:
        pytest.fail(f"not one command: {line!r}")
    spec = BY_NAME[parsed._tool]
    values = tool_arguments(spec, parsed)
    spec.validate(values)
    return spec.name, values


def next_lines(text: str) -> list[str]:
    return [ln.removeprefix("next: ") for ln in text.splitlines() if ln.startswith("next: ")]


def ask(app: App, tool: str, args: dict, cli: bool) -> str:
    if cli:
        with cli_surface(BY_NAME):
            text, is_error = asyncio.run(answer(app, tool, args))
    else:
        text, is_error = asyncio.run(answer(app, tool, args))
    assert not is_error, text
    return text


def _project(root: Path) -> None:
    (root / "wide.json").write_text('{"k": "' + "v" * 30_000 + '"}\n{"after": 1}\n')
    (root / "tail.json").write_text('{"k": "' + "w" * 30_000 + '"}\n')
    (root / "log.txt").write_text("".join(f"line {i} of the log\n" for i in range(600)))
    for i in range(30):  # a grep output past capture.maxBytes (set low below)
        (root / f"gen{i}.py").write_text(
            "".join(f"needle_{j} = {j}  # padding, padding, padding\n" for j in range(60))
        )
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": 4096}}')


CALLS = [
    ("ctx_tree_grep", {"pattern": "def ", "path": "src", "budget_tokens": 200}),
    ("ctx_tree_grep", {"pattern": "needle_", "budget_tokens": 200}),
    ("ctx_tree_grep", {"pattern": "needle_", "budget_tokens": 3000}),
    ("ctx_tree_grep", {"pattern": "def ", "path": "src", "head_limit": 3, "budget_tokens": 300}),
    ("ctx_tree_read", {"path": "src/argparse_copy.py", "budget_tokens": 200}),
    ("ctx_tree_read", {"path": "src/argparse_copy.py", "symbol": "ArgumentParser"}),
    ("ctx_tree_read", {"path": "src/argparse_copy.py", "query": "parse known args"}),
    ("ctx_tree_read", {"path": "wide.json", "start_line": 1, "budget_tokens": 300}),
    ("ctx_tree_read", {"path": "tail.json", "start_line": 1, "budget_tokens": 300}),
    ("ctx_tree_read", {"path": "log.txt", "start_line": 1, "end_line": 400, "budget_tokens": 200}),
    ("ctx_tree_read", {"path": ".", "budget_tokens": 150}),
    ("ctx_tree_bash", {"command": "seq 1 3000", "budget_tokens": 150}),
    ("ctx_tree_bash", {"command": "seq 1 3000", "budget_tokens": 600}),
    ("ctx_tree_search", {"query": "parse", "limit": 2}),
    ("ctx_tree_compose", {"query": "parse the arguments", "budget_tokens": 300}),
    ("ctx_tree_recent", {"limit": 2}),
]


def _answers(app: App, cli: bool) -> list[str]:
    texts = [ask(app, tool, args, cli) for tool, args in CALLS]
    for text in list(texts):  # and one step further along each chain
        for line in next_lines(text):
            name, args = cli_call(line) if cli else mcp_call(line)
            texts.append(ask(app, name, args, cli))
    return texts


@pytest.fixture(params=["stored", "unstored"])
def app(request, root: Path, tmp_path: Path):
    """An App on a working store, or on a damaged store file (an in-memory copy: nothing it
    holds can be got by a later call, so its hints re-read or say what is not stored)."""
    _project(root)
    home = tmp_path / "home"
    if request.param == "unstored":
        damaged_store(root, home)
    a = App(root, home=home)
    if request.param == "stored":
        note(a, "parse the arguments first")
    yield a
    a.close()


@pytest.mark.parametrize("cli", [False, True], ids=["mcp", "cli"])
def test_every_next_line_is_one_call(app: App, cli: bool) -> None:
    texts = _answers(app, cli)
    seen = [line for text in texts for line in next_lines(text)]
    assert len(seen) >= len(CALLS) // 2, texts
    for line in seen:
        cli_call(line) if cli else mcp_call(line)
