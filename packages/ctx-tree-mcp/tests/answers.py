"""Node ids behind an answer, looked up in the store: an answer that left nothing out names
none (docs/tools.md, "Footer and manifest")."""

from __future__ import annotations

from ctx_tree_mcp.app import App
from ctx_tree_mcp.policy.names import file_uri


def call_tool(app: App, name: str, **arguments: object) -> str:
    """``name`` called as MCP and the CLI call it: the arguments validated by the tool's input
    model first (``run_tool``), so a bad one raises ``ToolInputError`` naming it."""
    import asyncio

    from ctx_tree_mcp.tools.registry import run_tool

    return asyncio.run(run_tool(app, name, arguments))


def file_node(app: App, rel: str) -> str:
    """The id of the live file root of ``rel`` (a path under the project root)."""
    node = app.store.latest_by_source(file_uri(app.policy.resolve(rel).absolute))
    assert node is not None, rel
    return node.id


def last_output(app: App) -> str:
    """The id of the newest ``tool_output`` node (the last grep or bash)."""
    return app.store.recent(1, kind="tool_output")[0].id


def match_count(text: str) -> int:
    """Match lines (``N:text`` or ``path:N:text``) in an answer's body."""
    import re

    body = text.split("-- ctx-tree")[0]
    return len(re.findall(r"^(?:[^\n]*?:)?\d+:", body, re.M))


def node_total(app: App) -> int:
    """Nodes in the store, any kind and status: a read served from the store adds none."""
    return sum(count for count, _ in app.store.counts().values())
