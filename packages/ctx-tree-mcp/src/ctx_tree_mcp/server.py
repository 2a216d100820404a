"""The MCP adapter: registers the tool handlers with the official SDK's ``MCPServer`` (stdio).

The one place that knows about the transport. Every tool answers plain text with no output
schema (Claude Code would otherwise hand the model escaped JSON). A handler's
``ToolInputError`` becomes an MCP tool error (``isError``) naming the argument; any other
exception is logged to stderr and answered as an ``isError`` result too — the server never
crashes on input.
"""

from __future__ import annotations

import logging
import sys
import traceback
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from . import __version__
from .app import App, project_root
from .redact import redact_text

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "ctx-tree stores full Read/Grep output and returns budgeted slices. Prefer ctx_tree_read / "
    "ctx_tree_grep over native Read/Grep; follow the manifest (symbol, line range, ctx_tree_get) "
    "for more; recall later with ctx_tree_search, ctx_tree_compose, ctx_tree_recent."
)

Budget = Annotated[int, Field(description="max tokens returned (chars/4)")]
NodeId = Annotated[str, Field(description="node id from a manifest or search hit")]


def _tool_error(name: str, exc: BaseException):
    from mcp.server.mcpserver.exceptions import ToolError

    from .errors import ToolInputError

    if isinstance(exc, ToolInputError):
        return ToolError(str(exc))
    try:
        from ctx_tree_schema import ConfigError

        if isinstance(exc, ConfigError):
            return ToolError(f"configuration: {exc}")
    except ImportError:  # pragma: no cover
        pass
    log.error("tool %s failed:\n%s", name, "".join(traceback.format_exception(exc)))
    return ToolError(
        f"internal error ({type(exc).__name__}: {exc}); the call changed nothing; see the server log"
    )


