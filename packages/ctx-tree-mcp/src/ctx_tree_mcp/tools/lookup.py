"""The ``node_id`` argument of the tools that take one: looked up, or refused in words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.surface import call, tool_ref
from ctx_tree_mcp.errors import ToolInputError

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ctx_tree_mcp.app import App


#: What a manifest says of content it cannot offer a get of (see :func:`get_call`).
NOT_STORED = "not stored (see the last line)"


def get_call(app: App, node_id: str, offset: int | None = None) -> str:
    """The ``ctx_tree_get`` call of ``node_id`` (at ``offset``), or ``""`` when the store
    file does not hold that node: this process could not write it (its answers end saying
    why), so a later call (a new CLI process, or this one once the store is writable again)
    would not find it. Callers then say what is :data:`NOT_STORED` (docs/tools.md)."""
    if not app.store.in_file(node_id):
        return ""
    return call("ctx_tree_get", node_id=node_id, offset=offset)


def node_by_id(app: App, node_id: str) -> Node:
    """The stored node ``node_id`` names (surrounding blanks ignored).

    Raises ``ToolInputError`` (argument ``node_id``) for an empty or unknown id, and for a
    node from a file now on the denylist (docs/security.md), which is never shown.
    """
    if not isinstance(node_id, str) or not node_id.strip():
        raise ToolInputError("node_id", "give a node id from a manifest or a search hit")
    node = app.store.get(node_id.strip())
    if node is None:
        raise ToolInputError(
            "node_id",
            f"no node {node_id!r} in this project's store; use {tool_ref('ctx_tree_search')} "
            f"or {tool_ref('ctx_tree_recent')} to find one",
        )
    if app.hidden(node):
        raise ToolInputError(
            "node_id", f"node {node.id} comes from a file on the denylist; it is not shown"
        )
    return node
