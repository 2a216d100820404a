"""``ctx_tree_neighbors``, ``ctx_tree_path_to_root`` and ``ctx_tree_recent`` (docs/tools.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from ctx_tree_store import MAX_DEPTH
from pydantic import Field

from ctx_tree_mcp.answers.render import call, plural
from ctx_tree_mcp.answers.surface import argument_name, tool_ref
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.listing import render_listing
from ctx_tree_mcp.tools.lookup import node_by_id
from ctx_tree_mcp.tools.spec import Cli, Input, NodeId, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App


NEIGHBORS_DESCRIPTION = (
    "Nodes linked to node_id (spine parent/children and edges) up to depth hops."
)
PATH_DESCRIPTION = "The spine from node_id up to its root (chunk → file, output → session)."
RECENT_DESCRIPTION = "Most recently stored nodes, newest first."


class NeighborsArgs(Input):
    """Arguments of ``ctx_tree_neighbors``."""

    node_id: NodeId
    depth: Annotated[int, Field(ge=1, le=MAX_DEPTH), Cli("hops")] = 1
    edge_kinds: Annotated[
        list[str] | None,
        Field(description="supersedes, references, derived_from, summarizes, follows"),
        Cli(
            "only these edges: supersedes, references, derived_from, summarizes, follows "
            "(repeatable)",
            flag="--edge-kind",
        ),
    ] = None
    limit: Annotated[int, Field(ge=1, le=500), Cli("nodes listed", short="-n")] = 50


class PathArgs(Input):
    """Arguments of ``ctx_tree_path_to_root``."""

    node_id: NodeId


class RecentArgs(Input):
    """Arguments of ``ctx_tree_recent``."""

    since: Annotated[
        int | None,
        Field(ge=0, description="epoch ms"),
        Cli("only nodes created at or after this epoch-ms time"),
    ] = None
    until: Annotated[
        int | None,
        Field(ge=0, description="epoch ms"),
        Cli("only nodes created at or before this epoch-ms time"),
    ] = None
    before_id: Annotated[
        str | None,
        Cli("with until: of the nodes created at that very time, only ids below this one"),
    ] = None
    kind: Annotated[
        str | None, Cli("one node kind, e.g. file_chunk, tool_output, note (data-model.md)")
    ] = None
    limit: Annotated[int, Field(ge=1, le=200), Cli("nodes listed", short="-n")] = 20
    status: Annotated[
        list[Literal["pending", "live", "stale", "superseded"]] | None,
        Field(description="default: live, pending"),
        Cli("only nodes in these statuses (repeatable); default live and pending", flag="--status"),
    ] = None


def neighbors(
    app: App, node_id: str, depth: int = 1, edge_kinds: list[str] | None = None, limit: int = 50
) -> str:
    """Handle ``ctx_tree_neighbors``: nodes within ``depth`` hops, nearest first, one per line
    with ``d=<hops> via=<parent|child|edge kind:out|in>``; a symbol chunk's callees and
    callers read ``via=references:out <name as used>`` / ``references:in <name as used>``
    (docs/search.md, "References between symbols").

    Raises ``ToolInputError`` for an unknown node or edge kind (``depth`` and ``limit`` come
    validated by the input model, ``run_tool``).
    """
    from ctx_tree_schema import EdgeKind

    from ctx_tree_mcp.answers.describe import line

    kinds = None
    if edge_kinds is not None:
        if isinstance(edge_kinds, str):
            edge_kinds = [edge_kinds]
        try:
            kinds = [EdgeKind(k) for k in edge_kinds]
        except ValueError:
            raise ToolInputError(
                "edge_kinds",
                f"unknown edge kind in {edge_kinds!r}; one of: {', '.join(k.value for k in EdgeKind)}",
            ) from None
    from ctx_tree_mcp.engines.files.refgraph import walk

    start = node_by_id(app, node_id)
    found = walk(app.store, str(app.root), start, depth, kinds, limit + 1)
    rows = [
        line(node, f" d={hops} via={via}")
        for node, hops, via in found[:limit]
        if not app.hidden(node)
    ]
    more = f"raise limit (now {limit})" if len(found) > limit else ""
    depth_arg, kinds_arg = (argument_name("ctx_tree_neighbors", a) for a in ("depth", "edge_kinds"))
    narrow = f"narrow with {depth_arg} or {kinds_arg}"
    return render_listing(f"neighbors of {start.id} (depth {depth})", rows, more, narrow=narrow)


def path_to_root(app: App, node_id: str) -> str:
    """Handle ``ctx_tree_path_to_root``: the node, then each spine parent up to the root."""
    from ctx_tree_mcp.answers.describe import line

    start = node_by_id(app, node_id)
    chain = app.store.path_to_root(start.id)
    rows = [line(n) for n in chain if not app.hidden(n)]
    # the rest of a cut chain is the path to root of its last node shown
    rest = f"call {tool_ref('ctx_tree_path_to_root')} from the last node shown"
    return render_listing(
        f"path to root from {start.id}: {len(chain)} nodes", rows, "", narrow=rest
    )


def recent(
    app: App,
    since: int | None = None,
    until: int | None = None,
    before_id: str | None = None,
    kind: str | None = None,
    limit: int = 20,
    status: list[str] | None = None,
) -> str:
    """Handle ``ctx_tree_recent``: newest nodes first (live and pending ones, as search does,
    unless ``status`` lists others: a CLI run's output stays pending until a walk), optionally within epoch-ms times ``since``..``until`` (inclusive) and of one kind;
    each with its creation time as ISO 8601 UTC and how long ago. Nodes of one millisecond are
    listed by id, highest first; ``before_id`` resumes among them. The manifest's ``next`` is
    the same call with ``until`` and ``before_id`` of the last row shown (docs/tools.md).
    Raises ``ToolInputError`` for a bad kind, status, time, cursor or limit."""
    from ctx_tree_schema import Filters, NodeKind, NodeStatus
    from ctx_tree_store import now_ms

    from ctx_tree_mcp.answers.describe import line, when

    for name, value in (("since", since), ("until", until)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63
        ):
            raise ToolInputError(name, "expected epoch milliseconds (an integer from 0 to 2**63-1)")
    if since is not None and until is not None and since > until:
        raise ToolInputError("until", f"{until} is before since ({since}); pass a later time")
    if before_id is not None and (until is None or not isinstance(before_id, str)):
        raise ToolInputError(
            "before_id", "needs until: pass both, as the manifest's next does (a node id)"
        )
    if kind is not None:
        try:
            NodeKind(kind)
        except ValueError:
            raise ToolInputError(
                "kind", f"unknown kind {kind!r}; one of: {', '.join(k.value for k in NodeKind)}"
            ) from None
    try:
        statuses = tuple(NodeStatus(s) for s in (status or ["live", "pending"]))
    except ValueError:
        raise ToolInputError(
            "status", f"unknown status in {status!r}; use pending, live, stale or superseded"
        ) from None
    filters = Filters(
        status=statuses, since=since, until=until, kind=(NodeKind(kind),) if kind else None
    )
    cursor = (until, before_id) if until is not None and before_id is not None else None
    # one more: are there others?
    nodes = app.store.recent(limit=limit + 1, filters=filters, older_than=cursor)
    has_more, nodes = len(nodes) > limit, nodes[:limit]
    now = now_ms()
    shown = [n for n in nodes if not app.hidden(n)]
    rows = [line(n, f" created {when(n.created_at, now)}") for n in shown]

    def page(k: int) -> str:
        """The same call resumed after the first ``k`` rows (after the last node fetched,
        shown or hidden, when all ``k`` are shown and the limit left others)."""
        if k < len(shown):
            last = shown[k - 1] if k else None
        else:
            last = nodes[-1] if has_more else None
        if last is None:
            return ""
        return call(
            "ctx_tree_recent",
            since=since,
            until=last.created_at,
            before_id=last.id,
            kind=kind,
            limit=limit,
            status=status,
        )

    which = "/".join(s.value for s in statuses)
    return render_listing(
        f"recent {which}: {plural(len(nodes), 'node')}, newest first",
        rows,
        "",
        page=page,
        narrow="narrow with "
        + ", ".join(argument_name("ctx_tree_recent", a) for a in ("kind", "status"))
        + f" or {argument_name('ctx_tree_recent', 'since')}",
    )


NEIGHBORS = ToolSpec(
    name="ctx_tree_neighbors",
    description=NEIGHBORS_DESCRIPTION,
    args=NeighborsArgs,
    handler=neighbors,
    example={"node_id": "01JD…", "depth": 1},
    help="nodes linked to a node",
    store_reader=True,
)
PATH_TO_ROOT = ToolSpec(
    name="ctx_tree_path_to_root",
    description=PATH_DESCRIPTION,
    args=PathArgs,
    handler=path_to_root,
    example={"node_id": "01JD…"},
    help="the spine from a node to its root",
    store_reader=True,
)
RECENT = ToolSpec(
    name="ctx_tree_recent",
    description=RECENT_DESCRIPTION,
    args=RecentArgs,
    handler=recent,
    example={"kind": "file_chunk", "limit": 10},
    help="newest stored nodes",
    store_reader=True,
)
