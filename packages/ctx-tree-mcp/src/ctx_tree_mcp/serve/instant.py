"""``ctx-tree-mcp``: the stdio MCP server, answering the handshake before the SDK has loaded.

Importing the official MCP SDK takes most of a second, and a host that starts its first turn
before a server has answered leaves that server's tools out of the turn. So the process
starts on the standard library alone (this module imports nothing else of ours or anyone's)
and answers from ``snapshot.json``, a record of the SDK server's own answers made by
``uv run ctx-tree-snapshot``:

* ``initialize``: the protocol version negotiated as the SDK does (the client's version when
  the SDK supports it, else the SDK's latest), and the SDK's result for that version;
* ``notifications/initialized``, ``tools/list`` and ``ping``.

Meanwhile a background thread imports the SDK, builds the server (``server.build_server``)
and takes over the live session (``handover.Engine``): it is fed the ``initialize`` and
``notifications/initialized`` already answered (its duplicate answer is dropped), then every
message that was waiting, in order, then everything that follows. From then on the SDK is the
protocol engine for everything. A ``tools/call`` that arrives first waits for it. If the SDK
cannot load, waiting and later requests get a JSON-RPC error saying why (also logged to
stderr); the server never hangs. A JSON-RPC batch (an array) gets an "Invalid Request" error.

``CTX_TREE_INSTANT=0`` runs the SDK's own stdio server instead (``server.serve``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading

from ctx_tree_mcp import ending

TYPE_CHECKING = False  # typing itself is not imported at start-up (about 10 ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Protocol

    class Engine(Protocol):
        """What the session hands over to (``handover.Engine``, the SDK's session): answers
        to drop by request id (already sent from here), the lines to feed it, its end."""

        drop: dict[Any, Any]

        def feed(self, line: str) -> None:
            """Pass one input line on."""

        def close(self) -> None:
            """End the session (no more input)."""


SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "snapshot.json")
#: Seconds a waiting request gives the SDK to load before it is answered with an error.
HANDOVER_TIMEOUT = 120.0
#: Seconds after start-up at which the SDK starts loading even if no message has come.
LOADER_DELAY = 0.05
#: Seconds the loader waits for the client's answer to ``roots/list`` (docs/install.md).
ROOTS_TIMEOUT = 1.0
#: The id of the one ``roots/list`` request the server sends.
ROOTS_ID = "ctx-tree-roots/list"
#: The hooks' hidden routing tool (``route/router.py``), answered by this module's session
#: from the routing service, which starts without the SDK (docs/routing.md).
ROUTE_TOOL = "ctx_tree_route"
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


def load_snapshot(path: str = SNAPSHOT) -> dict[str, Any]:
    """The start-up snapshot (``snapshot.json``): the SDK's recorded answers."""
    with open(path, encoding="utf-8") as f:
        snapshot: dict[str, Any] = json.load(f)
    return snapshot


def negotiate(snapshot: dict[str, Any], requested: object) -> str:
    """The protocol version the SDK would answer ``initialize`` with."""
    versions = snapshot["versions"]
    if isinstance(requested, str) and requested in versions:
        return requested
    latest: str = snapshot["latest"]
    return latest


def _valid_initialize(params: object) -> bool:
    """The ``initialize`` params the SDK accepts (anything else goes to the SDK to answer)."""
    if not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


class Session:
    """The session before and across the handover. ``receive(line)`` is called for every
    input line (one thread); ``handover(engine)`` and ``fail(reason)`` from the loader."""

    def __init__(self, snapshot: dict[str, Any], write: Callable[[str], None]) -> None:
        self.snapshot = snapshot
        self._write = write
        self.lock = threading.Lock()
        self.version: str | None = None  # negotiated by the answered initialize
        self.replay: list[str] = []  # initialize / initialized lines answered here
        self.init_id: object = None
        self.pending: list[str] = []
        self.engine: Engine | None = None
        self.failed: str | None = None
        self.eof = False
        self.done = threading.Event()  # set when nothing more will be written
        #: the client declared the ``roots`` capability in the initialize answered here
        self.client_roots = False
        self.initialized = threading.Event()  # notifications/initialized came
        self._roots: list[object] = []  # the client's answer to roots/list
        self._roots_came = threading.Event()
        #: The routing service's decision (``route/service.py``), once it is started.
        self.route_decide: Callable[[Mapping[str, Any]], str] | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message."""
        self._write(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Write one JSON-RPC message, already serialised (the SDK's answers)."""
        self._write(text)

    def receive(self, line: str) -> None:
        """Handle one input line: answer it from the snapshot, or queue it for the SDK."""
        line = line.strip()
        if not line:
            return
        if line.startswith("["):
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {
                        "code": INVALID_REQUEST,
                        "message": "Invalid Request: JSON-RPC batches (arrays) are not "
                        "supported by MCP; send one message per line",
                    },
                }
            )
            return
        if ROUTE_TOOL in line and self._route(line):
            return
        if ROOTS_ID in line and self._take_roots(line):
            return
        if "notifications/initialized" in line:
            self.initialized.set()
        with self.lock:
            if self.engine is not None:
                self.engine.feed(line)
            elif self.failed is not None:
                self._refuse(line)
            elif not self._answer(line):
                self.pending.append(line)

    def _route(self, line: str) -> bool:
        """Answer the hooks' ``ctx_tree_route`` call here, before and after the handover: the
        routing service (``route/service.py``) decides, or nothing is routed while it is not
        up (docs/routing.md). False for any other line."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        params = msg.get("params") if isinstance(msg, dict) else None
        if not (
            isinstance(params, dict)
            and msg.get("method") == "tools/call"
            and "id" in msg
            and params.get("name") == ROUTE_TOOL
        ):
            return False
        text = ""
        decide = self.route_decide
        if decide is not None:
            try:
                text = decide(params.get("arguments") or {})
            except Exception as exc:  # never: Router.decide catches; the command runs as it is
                sys.stderr.write(f"ctx-tree: routing failed: {exc}\n")
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        return True

    def _take_roots(self, line: str) -> bool:
        """True when ``line`` is the client's answer to our ``roots/list`` (kept, not fed to
        the SDK, which never sent it)."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or msg.get("id") != ROOTS_ID or "method" in msg:
            return False
        result = msg.get("result")
        roots = result.get("roots") if isinstance(result, dict) else None
        self._roots.extend(roots if isinstance(roots, list) else [])
        self._roots_came.set()
        return True

    def roots_root(self, timeout: float = ROOTS_TIMEOUT) -> str | None:
        """The directory of the first ``file://`` root the client lists, when it declared the
        ``roots`` capability; None when it did not, answered none or nothing usable, or not
        within ``timeout`` seconds (asked once the client sent ``notifications/initialized``;
        the root is read once: a later ``notifications/roots/list_changed`` changes nothing)."""
        import time

        if not self.client_roots:
            return None
        deadline = time.monotonic() + timeout
        if not self.initialized.wait(timeout):
            return None
        self.send({"jsonrpc": "2.0", "id": ROOTS_ID, "method": "roots/list"})
        if not self._roots_came.wait(max(0.0, deadline - time.monotonic())):
            return None
        for root in self._roots:
            path = _file_uri_path(root.get("uri") if isinstance(root, dict) else None)
            if path is not None and os.path.isdir(path):
                return path
        return None

    def _answer(self, line: str) -> bool:
        """Answer ``line`` from the snapshot when it is one of the start-up messages."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return False
        method, params = msg.get("method"), msg.get("params")
        answers = self.snapshot["answers"]
        if method == "initialize":
            if self.version is not None or "id" not in msg or not _valid_initialize(params):
                return False
            self.version = negotiate(self.snapshot, msg["params"]["protocolVersion"])
            self.init_id = msg["id"]
            capabilities = msg["params"]["capabilities"]  # checked by _valid_initialize
            self.client_roots = isinstance(capabilities.get("roots"), dict)
            self.replay.append(line)
            self.send(
                {"jsonrpc": "2.0", "id": msg["id"], "result": answers[self.version]["initialize"]}
            )
            return True
        if self.version is None:
            return False
        if self.pending:
            return False
        if method == "notifications/initialized" and "id" not in msg and len(self.replay) == 1:
            self.replay.append(line)
            return True
        plain = params is None or (isinstance(params, dict) and set(params) <= {"_meta"})
        if method in ("tools/list", "ping") and "id" in msg and plain:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": answers[self.version][method]})
            return True
        return False

    def _refuse(self, line: str) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and "id" in msg and "method" in msg:
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": INTERNAL_ERROR, "message": self.failed},
                }
            )

    def handover(self, engine: Engine) -> bool:
        """Give the session to ``engine``: replay what was answered here (its answers are
        dropped), then what was waiting. False when the session already failed."""
        with self.lock:
            if self.failed is not None:
                return False
            if self.replay:
                engine.drop[self.init_id] = self.snapshot["answers"][self.version]["initialize"]
            for line in (*self.replay, *self.pending):
                engine.feed(line)
            self.pending.clear()
            self.engine = engine
            if self.eof:
                engine.close()
            return True

    def fail(self, reason: str, after_handover: bool = False) -> None:
        """The SDK could not take over (or, ``after_handover``, its session died): answer
        every waiting request, and every later one, with ``reason``."""
        with self.lock:
            if self.failed is not None or (self.engine is not None and not after_handover):
                return
            self.engine = None
            self.failed = f"ctx-tree: the MCP server could not start: {reason}; see the server log"
            sys.stderr.write(f"ctx-tree: ERROR the MCP server could not start: {reason}\n")
            for line in self.pending:
                self._refuse(line)
            self.pending.clear()
            if self.eof:
                self.done.set()

    def end_of_input(self) -> None:
        """The client closed its input: end once what is pending is answered."""
        with self.lock:
            self.eof = True
            if self.engine is not None:
                self.engine.close()
            elif self.failed is not None or not self.pending:
                self.done.set()  # nothing waits for an answer


def _file_uri_path(uri: object) -> str | None:
    """The local path of a ``file://`` URI (``file:///home/me/proj`` or
    ``file://localhost/...``, percent-escapes decoded), else None."""
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    from urllib.parse import unquote, urlsplit
    from urllib.request import url2pathname

    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        return None
    return url2pathname(unquote(parts.path)) or None


