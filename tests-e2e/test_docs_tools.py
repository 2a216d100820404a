"""docs/tools.md against the real server's ``tools/list``: every tool has a section, and each
section's argument table lists exactly the schema's arguments with their type and default."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import list_tool_schemas

DOC = Path(__file__).resolve().parent.parent / "docs" / "tools.md"


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return list_tool_schemas(tmp_path_factory.mktemp("docs"))


def sections() -> dict[str, str]:
    parts = re.split(r"^## (\S+)\n", DOC.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def documented_args(section: str) -> dict[str, tuple[str, str]]:
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", section, flags=re.M)
    return {name: (typ.strip(), default.strip()) for name, typ, default in rows}


def schema_type(prop: dict[str, Any]) -> str:
    if prop.get("type") == "array":
        return f"array of {prop['items']['type']}"
    return prop["type"]


def test_every_tool_has_a_section(tools: dict[str, dict[str, Any]]) -> None:
    assert set(sections()) == set(tools)


def test_every_argument_is_documented_with_type_and_default(
    tools: dict[str, dict[str, Any]],
) -> None:
    docs = sections()
    for name, schema in tools.items():
        props, required = schema.get("properties", {}), set(schema.get("required", []))
        table = documented_args(docs[name])
        assert set(table) == set(props), f"{name}: docs {sorted(table)} vs schema {sorted(props)}"
        for arg, prop in props.items():
            typ, default = table[arg]
            assert typ == schema_type(prop), f"{name}.{arg}: type {typ!r} vs {schema_type(prop)!r}"
            if arg in required:
                want = "required"
            elif "default" in prop:
                want = json.dumps(prop["default"])
            else:
                want = "—"
            assert default == want, f"{name}.{arg}: default {default!r}, schema says {want!r}"


def test_each_section_opens_with_a_call_using_real_arguments(
    tools: dict[str, dict[str, Any]],
) -> None:
    for name, body in sections().items():
        m = re.search(r"```text\n(\w+)\((.*)\)\n```", body)
        assert m and m.group(1) == name, f"{name}: section must start with an example call"
        flat = re.sub(r'"[^"]*"|\[[^\]]*\]|\{[^}]*\}', "_", m.group(2))
        used = set(re.findall(r"(\w+)=", flat))
        assert used <= set(tools[name]["properties"]), f"{name}: example uses {used}"
