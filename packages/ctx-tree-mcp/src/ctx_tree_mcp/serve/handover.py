"""The SDK side of the start-up handover: the official SDK's server driven by JSON lines.

``ctx_tree_mcp.serve.instant`` owns the process's stdin and stdout. Once the SDK has loaded (in a
background thread), it builds an :class:`Engine` here, feeds it the messages it buffered
(the ``initialize`` it already answered first, so the SDK session is in the same state as
the client) and from then on every line it reads. The engine parses each line exactly as the
SDK's stdio transport does, and writes the SDK's answers through ``write``, except the
duplicate answer to the replayed ``initialize``, which it drops (and compares: a difference
is logged, since it means the start-up snapshot is stale).

``ctx-tree-snapshot`` uses the same engine to record the SDK's answers into the snapshot.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from ctx_tree_mcp.app import App

log = logging.getLogger(__name__)


class Session(Protocol):
    """What the handover uses of the instant start's session (``instant.Session`` has it); a
    protocol, so this module does not import the module that imports it."""

    def roots_root(self) -> str | None:
        """The project root from the client's MCP roots, or None."""
        ...

    def send_text(self, text: str, /) -> None:
        """Write one JSON-RPC line to the client."""
        ...

    def handover(self, engine: Engine, /) -> bool:
        """Hand the wire to ``engine``; False when the session already ended."""
        ...


def parse_message(line: str) -> types.JSONRPCMessage:
    """One JSON-RPC line as the SDK's message type. pydantic's JSON parser rejects a lone
    surrogate escape such as ``"\\ud800"`` (valid JSON syntax, invalid text), and the SDK then
    answers nothing: the host would wait for its timeout. The standard library parses it, so
    the request reaches the tool, whose argument check refuses it with an error that names the
    argument. Raises pydantic's ``ValidationError`` for anything else the SDK rejects."""
    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        try:
            data = json.loads(line)
        except ValueError:
            raise exc from None
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)


class Engine:
    """One SDK server session over a line feed. :meth:`feed` and :meth:`close` are thread-safe;
    :meth:`run` serves until :meth:`close` (call it in the thread that owns the event loop)."""

    def __init__(self, server: Server, write: Callable[[str], None]) -> None:
        self.server = server
        self.write = write
        self.drop: dict[Any, Any] = {}  # request id -> result already sent for it
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ready = threading.Event()
        self._early: list[str | None] = []
        self._lock = threading.Lock()
        self._send: Any = None

    def feed(self, line: str) -> None:
        """Queue one JSON-RPC line for the SDK."""
        self._put(line)

    def close(self) -> None:
        """End of input: the session ends once the queued lines are answered."""
        self._put(None)

    def _put(self, item: str | None) -> None:
        with self._lock:
            if self.loop is None:
                self._early.append(item)
                return
        self.loop.call_soon_threadsafe(self._deliver, item)

    def _deliver(self, item: str | None) -> None:
        if item is None:
            self._send.close()
        else:
            self._send.send_nowait(item)

    async def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """Serve the session until its input ends; ``on_ready`` is called once it takes messages."""
        raw_send, raw_recv = anyio.create_memory_object_stream[str](math.inf)
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        self._send = raw_send

        async def reader() -> None:
            async with read_send, raw_recv:
                async for line in raw_recv:
                    try:
                        message = parse_message(line)
                    except Exception as exc:
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))

        async def writer() -> None:
            async with write_recv:
                async for session_message in write_recv:
                    message = session_message.message
                    text = message.model_dump_json(by_alias=True, exclude_unset=True)
                    if self._dropped(message, text):
                        continue
                    self.write(text)

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            with self._lock:
                self.loop = asyncio.get_running_loop()
                early, self._early = self._early, []
            for item in early:
                self._deliver(item)
            self.ready.set()
            if on_ready is not None:
                on_ready()
            await self.server.run(
                read_recv, write_send, self.server.create_initialization_options()
            )

    def _dropped(self, message: Any, text: str) -> bool:
        """True for the SDK's answer to a request the start-up path already answered."""
        msg_id = getattr(message, "id", None)
        if msg_id is None or msg_id not in self.drop or hasattr(message, "method"):
            return False
        sent = self.drop.pop(msg_id)
        got = json.loads(text).get("result")
        if got != sent:
            log.warning(
                "the start-up snapshot differs from the SDK's answer (run `uv run "
                "ctx-tree-snapshot`): sent %s, the SDK says %s",
                json.dumps(sent)[:300],
                json.dumps(got)[:300],
            )
        return True


def record(server: Server, lines: list[str], answers: int) -> list[dict[str, Any]]:
    """Feed ``lines`` to a fresh session of ``server``; returns its first ``answers`` messages
    (wire JSON, parsed). For ``ctx-tree-snapshot`` and tests."""
    out: list[dict[str, Any]] = []
    done = threading.Event()

    def write(text: str) -> None:
        out.append(json.loads(text))
        if len(out) >= answers:
            done.set()

    engine = Engine(server, write)
    for line in lines:
        engine.feed(line)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(engine.run)
            await anyio.to_thread.run_sync(done.wait, 30)
            engine.close()

    anyio.run(main)
    return out


def serve_session(session: Session, root: str | None) -> None:
    """Build the server for ``root``, take over ``session`` and serve it until end of input.

    Raises ``errors.StartError`` for an invalid configuration.
    """
    import sys

    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="ctx-tree: %(levelname)s %(message)s"
    )
    from ctx_tree_schema import ConfigError

    from ctx_tree_mcp.app import PROJECT_VARIABLES, App, project_root, server_session_key
    from ctx_tree_mcp.errors import StartError
    from ctx_tree_mcp.serve.server import build_server, save_counters

    if root is None and not any(os.environ.get(v) for v in PROJECT_VARIABLES):
        # no root from the command line or the host's variables: the client's MCP roots
        root = session.roots_root()
        if root is not None:
            log.info("project root from the client's MCP roots: %s", root)
    app = App(project_root(root), session_key=server_session_key())
    from ctx_tree_mcp.route import service as routing

    app.calls = routing.calls_for(app.root) or app.calls  # the index waits for routed calls too
    try:
        app.config
    except ConfigError as exc:
        from ctx_tree_mcp.errors import config_error

        raise StartError(config_error(exc)) from None
    engine = Engine(build_server(app), session.send_text)
    from ctx_tree_mcp import ending

    # on a stop signal the counters are written at once, not after the walkers have stopped
    ending.on_stop(lambda: save_counters(app), order=20)
    prewarm(app)
    if not session.handover(engine):
        return
    sys.setswitchinterval(0.005)  # the default again (instant.py lowered it while loading)
    try:
        anyio.run(engine.run)
    finally:
        app.close()


def prewarm(app: App) -> None:
    """Before the handover: open the store and import what the first tool call needs.

    A host's first ``tools/call`` comes after its model's first turn, seconds after start-up,
    and the handshake is already answered from the snapshot; work done here is work that call
    does not wait for. Failures are left for that call to report.
    """
    try:
        import ctx_tree_chunk  # noqa: F401
        import ctx_tree_compose  # noqa: F401

        from ctx_tree_mcp.wire import redact  # noqa: F401

        app.store  # opens and migrates the store
    except Exception:
        log.debug("prewarm failed; the first call will say why", exc_info=True)
