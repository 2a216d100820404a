"""The MCP adapter: the tool registry served by the official SDK's low-level ``Server``.

``tools/list`` is the registry's list (``ctx_tree_mcp.tools.registry``); ``tools/call``
validates the arguments against the tool's input model and runs its handler. Every tool
answers plain text with no output schema (Claude Code would otherwise hand the model escaped
JSON). A bad argument or a handler's ``ToolInputError`` becomes an MCP tool error
(``isError``) naming the argument; any other exception is logged to stderr and answered as an
``isError`` result too: the server never crashes on input.
"""

from __future__ import annotations

import logging
import sys
import traceback
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp import __version__
from ctx_tree_mcp.app import App, fault_message, project_root, server_session_key
from ctx_tree_mcp.wire.redact import redact_text

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "ctx-tree keeps whole outputs and returns budgeted slices; follow the manifest's next call "
    "for more, recall later with ctx_tree_search."
)
NAME = "ctx-tree"


def error_text(name: str, exc: BaseException) -> str:
    """The ``isError`` text for a failed call: the input error as is, else a short internal
    error in words, what to do included (the exception's class and traceback go to the
    log)."""
    from ctx_tree_schema import ConfigError

    from ctx_tree_mcp.errors import ToolInputError

    if isinstance(exc, ToolInputError):
        return str(exc)
    if isinstance(exc, ConfigError):
        return f"configuration: {exc}"
    if (fault := fault_message(exc)) is not None:
        return fault
    log.error("tool %s failed:\n%s", name, "".join(traceback.format_exception(exc)))
    return (
        f"internal error: {name} failed on a bug of ctx-tree (its traceback is in the server's "
        "log, to report); the call changed nothing: call it again, or use the host's own tool"
    )


async def answer(app: App, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
    """Run one tool call: ``(text, is_error)``. Never raises (except cancellation)."""
    from ctx_tree_mcp.tools.registry import call_tool

    # Store handlers run on the event loop: a cached read takes ~2 ms, and a thread hop
    # costs about a millisecond of the round trip. Walkers use their own thread and
    # connection, so nothing here waits on them.
    try:
        return (await call_tool(app, name, arguments)).text, False  # redacted by call_tool
    except Exception as exc:
        return redact_text(error_text(name, exc)), True


def build_server(app: App, walkers: bool = True) -> Server:
    """The SDK's low-level ``Server`` serving every registered tool over ``app``; with
    ``walkers``, the walker coordinator runs while it serves (``lifecycle.py``). The hooks'
    hidden ``ctx_tree_route`` tool is answered by the process's routing service
    (``route/service.py``, docs/routing.md) and never listed."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from ctx_tree_mcp.route import service
    from ctx_tree_mcp.route.router import TOOL
    from ctx_tree_mcp.serve.lifecycle import no_walkers, walkers_lifespan
    from ctx_tree_mcp.tools.registry import tools_list

    listed: list[types.ListToolsResult] = []

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        # Built on first use: the start-up path answers the first tools/list from its snapshot,
        # so the handover does not wait for ten JSON schemas to be generated.
        if not listed:
            listed.append(
                types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools_list()])
            )
        return listed[0]

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == TOOL:
            text, is_error = service.decide(params.arguments or {}), False
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=is_error
            )
        text, is_error = await answer(app, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=is_error
        )

    return Server(
        NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        lifespan=walkers_lifespan(app) if walkers else no_walkers,
    )


def serve(root: str | None = None) -> int:
    """Run the stdio MCP server for ``root`` (default: ``$CLAUDE_PROJECT_DIR`` or the cwd).

    Returns 2 (after one line on stderr) when the configuration is invalid.
    """
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="ctx-tree: %(levelname)s %(message)s"
    )
    from ctx_tree_schema import ConfigError

    app = App(project_root(root), session_key=server_session_key())
    try:
        config = app.config
    except ConfigError as exc:
        from ctx_tree_mcp.errors import config_error

        print(f"ctx-tree: {config_error(exc)}", file=sys.stderr)
        return 2
    if note := config.unknown_summary():
        log.warning("%s", note)
    from ctx_tree_mcp.route import service

    # one clock: the index waits for the host's routed calls as for ctx-tree's own
    app.calls = service.start(app.root, app.home, app.session_key).app.calls
    server = build_server(app)
    from ctx_tree_mcp import ending

    # a stop signal writes the counters and ends running commands (docs/architecture.md)
    ending.install()
    ending.watch_output(sys.stdout.fileno())  # a client that stops reading ends it too
    ending.on_stop(lambda: save_counters(app), order=20)
    try:
        anyio_run_stdio(server)
    finally:
        ending.end_children()
        service.stop()
        app.close()
    return 0


def save_counters(app: App) -> None:
    """Write ``app``'s usage counters to the store; a store error is logged, not raised (this
    runs while the process stops)."""
    from ctx_tree_store import StoreError

    try:
        app.flush_counters()
    except StoreError as exc:
        log.warning("usage counters not written: %s", exc)


def anyio_run_stdio(server: Server) -> None:
    """Serve ``server`` over the process's stdin/stdout until EOF (the SDK's stdio transport)."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
