"""``ctx_tree_get``: page through any stored node's content by character offset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from ctx_tree_mcp.answers.budget import (
    GET_MANIFEST_RESERVE,
    estimate_tokens,
    fit_lines,
)
from ctx_tree_mcp.answers.render import Manifest, call, fitted_answer
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.lookup import NOT_STORED, get_call, node_by_id
from ctx_tree_mcp.tools.spec import Budget, Cli, Input, NodeId, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import Node

    from ctx_tree_mcp.app import App

DESCRIPTION = "Page through a stored node's full content (node ids come from manifests and search)."


class Args(Input):
    """Arguments of ``ctx_tree_get``."""

    node_id: NodeId
    offset: Annotated[int, Field(ge=0), Cli("character offset into the content")] = 0
    budget_tokens: Budget = 2000


#: Budgets (tokens) under which a page's manifest does not describe the node.
SMALL_PAGE_BUDGET = 300


def get(app: App, node_id: str, offset: int = 0, budget_tokens: int = 2000) -> str:
    """Handle ``ctx_tree_get``: content from character ``offset`` as far as ``budget_tokens``
    allows (whole lines), then a manifest with the exact call for the next page.

    Raises ``ToolInputError`` for an unknown node id or an offset outside the content.
    """
    from ctx_tree_mcp.answers.describe import where

    budget = budget_tokens
    node = node_by_id(app, node_id)
    content = node.content
    if offset > len(content):
        raise ToolInputError("offset", f"{offset} is past the end ({len(content)} characters)")
    first_line = content.count("\n", 0, offset) + 1
    lines = node.lines
    after = _after_chunk(app, node)

    def body(room: int) -> tuple[str, tuple[str, bool]]:
        page, cut = fit_lines(content[offset:], max(1, room))
        return (page if page.endswith("\n") or not page else page + "\n"), (page, cut)

    def manifest(state: tuple[str, bool]) -> Manifest:
        page, cut = state
        # with a next line, that line names the node: the head does not repeat its id; under
        # SMALL_PAGE_BUDGET it leaves out what the node is (a command, a path: up to 120
        # characters), which crowded a page down to a few characters
        named = "" if cut else f"node {node.id} · "
        what = "" if budget < SMALL_PAGE_BUDGET else f" · {where(node)}"
        m = Manifest(f"{named}{node.kind.value} · {node.status.value}{what}")
        if lines and offset == 0:
            m.add("lines", f"{lines[0]}-{lines[1]} of the source file", optional=True)
        m.add(
            "page",
            f"characters {offset}-{offset + len(page)} of {len(content)} (content line {first_line})",
            optional=True,
        )
        if node.truncated:
            m.add(
                "note",
                f"stored truncated at capture.maxBytes; the source had {node.original_bytes:,} bytes",
                optional=True,
            )
        end = offset + len(page)
        if cut and (following := get_call(app, node.id, end) or _reread(node, end)):
            m.add("next", following)
        elif cut:
            m.add("more", f"characters {end}-{len(content)} are {NOT_STORED}")
        elif after:
            m.add("next", after)
        return m

    text = fitted_answer(
        budget, body, manifest, estimate_tokens(content), "node", reserve=GET_MANIFEST_RESERVE
    )
    app.count("get", tokens_served=estimate_tokens(text))
    return text


def _reread(node: Node, end: int) -> str:
    """For a file chunk whose content up to character ``end`` is whole lines: the read of the
    file's lines from there (a node not in the store file can be read again, not got)."""
    rel = node.metadata.get("relpath")
    if not node.lines or node.metadata.get("is_file_root") or not rel:
        return ""
    if not node.content[:end].endswith("\n"):
        return ""
    return call(
        "ctx_tree_read", path=rel, start_line=node.lines[0] + node.content.count("\n", 0, end)
    )


def _after_chunk(app: App, node: Node) -> str:
    """For a file chunk that is not the file's end: the read of the lines after it."""
    lines = node.lines
    meta = node.metadata
    if (
        node.kind.value != "file_chunk"
        or not lines
        or meta.get("is_file_root")
        or not node.parent_id
    ):
        return ""
    root = app.store.get(node.parent_id)
    total = int(root.metadata.get("total_lines", 0)) if root is not None else 0
    rel = meta.get("relpath")
    if not rel or lines[1] >= total:
        return ""
    return call("ctx_tree_read", path=rel, start_line=lines[1] + 1)


SPEC = ToolSpec(
    name="ctx_tree_get",
    description=DESCRIPTION,
    args=Args,
    handler=get,
    example={"node_id": "01JD…", "offset": 0, "budget_tokens": 2000},
    help="page through a stored node",
    store_reader=True,
)