def _claim_stdio() -> tuple[int, int]:
    """Private duplicates of stdin and stdout for the protocol; fd 0 then reads the null
    device and fd 1 goes to stderr, so a stray print or a child process cannot corrupt it."""
    if os.name == "nt":  # pragma: no cover
        return 0, 1
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def _writer(fd: int) -> Callable[[str], None]:
    """One JSON-RPC message per line to ``fd``; a client that went away (broken pipe) is
    written to no more, and the server ends as on a SIGHUP (``ending.watch_output``)."""
    lock = threading.Lock()
    gone: list[OSError] = []

    def write(text: str) -> None:
        data = (text + "\n").encode("utf-8", "surrogatepass")
        with lock:
            try:
                while data and not gone:
                    data = data[os.write(fd, data) :]
            except OSError as exc:  # EPIPE: nobody reads the answers any more
                gone.append(exc)
                sys.stderr.write(f"ctx-tree: the client stopped reading ({exc}); answers dropped\n")

    return write


def _load(session: Session, root: str | None) -> None:
    """Loader thread: import the SDK, build the server, hand the session over, serve."""
    try:
        from ctx_tree_mcp.serve.handover import serve_session

        serve_session(session, root)
    except BaseException as exc:  # the reason goes to the client and the log
        from ctx_tree_mcp.errors import StartError

        reason = str(exc) if isinstance(exc, StartError) else f"{type(exc).__name__}: {exc}"
        session.fail(reason, after_handover=True)
    with session.lock:
        if session.eof or session.failed:
            session.done.set()


