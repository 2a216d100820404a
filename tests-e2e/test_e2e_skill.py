"""The ``using-ctx-tree`` skill against the real tool surface.

Starts the real server over stdio with the official MCP client and checks that every tool and
every argument the skill names in backticks (``ctx_tree_read(path=..., symbol=...)``) exists in
``tools/list``, that every tool is covered, and that the plugin's copy (canonical: Claude Code
copies only ``plugin/`` on a marketplace install) and the repository's copy are identical.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import list_tool_schemas

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = ROOT / "plugin" / "skills" / "using-ctx-tree" / "SKILL.md"
COPY = ROOT / "skills" / "using-ctx-tree" / "SKILL.md"
CALL = re.compile(r"\b(ctx_tree_\w+)\(")


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return list_tool_schemas(tmp_path_factory.mktemp("skill"))


def _calls(text: str) -> list[tuple[str, set[str]]]:
    """Each ``tool(arg=..., ...)`` in a backtick span or a fenced block: tool and argument names."""
    spans = re.findall(r"```.*?```|`[^`\n]+`", text, flags=re.S)
    out = []
    for span in spans:
        for m in CALL.finditer(span):
            depth, i = 1, m.end()
            while i < len(span) and depth:
                depth += {"(": 1, ")": -1}.get(span[i], 0)
                i += 1
            args = span[m.end() : i - 1]
            # top-level keyword names only: drop nested brackets and string literals first
            flat = re.sub(r'"[^"]*"', '""', args)
            while re.search(r"[\[{(][^\[\]{}()]*[\]})]", flat):
                flat = re.sub(r"[\[{(][^\[\]{}()]*[\]})]", "_", flat)
            out.append((m.group(1), set(re.findall(r"(?:^|,)\s*(\w+)\s*=", flat))))
    return out


def test_plugin_copy_and_repository_copy_are_identical() -> None:
    assert CANONICAL.read_bytes() == COPY.read_bytes(), (
        "plugin/skills/using-ctx-tree/SKILL.md is canonical: cp it to skills/using-ctx-tree/"
    )


def test_front_matter() -> None:
    text = CANONICAL.read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n", text, flags=re.S)
    assert m, "SKILL.md must start with YAML front matter"
    fields = dict(line.split(": ", 1) for line in m.group(1).splitlines())
    assert fields["name"] == "using-ctx-tree"
    assert 50 < len(fields["description"]) <= 1024


def test_every_named_tool_and_argument_exists(tools: dict[str, dict[str, Any]]) -> None:
    text = CANONICAL.read_text(encoding="utf-8")
    calls = _calls(text)
    assert len(calls) >= 15
    for name, args in calls:
        assert name in tools, f"skill calls unknown tool {name}"
        unknown = args - set(tools[name]["properties"])
        assert not unknown, (
            f"skill passes {sorted(unknown)} to {name}; schema has {sorted(tools[name]['properties'])}"
        )
    for name in set(re.findall(r"\bctx_tree_\w+", text)):
        assert name in tools, f"skill names unknown tool {name}"


def test_every_tool_is_covered(tools: dict[str, dict[str, Any]]) -> None:
    called = {name for name, _ in _calls(CANONICAL.read_text(encoding="utf-8"))}
    assert called == set(tools)


def test_parser_sees_keyword_arguments_only() -> None:
    calls = _calls('`ctx_tree_search(query="a=b", filters={"kind": ["x"]}, limit=f(x=1))`')
    assert calls == [("ctx_tree_search", {"query", "filters", "limit"})]
