"""``ctx_tree_get``: page through any stored node's content by character offset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from ..budget import check_budget, estimate_tokens, fit_lines
from ..errors import ToolInputError
from ..render import Manifest, call, finish
from ..surface import tool_ref
from .spec import Budget, Cli, Input, NodeId, ToolSpec

if TYPE_CHECKING:
    from ..app import App

DESCRIPTION = "Page through a stored node's full content (node ids come from manifests and search)."
MANIFEST_RESERVE = 80


class Args(Input):
    node_id: NodeId
    offset: Annotated[int, Field(ge=0), Cli("character offset into the content")] = 0
    budget_tokens: Budget = 2000


def get(app: App, node_id: str, offset: int = 0, budget_tokens: int = 2000) -> str:
    """Handle ``ctx_tree_get``: content from character ``offset`` as far as ``budget_tokens``
    allows (whole lines), then a manifest with the exact call for the next page.

    Raises ``ToolInputError`` for an unknown node id or an offset outside the content.
    """
    from ..describe import where

    budget = check_budget(budget_tokens)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ToolInputError(
            "offset", "expected a character offset >= 0 (from a manifest's next call)"
        )
    if not isinstance(node_id, str) or not node_id.strip():
        raise ToolInputError("node_id", "give a node id from a manifest or a search hit")
    node = app.store.get(node_id.strip())
    if node is None:
        raise ToolInputError(
            "node_id",
            f"no node {node_id!r} in this project's store; use {tool_ref('ctx_tree_search')} to find one",
        )
    if app.hidden(node):
        raise ToolInputError(
            "node_id", f"node {node.id} comes from a file on the denylist; it is not shown"
        )
    content = node.content
    if offset > len(content):
        raise ToolInputError("offset", f"{offset} is past the end ({len(content)} characters)")
    page, cut = fit_lines(content[offset:], max(1, budget - MANIFEST_RESERVE))
    first_line = content.count("\n", 0, offset) + 1
    lines = node.lines
    label = where(node)
    manifest = Manifest(f"node {node.id} · {node.kind.value} · {node.status.value} · {label}")
    if lines and offset == 0:
        manifest.add("lines", f"{lines[0]}-{lines[1]} of the source file")
    manifest.add(
        "page",
        f"characters {offset}-{offset + len(page)} of {len(content)} (content line {first_line})",
    )
    if node.truncated:
        manifest.add(
            "note",
            f"stored truncated at capture.maxBytes; the source had {node.original_bytes:,} bytes",
        )
    if cut:
        manifest.add("next", call("ctx_tree_get", node_id=node.id, offset=offset + len(page)))
    text = finish(
        page if page.endswith("\n") or not page else page + "\n",
        manifest,
        budget,
        estimate_tokens(content),
        "node",
    )
    app.count("get", tokens_served=estimate_tokens(text))
    return text


SPEC = ToolSpec(
    name="ctx_tree_get",
    description=DESCRIPTION,
    args=Args,
    handler=get,
    example={"node_id": "01JD…", "offset": 0, "budget_tokens": 2000},
    help="page through a stored node",
)
