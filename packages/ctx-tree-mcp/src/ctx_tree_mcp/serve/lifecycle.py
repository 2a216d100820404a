"""The server's lifecycle: the walker coordinator starts with the MCP server and stops with it.

``build_server`` passes :func:`walkers_lifespan` to ``MCPServer(lifespan=...)``. The SDK enters
the lifespan before it serves the first message and leaves it when the transport closes (stdin
EOF) or the server is cancelled.

Entering is instant: a background task imports the walkers, resolves the store and builds the
``ctx_tree_walkers.Coordinator`` in a thread, then runs its schedule, so the ``initialize``
answer never waits for it. The coordinator opens its **own** store connection in its own worker
thread, so tool handlers never wait for a walker. Leaving stops it cleanly (shielded from
cancellation): the running batch commits, leases are released, the connection is closed.

A coordinator that cannot start (bad store path, unreadable config) is logged and the server
runs without walkers: capture and retrieval keep working, ``ctx-tree walk`` still does the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tree_walkers import Coordinator

    from ctx_tree_mcp.app import App

log = logging.getLogger(__name__)


class WalkerService:
    """Owns the coordinator of one server process: :meth:`start` in the loop, :meth:`stop`."""

    def __init__(self, app: App, **coordinator_options: Any) -> None:
        self.app = app
        self.options = coordinator_options
        self.coordinator: Coordinator | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        """Start the walkers as a task of the running event loop."""
        self._task = asyncio.get_running_loop().create_task(self._main(), name="ctx-tree-walkers")

    def _build(self) -> Coordinator:
        from ctx_tree_walkers import WALKER_NAMES, Coordinator

        from ctx_tree_mcp.capture.ingest import WALKER, capture_walker

        options = {**self.app.walker_providers(), **self.options}
        if "walkers" not in options:  # the capture walker last: the others keep their clock
            options["walkers"] = (*WALKER_NAMES, WALKER)
            options["functions"] = {
                **options.get("functions", {}),
                WALKER: capture_walker(self.app.root, self.app.home),
            }
            options["first_delay_ms"] = {**options.get("first_delay_ms", {}), WALKER: 0}
        return Coordinator(self.app.store_file, self.app.config, **options)

    async def _main(self) -> None:
        try:
            coordinator = await asyncio.to_thread(self._build)
        except Exception:
            log.exception("walkers not started; the server runs without them")
            return
        self.coordinator = coordinator
        if not self._stopping:
            await coordinator.run()

    async def stop(self) -> None:
        """Stop the walkers; never raises. Idempotent."""
        self._stopping = True
        try:
            if self.coordinator is not None:
                await self.coordinator.stop()
            if self._task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        except Exception:
            log.exception("walkers did not stop cleanly")


def _start_index(app: App) -> Any:
    """The project index's thread (``indexer.IndexService``), started unless
    ``index.enabled`` is false or the config cannot be read; None then (docs/index.md)."""
    try:
        if not app.config.data["index"]["enabled"]:
            return None
        from ctx_tree_mcp.engines.files.indexer import IndexService

        index = IndexService(app.stores, app.root, app.policy, app.config, app.calls)
        index.start()
        return index
    except Exception:
        log.exception("index not started; the server runs without it")
        return None


@asynccontextmanager
async def no_walkers(_server: Any) -> AsyncIterator[dict[str, Any]]:
    """The lifespan of a server that runs no walkers (tests, ``build_server(walkers=False)``)."""
    yield {}


def walkers_lifespan(
    app: App, **coordinator_options: Any
) -> Callable[[Any], AbstractAsyncContextManager[dict[str, Any]]]:
    """An ``MCPServer`` lifespan running the walkers for ``app`` while the server runs.

    The lifespan state is ``{"walkers": WalkerService}``; ``coordinator_options`` go to the
    ``Coordinator`` (tests inject a clock).
    """

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict[str, Any]]:
        service = WalkerService(app, **coordinator_options)
        service.start()
        index = _start_index(app)
        try:
            yield {"walkers": service, "index": index}
        finally:
            import anyio

            with anyio.CancelScope(shield=True):
                if index is not None:
                    await asyncio.to_thread(index.stop)
                await service.stop()

    return lifespan