def _start_routing(session: Session, root: str | None) -> None:
    """Start the routing service (``route/service.py``) and hand its decision to ``session``;
    a failure leaves routing off (logged). Only with a known project root: a root that comes
    from the client's MCP roots is known after the handover."""
    try:
        from ctx_tree_mcp.app import PROJECT_VARIABLES, project_root

        if root is None and not any(os.environ.get(v) for v in PROJECT_VARIABLES):
            return
        from ctx_tree_mcp.route import service

        session.route_decide = service.start(project_root(root)).decide
    except Exception as exc:  # routing is optional: the server goes on without it
        sys.stderr.write(f"ctx-tree: routing off: {type(exc).__name__}: {exc}\n")


def serve_instant(root: str | None = None) -> int:
    """Serve MCP on stdio for ``root`` (default ``$CLAUDE_PROJECT_DIR`` or the cwd) until EOF."""
    if os.environ.get("CTX_TREE_INSTANT", "1") == "0":
        from ctx_tree_mcp.serve.server import serve

        return serve(root)
    snapshot = load_snapshot()
    wire_in, wire_out = _claim_stdio()
    session = Session(snapshot, _writer(wire_out))
    # SIGINT, SIGTERM, SIGHUP end the process within the host's grace (ending.py), and so
    # does a client that stops reading the answers
    ending.install()
    ending.watch_output(wire_out)
    loader = threading.Thread(target=_load, args=(session, root), name="ctx-tree-sdk", daemon=True)
    # The loader holds the GIL for most of a second: start it once the first message (the
    # client's initialize, sent at once) is answered, or after LOADER_DELAY if none came.
    start = threading.Lock()

    routing = threading.Thread(
        target=_start_routing, args=(session, root), name="ctx-tree-route-start", daemon=True
    )

    def start_loader() -> None:
        if start.acquire(blocking=False):
            sys.setswitchinterval(0.001)  # answers from here wait less behind the imports
            routing.start()
            loader.start()

    delay = threading.Timer(LOADER_DELAY, start_loader)
    delay.daemon = True
    delay.start()
    timer = threading.Timer(
        HANDOVER_TIMEOUT,
        session.fail,
        [f"the MCP SDK did not load within {HANDOVER_TIMEOUT:.0f} s"],
    )
    timer.daemon = True
    timer.start()
    with os.fdopen(wire_in, "rb") as stream:
        for raw in stream:
            session.receive(raw.decode("utf-8", "replace"))
            start_loader()
    start_loader()
    # the client is gone: nobody reads a running command's answer, so end it now
    ending.begin()
    ending.end_children()
    if session.route_decide is not None:
        from ctx_tree_mcp.route import service

        service.stop()
    session.end_of_input()
    session.done.wait()
    timer.cancel()
    ending.end_children(kill=True)
    return 0


