"""docs/tools.md against the tool registry and the real server's ``tools/list``: each tool has
a section whose example call and argument table are exactly what the registry generates."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ctx_tree_mcp.serve.snapshot import REBUILD, rewrite_docs
from ctx_tree_mcp.tools.registry import TOOLS
from e2e_support import list_tool_schemas

DOC = Path(__file__).resolve().parent.parent / "docs" / "tools.md"


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return list_tool_schemas(tmp_path_factory.mktemp("docs"))


def test_the_server_lists_exactly_the_registry(tools: dict[str, dict[str, Any]]) -> None:
    assert tools == {t.name: t.input_schema() for t in TOOLS}


def test_every_tool_has_a_section() -> None:
    titles = re.findall(r"^## (\S+)$", DOC.read_text(encoding="utf-8"), flags=re.M)
    assert titles == [t.name for t in TOOLS]


def test_tables_and_examples_equal_the_registry() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert rewrite_docs(text) == text, f"docs/tools.md is stale: run `{REBUILD}`"
