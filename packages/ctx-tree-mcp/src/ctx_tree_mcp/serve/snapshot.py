"""``ctx-tree-snapshot``: rebuild what is generated from the tool registry.

    uv run ctx-tree-snapshot            # from the repository root

* ``ctx_tree_mcp/serve/snapshot.json``: the SDK server's own answers to ``initialize`` (for every
  protocol version the SDK supports), ``tools/list`` and ``ping``, recorded by running it
  in-process. ``ctx-tree-mcp`` answers from it until the SDK has loaded (``instant.py``).
* ``docs/tools.md``: each tool's example call and argument table (the prose around them is
  kept; a tool with no section gets a stub to fill in).

Tests fail, with this command in the message, when either is stale.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tree_mcp.tools.spec import ToolSpec

REBUILD = "uv run ctx-tree-snapshot"
SNAPSHOT = Path(__file__).with_name("snapshot.json")
_TABLE_HEAD = "| argument | type | default | range | meaning |\n|---|---|---|---|---|\n"


def docs_table(spec: ToolSpec) -> str:
    """The markdown argument table of one tool."""
    from ctx_tree_mcp.tools.spec import range_text, type_name

    schema = spec.input_schema()
    required = set(schema.get("required", []))
    rows = []
    for name, prop in schema["properties"].items():
        if name in required:
            default = "required"
        elif "default" in prop:
            default = json.dumps(prop["default"])
        elif prop.get("type") == "boolean":  # ``default: false`` is left out of the schema
            default = "false"
        else:
            default = "—"
        meaning = spec.cli_of(name).help.replace("|", "\\|")
        rows.append(
            f"| `{name}` | {type_name(prop)} | {default} | {range_text(prop)} | {meaning} |\n"
        )
    return _TABLE_HEAD + "".join(rows)


def docs_example(spec: ToolSpec) -> str:
    """The tool's example call as the fenced block of docs/tools.md."""
    from ctx_tree_mcp.answers.surface import call

    return f"```text\n{call(spec.name, **spec.example)}\n```\n"


def _replace_first(pattern: str, new: str, text: str, flags: re.RegexFlag) -> str:
    """``text`` with the first match of ``pattern`` replaced by ``new`` taken literally."""
    m = re.search(pattern, text, flags)
    return text if m is None else text[: m.start()] + new + text[m.end() :]


def rewrite_docs(text: str) -> str:
    """``docs/tools.md`` with every tool's example call and argument table regenerated."""
    from ctx_tree_mcp.tools.registry import TOOLS

    parts = re.split(r"^(## \S+\n)", text, flags=re.M)
    head, sections = parts[0], dict(zip(parts[1::2], parts[2::2], strict=True))
    out = [head]
    names = {f"## {t.name}\n": t for t in TOOLS}
    for title, body in sections.items():
        spec = names.get(title)
        if spec is not None:
            body = _replace_first(r"```text\n.*?\n```\n", docs_example(spec), body, re.S)
            body = _replace_first(
                r"^\| argument \|.*?(?=^[^|]|\Z)", docs_table(spec), body, re.S | re.M
            )
        out += [title, body]
    for title, spec in names.items():
        if title not in sections:
            out += [
                "\n" if not out[-1].endswith("\n\n") else "",
                title,
                f"\n{docs_example(spec)}\n{spec.description}\n\n{docs_table(spec)}",
            ]
    return "".join(out)


def build_snapshot() -> dict[str, Any]:
    """The SDK server's answers for every protocol version it supports (see the module doc)."""
    import tempfile
    from importlib.metadata import version

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    answers = {v: record_answers(v, tempfile.gettempdir()) for v in HANDSHAKE_PROTOCOL_VERSIONS}
    return {
        "rebuild": REBUILD,
        "sdk": f"mcp {version('mcp')}",
        "versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "latest": LATEST_HANDSHAKE_VERSION,
        "answers": answers,
    }


def handshake_lines(protocol_version: str) -> list[str]:
    """``initialize`` (id 1), ``notifications/initialized``, ``tools/list`` (2), ``ping`` (3)."""
    init = {
        "protocolVersion": protocol_version,
        "capabilities": {},
        "clientInfo": {"name": "ctx-tree-snapshot", "version": "0"},
    }
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    return [json.dumps(m) for m in messages]


def record_answers(protocol_version: str, root: str) -> dict[str, Any]:
    """``{"initialize": result, "tools/list": result, "ping": result}`` from a fresh SDK
    server session (in-process, no store opened)."""
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.serve.handover import record
    from ctx_tree_mcp.serve.server import build_server

    server = build_server(App(Path(root)), walkers=False)
    by_id = {m.get("id"): m for m in record(server, handshake_lines(protocol_version), 3)}
    return {
        name: by_id[i]["result"] for i, name in ((1, "initialize"), (2, "tools/list"), (3, "ping"))
    }


def write_snapshot(path: Path = SNAPSHOT) -> bool:
    """Rebuild the snapshot file; True when it changed."""
    new = json.dumps(build_snapshot(), ensure_ascii=False, indent=1) + "\n"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old


def main(argv: list[str] | None = None) -> None:
    """Console script ``ctx-tree-snapshot``: rewrite the snapshot and ``docs/tools.md``."""
    import argparse

    parser = argparse.ArgumentParser(prog="ctx-tree-snapshot", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--docs", default="docs/tools.md", help="docs page to rewrite (default: docs/tools.md)"
    )
    args = parser.parse_args(argv)
    print(f"{SNAPSHOT}: {'rewritten' if write_snapshot() else 'up to date'}")
    docs = Path(args.docs)
    if docs.is_file():
        old = docs.read_text(encoding="utf-8")
        new = rewrite_docs(old)
        if new != old:
            docs.write_text(new, encoding="utf-8")
        print(f"{docs}: {'rewritten' if new != old else 'up to date'}")
    else:
        print(f"{docs}: not found (run from the repository root, or pass --docs)", file=sys.stderr)


if __name__ == "__main__":
    main()
