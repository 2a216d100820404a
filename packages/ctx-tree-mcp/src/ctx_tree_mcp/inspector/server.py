"""The inspector's HTTP side: a Starlette app over :mod:`.api`, served by uvicorn on 127.0.0.1.

Every request must carry the run's token (``?token=`` or the ``X-Ctx-Tree-Token`` header),
else 403; the ``Host`` must be ``127.0.0.1`` or ``localhost`` (no DNS rebinding); no CORS
header is ever sent, and a strict Content-Security-Policy keeps the page to its own files.
Only GET (and HEAD) routes exist. The store is opened read-only (``docs/inspector.md``).

The browser is opened on a private redirect file, never on the URL: a command line is
readable by every local user (``ps``), so the token would leak. The file (``0600``, in a
``0700`` directory) holds a one-time code; the first request with it is redirected to the
tokened URL, the code is spent and the file deleted (Jupyter's approach).
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import parse_qs

from ctx_tree_mcp.inspector import api

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from ctx_tree_mcp.app import App

log = logging.getLogger(__name__)

TOKEN_HEADER = "x-ctx-tree-token"
ALLOWED_HOSTS = ("127.0.0.1", "localhost")
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


class TokenGate:
    """ASGI middleware: 403 unless the request carries ``token``; adds the security headers
    to every response."""

    def __init__(self, app: ASGIApp, token: str, once: OnceCode | None = None) -> None:
        self.app = app
        self.token = token.encode()
        self.once = once

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse HTTP requests without the session's token; pass the rest on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(TOKEN_HEADER.encode(), b"")
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if not given:
            given = (query.get("token") or [""])[0].encode()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *SECURITY_HEADERS]
            await send(message)

        code = (query.get("once") or [""])[0]
        if code and scope.get("path") == "/" and self.once is not None and self.once.spend(code):
            from starlette.responses import RedirectResponse

            redirect = RedirectResponse("/?token=" + self.token.decode(), status_code=303)
            await redirect(scope, receive, send_with_headers)
            return
        if not secrets.compare_digest(given, self.token):
            from starlette.responses import PlainTextResponse

            response = PlainTextResponse(
                "403: this inspector URL needs its token (the ?token=... printed by "
                "`ctx-tree inspect`)\n",
                status_code=403,
            )
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


class OnceCode:
    """A one-time code for the browser's first request, written to a private redirect file
    (:meth:`write`); :meth:`spend` accepts it once, then deletes the file."""

    def __init__(self) -> None:
        self.code = secrets.token_urlsafe(24)
        self.path: Path | None = None
        self._lock = threading.Lock()

    def write(self, url: str) -> Path:
        """Write ``<dir>/open.html`` (a fresh ``0700`` directory, the file ``0600``) that
        redirects to ``url + "?once=<code>"``; returns its path."""
        import html
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="ctx-tree-inspect-"))  # 0700
        target = f"{url}?once={self.code}"
        page = (
            "<!doctype html>\n<meta charset=utf-8>\n"
            f'<meta http-equiv="refresh" content="0;url={html.escape(target)}">\n'
            "<title>ctx-tree inspect</title>\n"
            f'<p><a href="{html.escape(target)}">Open the ctx-tree inspector</a></p>\n'
        )
        path = folder / "open.html"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        self.path = path
        return path

    def spend(self, code: str) -> bool:
        """True the first time ``code`` is this code (the redirect file is deleted then)."""
        with self._lock:
            if not self.code or not secrets.compare_digest(code.encode(), self.code.encode()):
                return False
            self.code = ""
            self.remove()
            return True

    def remove(self) -> None:
        """Delete the redirect file and its directory (at first use or at exit)."""
        if self.path is not None:
            import shutil

            shutil.rmtree(self.path.parent, ignore_errors=True)
            self.path = None


def _json_endpoint(
    app: App, fn: Callable[[App, Any], dict[str, Any]]
) -> Callable[[Request], JSONResponse]:
    """A sync Starlette endpoint (run in the threadpool) answering ``fn``'s dict as JSON,
    400 with ``{"error"}`` for bad parameters, 500 for anything else (logged)."""
    from starlette.responses import JSONResponse

    from ctx_tree_mcp.errors import ToolInputError

    def endpoint(request: Request) -> JSONResponse:
        try:
            return JSONResponse(fn(app, request.query_params))
        except ToolInputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except Exception as exc:
            log.exception("inspector: %s failed", request.url.path)
            return JSONResponse({"error": f"{type(exc).__name__}: {exc}"}, status_code=500)

    return endpoint


def _static_dir() -> Path:
    return Path(str(resources.files(__package__) / "static"))


def create_app(app: App, token: str, once: OnceCode | None = None) -> Starlette:
    """The inspector's ASGI app for ``app`` (whose store must be read-only) and ``token``;
    ``once``, when given, is accepted once at ``/?once=`` for a redirect to the token's URL."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    static = _static_dir()
    page = (static / "index.html").read_text("utf-8").replace("__TOKEN__", token)

    def index(request: Request) -> HTMLResponse:
        return HTMLResponse(page)

    def node(request: Request) -> JSONResponse:
        found = api.node(app, request.path_params["node_id"])
        if found is None:
            return JSONResponse({"error": "no node with this id"}, status_code=404)
        return JSONResponse(found)

    routes = [
        Route("/", index),
        Route("/api/version", _json_endpoint(app, api.version)),
        Route("/api/summary", _json_endpoint(app, api.summary)),
        Route("/api/children", _json_endpoint(app, api.children)),
        Route("/api/recent", _json_endpoint(app, api.recent)),
        Route("/api/search", _json_endpoint(app, api.search)),
        Route("/api/walkers", _json_endpoint(app, api.walkers)),
        Route("/api/savings", _json_endpoint(app, api.savings)),
        Route("/api/compose", _json_endpoint(app, api.compose_preview)),
        Route("/api/node/{node_id}", node),
        Mount("/static", StaticFiles(directory=static), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(ALLOWED_HOSTS)),
            Middleware(TokenGate, token=token, once=once),
        ],
    )