USAGE = """usage: ctx-tree-mcp [--help] [--version]

The ctx-tree MCP server on stdio. Project root: $CLAUDE_PROJECT_DIR or the cwd;
store: $CTX_TREE_HOME (default ~/.ctx-tree)/<project-hash>/store.db. See `ctx-tree --help`.
It answers the handshake from a start-up snapshot while the MCP SDK loads, then hands the
session to the SDK; CTX_TREE_INSTANT=0 runs the SDK's own stdio server from the start.
"""


def main() -> None:
    """Console script ``ctx-tree-mcp``."""
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE, end="")
        return
    if args[:1] == ["--version"]:
        info = load_snapshot()["answers"]
        version = next(iter(info.values()))["initialize"]["serverInfo"]["version"]
        print(f"ctx-tree-mcp {version}")
        return
    if args:  # a host's config passing flags this server does not know: say so, serve nothing
        print(
            f"ctx-tree-mcp: unknown argument {args[0]!r}; it takes none (the project root is "
            "$CLAUDE_PROJECT_DIR or the cwd), or --help or --version",
            file=sys.stderr,
        )
        raise SystemExit(2)
    code = serve_instant()
    # The session is over and its store closed. Exit now: an interpreter shutdown would wait
    # for worker threads (a cancelled command's runner ending its group) for no one.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
