"""The unix socket a routed command's client hands its output to (docs/routing.md).

One socket per server process, in a directory only its user may enter (0700):
``$CTX_TREE_HOME/run/``, or when that path is too long for a socket name,
``$XDG_RUNTIME_DIR/ctx-tree/``, else ``<tmp>/ctx-tree-<uid>/``. The socket is removed when the
server stops. A connection carries one command's output (``wire/route_client.py`` has the
protocol); the answer is computed on the event loop, as tool calls are, so the store is only
used from one thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ctx_tree_mcp.route.router import Router

log = logging.getLogger(__name__)

#: Longest socket path the platforms take (``sun_path`` is 104 bytes on macOS, 108 on Linux).
MAX_SOCKET_PATH = 100
#: Bytes of a header line at most.
MAX_HEADER = 200
#: Bytes of output kept in memory at most; past it the first and last halves are kept (the
#: store keeps less: ``capture.maxBytes``).
MAX_OUTPUT = 64 * 1024 * 1024


def socket_dir(home: str) -> str | None:
    """The first usable private directory for the socket (created 0700, owned by this user,
    no one else may enter it), or None."""
    uid = os.getuid()
    candidates = [os.path.join(home, "run")]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        candidates.append(os.path.join(runtime, "ctx-tree"))
    candidates.append(os.path.join(tempfile.gettempdir(), f"ctx-tree-{uid}"))
    for path in candidates:
        if len(os.path.join(path, "0000000000.sock")) > MAX_SOCKET_PATH:
            continue
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid == uid and stat.S_ISDIR(st.st_mode) and not st.st_mode & 0o077:
            return path
    return None


class Channel:
    """The listening socket of one server; :meth:`start` in the event loop, :meth:`close`."""

    def __init__(self, router: Router, home: str) -> None:
        self.router = router
        self.home = home
        self.path: str | None = None
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> str | None:
        """Listen; returns the socket's path (also given to the router), None when no private
        directory could be made (routing then stays off)."""
        where = socket_dir(self.home)
        if where is None:
            log.warning("routing off: no private directory for its socket")
            return None
        path = os.path.join(where, f"{os.getpid()}.sock")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=path)
            os.chmod(path, 0o600)
        except OSError as exc:
            log.warning("routing off: cannot listen on %s: %s", path, exc)
            return None
        self.path = path
        self.router.socket_path = path
        return path

    async def close(self) -> None:
        """Stop listening and remove the socket."""
        self.router.socket_path = None
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        if self.path:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        token: list[str] = []  # the command's, once its header is read
        later: list[Callable[[], None]] = []  # what is left once the client has its reply
        try:
            reply = await self._answer(reader, token, later)
            writer.write(reply)
            await writer.drain()
        except Exception:
            log.exception("a routed command's answer failed; its output is printed as it was")
        finally:
            writer.close()
            await asyncio.sleep(0)  # the socket closes: the client has all of its reply
            for work in later:  # an output printed as it was: stored once the host has it
                try:
                    work()
                except Exception:
                    log.exception("a routed command's output was not stored")
            if token:
                self.router.answered(token[0])
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(
        self, reader: asyncio.StreamReader, seen: list[str], later: list[Callable[[], None]]
    ) -> bytes:
        """The reply to one client; the command's token goes into ``seen`` once read, and the
        work left once the reply is out into ``later``."""
        from ctx_tree_mcp.route.answers import reply

        header = await reader.readline()
        if len(header) > MAX_HEADER or not header.startswith(b"CTXR1 "):
            return b"P"
        parts = header.decode("ascii", "replace").split()
        if len(parts) != 4 or not parts[2].isdigit():
            return b"P"
        _magic, token, budget, _kind = parts
        seen.append(token)
        routed = self.router.take(token)
        data = await _read_all(reader)
        if routed is None:
            return b"P"
        try:
            text, then = reply(self.router.app, routed, data, max(int(budget), 100))
        except Exception:
            log.exception("routed answer failed; the output is printed as it was")
            return b"P"
        if then is not None:
            later.append(then)
        return b"P" if text is None else b"A" + text.encode("utf-8", "surrogateescape")


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    """All the bytes until the client's EOF; past :data:`MAX_OUTPUT`, the first and last halves
    of it."""
    head = bytearray()
    tail = bytearray()
    half = MAX_OUTPUT // 2
    dropped = 0
    while True:
        chunk = await reader.read(1 << 16)
        if not chunk:
            break
        if len(head) < half:
            take = half - len(head)
            head += chunk[:take]
            chunk = chunk[take:]
        if chunk:
            tail += chunk
            if len(tail) > half:
                dropped += len(tail) - half
                del tail[: len(tail) - half]
    if dropped:
        head += f"\n[… {dropped:,} bytes left out here …]\n".encode()
    return bytes(head + tail)
