"""The ``node_id`` argument of the tools that take one: looked up, or refused in words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ToolInputError
from ..surface import tool_ref

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ..app import App


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
