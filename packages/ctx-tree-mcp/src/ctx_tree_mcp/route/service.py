"""Routing as a part of the server process that does not wait for the MCP SDK (docs/routing.md).

The MCP SDK takes a second or more to load, longer on a busy machine, and a host's first
commands come meanwhile. So routing starts with the process (``serve/instant.py`` starts it
once the handshake is answered): its own :class:`~ctx_tree_mcp.app.App` over its own store
connection, the :class:`~ctx_tree_mcp.route.router.Router` the hooks' ``ctx_tree_route`` calls
go to, and the :class:`~ctx_tree_mcp.route.channel.Channel` served by an event loop in a
thread of its own. Until it is up, ``ctx_tree_route`` answers nothing: the command runs as it is.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tree_mcp.calls import CallsClock

log = logging.getLogger(__name__)

#: Seconds a Read's routing decision may take (it may chunk the file once): past it, the Read
#: runs as it is.
READ_WAIT_S = 2.0
#: The process's routing service once started (:func:`start`).
_service: RouteService | None = None


class RouteService:
    """Router and channel of one server process, on a thread of their own."""

    def __init__(self, root: Path, home: Path | None, session_key: str) -> None:
        from ctx_tree_mcp.app import App
        from ctx_tree_mcp.route.router import Router

        self.app = App(root, home, session_key=session_key)
        self.router = Router(self.app)
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="ctx-tree-route", daemon=True)

    def start(self) -> None:
        """Serve the channel from a new thread (returns at once)."""
        self._thread.start()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception:
            log.exception("routing stopped; commands run as they are")

    async def _main(self) -> None:
        from ctx_tree_store import ctx_tree_home

        from ctx_tree_mcp.route.channel import Channel

        if not self.app.config.data["route"]["enabled"]:
            return
        channel = Channel(self.router, str(self.app.home or ctx_tree_home()))
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        if await channel.start() is None:
            return
        self.ready.set()
        await asyncio.sleep(0)
        _prewarm(self.app)
        try:
            await self._stopped.wait()
        finally:
            await channel.close()
            self.app.close()

    def decide(self, args: Mapping[str, Any]) -> str:
        """The hook's answer (``Router.decide``; for a ``Read``, ``Router.decide_read`` on this
        service's thread, which owns its store, waited for at most :data:`READ_WAIT_S`);
        ``""`` until the channel listens."""
        if not self.ready.is_set():
            return ""
        if args.get("tool") != "Read":
            return self.router.decide(args)
        loop = self._loop
        if loop is None:
            return ""

        async def read() -> str:
            return self.router.decide_read(args)

        try:
            return asyncio.run_coroutine_threadsafe(read(), loop).result(READ_WAIT_S)
        except Exception:  # a timeout or a stopped loop: the Read runs as it is
            return ""

    def stop(self, timeout: float = 1.0) -> None:
        """Stop listening, remove the socket, close the store connection; never raises."""
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None:
            try:
                loop.call_soon_threadsafe(stopped.set)
            except RuntimeError:  # the loop already ended
                return
            self._thread.join(timeout)


def _prewarm(app: Any) -> None:
    """Open the store and import what the first answer needs (the tools' CLI syntax for its
    hints); a failure is left for that answer to meet."""
    try:
        import ctx_tree_mcp.route.answers
        import ctx_tree_mcp.tools.registry  # noqa: F401

        app.store
    except Exception:
        log.debug("routing prewarm failed", exc_info=True)


def start(root: Path, home: Path | None = None, session_key: str | None = None) -> RouteService:
    """Start the process's routing service for project ``root`` (once; later calls return it).

    Its captures hang under ``session_key`` (the server's session). A stop signal ends it
    (``ending.on_stop``). Raises nothing but a config file's ``ConfigError``."""
    global _service
    if _service is None:
        from ctx_tree_mcp import ending
        from ctx_tree_mcp.app import server_session_key

        _service = RouteService(root, home, session_key or server_session_key())
        _service.start()
        ending.on_stop(_service.stop, order=30)
    return _service


def calls_for(root: Path) -> CallsClock | None:
    """The running service's :class:`~ctx_tree_mcp.calls.CallsClock` when it routes for
    project ``root``, else None: the server's App takes it, so the project index waits for
    the host's routed calls as for ctx-tree's own."""
    if _service is None or Path(_service.app.root).resolve() != Path(root).resolve():
        return None
    return _service.app.calls


def decide(args: Mapping[str, Any]) -> str:
    """The hook's answer from the running service; ``""`` when there is none yet."""
    return _service.decide(args) if _service is not None else ""


def stop() -> None:
    """Stop the running service, if any."""
    if _service is not None:
        _service.stop()