def new_token() -> str:
    """A fresh random URL token (``secrets.token_urlsafe``, 192 bits)."""
    return secrets.token_urlsafe(24)


def _has_display() -> bool:
    """Whether a graphical browser can open: macOS, Windows, or X11/Wayland. Elsewhere Python's
    ``webbrowser`` would start a text browser (lynx, w3m) in this very terminal."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def serve(app: App, *, port: int = 0, open_browser: bool = True, out: TextIO = sys.stdout) -> int:
    """Serve the inspector for ``app`` (read-only) on ``127.0.0.1:port`` (0: any free port)
    until Ctrl-C or SIGTERM; prints the URL first. Returns 0.

    Raises ``OSError`` when the port cannot be bound (e.g. in use).
    """
    import uvicorn

    token = new_token()
    once = OnceCode()
    asgi = create_app(app, token, once)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: without it a keep-alive client waits ~40 ms per
        # response (uvicorn writes the headers and the body separately: Nagle + delayed ACK).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    base = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    url = f"{base}?token={token}"
    server = uvicorn.Server(
        uvicorn.Config(asgi, log_level="warning", access_log=False, lifespan="off")
    )
    # One Ctrl-C always stops it: from here on SIGINT asks uvicorn to exit (as its own handler
    # does once it serves). Left to Python's default, a Ctrl-C in the first milliseconds of
    # server.run() went to asyncio's runner, which cancelled the start-up and ended with a
    # CancelledError traceback, or left the server serving until a second Ctrl-C.
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, server.handle_exit)
    try:
        out.write(f"ctx-tree inspect: {app.store_file} (read-only)\n{url}\nCtrl-C to stop.\n")
        if open_browser and _has_display():
            import webbrowser

            # the browser's command line holds the private file's path, never the token
            opener = once.write(base).as_uri()
            threading.Thread(target=webbrowser.open, args=(opener,), daemon=True).start()
        elif open_browser:
            out.write("(no display here: open the URL in a browser on this machine)\n")
        out.flush()
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # Ctrl-C before uvicorn took over the signal, or the SIGINT it re-raises once it has
        # shut down: either way the clean end.
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        sock.close()
        once.remove()
    out.write("ctx-tree inspect: stopped\n")
    out.flush()
    return 0