def check_text_arguments(tool: str, arguments: dict[str, Any]) -> None:
    """Refuse strings that cannot be encoded as UTF-8 (lone surrogates such as ``\\ud800``):
    the answer echoing them could not be written to the transport. Raises the SDK's
    ``ToolError`` naming the argument."""
    from mcp.server.mcpserver.exceptions import ToolError

    def bad(value: Any) -> bool:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
            return False
        if isinstance(value, dict):
            return any(bad(k) or bad(v) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(bad(v) for v in value)
        return False

    for key, value in arguments.items():
        if bad(value):
            raise ToolError(
                f"{key}: contains a lone UTF-16 surrogate (invalid text); send valid UTF-8"
            )


def build_server(app: App) -> MCPServer:
    """An ``MCPServer`` with every ctx-tree tool registered over ``app``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    from .tools import compose as t_compose
    from .tools import get as t_get
    from .tools import graph as t_graph
    from .tools import grep as t_grep
    from .tools import note as t_note
    from .tools import read as t_read
    from .tools import search as t_search

    tools: list[Tool] = []
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    async def run(name: str, handler: Any, **kwargs: Any) -> str:
        check_text_arguments(name, kwargs)
        # Store handlers run on the event loop: a cached read takes ~2 ms, and a thread hop
        # costs about a millisecond of the round trip. Walkers use their own thread and
        # connection, so nothing here waits on them.
        try:
            return redact_text(handler(app, **kwargs))
        except Exception as exc:
            raise _tool_error(name, exc) from None

    def register(fn: Any, description: str, annotations: ToolAnnotations = read_only) -> None:
        tool = Tool.from_function(
            fn,
            name=fn.__name__,
            description=description,
            annotations=annotations,
            structured_output=False,
        )
        tool.parameters = compact_schema(tool.parameters)
        tools.append(tool)

    async def ctx_tree_read(
        path: Annotated[str, Field(description="file path, relative to the project root")],
        symbol: Annotated[str | None, Field(description="e.g. Class.method or a bare name")] = None,
        start_line: int | None = None,
        end_line: int | None = None,
        query: Annotated[str | None, Field(description="words; best-matching chunks first")] = None,
        budget_tokens: Budget = 2000,
    ) -> str:
        return await run(
            "ctx_tree_read",
            t_read.read,
            path=path,
            symbol=symbol,
            start_line=start_line,
            end_line=end_line,
            query=query,
            budget_tokens=budget_tokens,
        )

    async def ctx_tree_grep(
        pattern: Annotated[str, Field(description="ripgrep regex")],
        path: Annotated[str, Field(description="file or directory")] = ".",
        glob: Annotated[str | None, Field(description="e.g. *.py")] = None,
        ignore_case: bool = False,
        fixed_strings: bool = False,
        context_lines: int = 0,
        budget_tokens: Budget = 2000,
    ) -> str:
        check_text_arguments("ctx_tree_grep", {"pattern": pattern, "path": path, "glob": glob})
        try:
            return redact_text(
                await t_grep.grep(
                    app,
                    pattern=pattern,
                    path=path,
                    glob=glob,
                    ignore_case=ignore_case,
                    fixed_strings=fixed_strings,
                    context_lines=context_lines,
                    budget_tokens=budget_tokens,
                )
            )
        except Exception as exc:
            raise _tool_error("ctx_tree_grep", exc) from None

    async def ctx_tree_search(
        query: str,
        mode: Annotated[str, Field(description="only 'keyword' in v1")] = "keyword",
        limit: int = 10,
        filters: dict[str, Any] | None = None,
    ) -> str:
        return await run(
            "ctx_tree_search", t_search.search, query=query, mode=mode, limit=limit, filters=filters
        )

    async def ctx_tree_get(node_id: NodeId, offset: int = 0, budget_tokens: Budget = 2000) -> str:
        return await run(
            "ctx_tree_get", t_get.get, node_id=node_id, offset=offset, budget_tokens=budget_tokens
        )

    async def ctx_tree_note(
        content: str, title: str | None = None, parent_id: str | None = None
    ) -> str:
        return await run(
            "ctx_tree_note", t_note.note, content=content, title=title, parent_id=parent_id
        )

    async def ctx_tree_compose(
        seed_ids: list[str],
        query: str | None = None,
        budget_tokens: Budget = 4000,
        depth: Annotated[int, Field(description="BFS hops, 0..5")] = 2,
        weights: Annotated[
            dict[str, float] | None, Field(description="dist, recency, query")
        ] = None,
        include_stale: bool = False,
    ) -> str:
        return await run(
            "ctx_tree_compose",
            t_compose.compose,
            seed_ids=seed_ids,
            query=query,
            budget_tokens=budget_tokens,
            depth=depth,
            weights=weights,
            include_stale=include_stale,
        )

    async def ctx_tree_neighbors(
        node_id: NodeId,
        depth: int = 1,
        edge_kinds: Annotated[
            list[str] | None,
            Field(description="supersedes, references, derived_from, summarizes, follows"),
        ] = None,
        limit: int = 50,
    ) -> str:
        return await run(
            "ctx_tree_neighbors",
            t_graph.neighbors,
            node_id=node_id,
            depth=depth,
            edge_kinds=edge_kinds,
            limit=limit,
        )

    async def ctx_tree_path_to_root(node_id: NodeId) -> str:
        return await run("ctx_tree_path_to_root", t_graph.path_to_root, node_id=node_id)

    async def ctx_tree_recent(
        since: Annotated[int | None, Field(description="epoch ms")] = None,
        kind: str | None = None,
        limit: int = 20,
    ) -> str:
        return await run("ctx_tree_recent", t_graph.recent, since=since, kind=kind, limit=limit)

    register(ctx_tree_read, t_read.DESCRIPTION)
    register(ctx_tree_grep, t_grep.DESCRIPTION)
    register(ctx_tree_search, t_search.DESCRIPTION)
    register(ctx_tree_get, t_get.DESCRIPTION)
    register(ctx_tree_compose, t_compose.DESCRIPTION)
    register(ctx_tree_neighbors, t_graph.NEIGHBORS_DESCRIPTION)
    register(ctx_tree_path_to_root, t_graph.PATH_DESCRIPTION)
    register(ctx_tree_recent, t_graph.RECENT_DESCRIPTION)
    register(
        ctx_tree_note,
        t_note.DESCRIPTION,
        ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    from .lifecycle import walkers_lifespan

    return MCPServer(
        "ctx-tree",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        lifespan=walkers_lifespan(app),
    )


def compact_schema(schema: Any) -> Any:
    """The input schema without pydantic's generated ``title`` keys, ``default: null``, and with ``X | None``
    written as the plain type (``anyOf [X, null]`` → ``X``): the tool surface is context the
    agent pays for on every turn (all of ``tools/list`` ≤ 1,500 tokens)."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if (key == "title" and isinstance(value, str)) or (key == "default" and value is None):
                continue
            out[key] = value if key == "properties" else compact_schema(value)
        if "properties" in out:
            out["properties"] = {k: compact_schema(v) for k, v in out["properties"].items()}
        any_of = out.get("anyOf")
        if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
            plain = next(x for x in any_of if x != {"type": "null"})
            del out["anyOf"]
            out = {**plain, **out}
        return out
    if isinstance(schema, list):
        return [compact_schema(v) for v in schema]
    return schema


def serve(root: str | None = None) -> int:
    """Run the stdio MCP server for ``root`` (default: ``$CLAUDE_PROJECT_DIR`` or the cwd).

    Returns 2 (after one line on stderr) when the configuration is invalid.
    """
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="ctx-tree: %(levelname)s %(message)s"
    )
    from ctx_tree_schema import ConfigError

    app = App(project_root(root))
    try:
        app.config
    except ConfigError as exc:
        print(f"ctx-tree: configuration error: {exc}", file=sys.stderr)
        return 2
    server = build_server(app)
    try:
        server.run()
    finally:
        app.close()
    return 0


def main() -> None:
    """Console script ``ctx-tree-mcp``: the stdio MCP server."""
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(
            "usage: ctx-tree-mcp\n\nThe ctx-tree MCP server on stdio. Project root: $CLAUDE_PROJECT_DIR or the cwd;\n"
            "store: $CTX_TREE_HOME (default ~/.ctx-tree)/<project-hash>/store.db. See `ctx-tree --help`."
        )
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        print(f"ctx-tree-mcp {__version__}")
        return
    raise SystemExit(serve())
