"""The last stage of a routed command: hand the output to ctx-tree's server, print its answer.

    ORIGINAL | python3 -I -S route_client.py KIND BUDGET SOCKET TOKEN

The original command's output comes on standard input. It is sent, as it arrives, to the
server listening on the unix socket ``SOCKET`` (the server that rewrote the command; ``TOKEN``
names the command there), which stores all of it and answers either "print it as it was"
(it fits ``BUDGET`` tokens) or the text to print instead (docs/routing.md). The client never
runs anything and never fails the command: with no server to reach (not started, gone,
sandboxed), a broken connection or any other trouble, it prints the output unchanged. It
exits 0; the original's exit status reaches the host through ``pipefail``.

Kept to what starts fast (about 10 ms): the ``_socket`` and ``_signal`` built-ins, no
``socket``/``signal`` modules (they import ``enum``), no ``json``. Standard library only,
Python 3.8+. Protocol, one connection per command::

    client -> server   b"CTXR1 <token> <budget> <kind>\\n" then the output bytes, then EOF
    server -> client   b"P" (print the output as it was) or b"A" + the answer bytes
"""

from __future__ import annotations

import os
import sys

#: Bytes of output kept here to print when the server says so (or is gone); past this the
#: server's answer is the only copy (it stores the output).
LOCAL_MAX = 32 * 1024 * 1024
#: Seconds to connect, and to wait for the answer once the output has ended.
CONNECT_S = 2.0
ANSWER_S = 120.0
CHUNK = 1 << 16

_held: list[bytes] = []  # the output so far (chunks), for printing it unchanged
_state = {"held": 0, "kept_all": True, "done": False}


def _write_all(data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(1, view)
        except InterruptedError:
            continue
        view = view[n:]


def _print_held():
    """Print the output as it came (once)."""
    if _state["done"]:
        return
    _state["done"] = True
    for chunk in _held:
        _write_all(chunk)


def _stream_rest():
    """Copy the rest of standard input to standard output as it comes."""
    while True:
        try:
            chunk = os.read(0, CHUNK)
        except InterruptedError:
            continue
        if not chunk:
            return
        _write_all(chunk)


def _stopped(signum, frame):
    """The host stops the command (its timeout, an interrupt): print what came so far."""
    try:
        _print_held()
    finally:
        os._exit(0)


def _keep(chunk):
    if _state["kept_all"] and _state["held"] + len(chunk) <= LOCAL_MAX:
        _held.append(chunk)
        _state["held"] += len(chunk)
    else:
        _state["kept_all"] = False


def _passthrough():
    _print_held()
    _stream_rest()


def main(argv):
    """Send the output to the server named in ``argv`` and print its answer (module doc)."""
    try:
        import _signal  # type: ignore[import-not-found]

        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            _signal.signal(getattr(_signal, name), _stopped)
    except Exception:
        pass
    if len(argv) != 5:
        _passthrough()
        return
    kind, budget, path, token = argv[1:]
    try:
        import _socket

        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.settimeout(CONNECT_S)
        conn.connect(path)
        conn.settimeout(None)
        conn.sendall(("CTXR1 %s %s %s\n" % (token, budget, kind)).encode("ascii"))
    except Exception:
        _passthrough()
        return
    while True:
        try:
            chunk = os.read(0, CHUNK)
        except InterruptedError:
            continue
        if not chunk:
            break
        _keep(chunk)
        try:
            conn.sendall(chunk)
        except Exception:  # the server went away: print everything as it comes
            if not _state["kept_all"]:
                _write_all(b"[ctx-tree: the server went away; the start of the output is lost]\n")
                _state["done"] = True
            _write_all(chunk) if _state["done"] else _print_held()
            _stream_rest()
            return
    reply = []
    try:
        conn.shutdown(_socket.SHUT_WR)
        conn.settimeout(ANSWER_S)
        while True:
            data = conn.recv(CHUNK)
            if not data:
                break
            reply.append(data)
    except Exception:
        reply = []
    answer = b"".join(reply)
    if answer[:1] == b"A":
        _state["done"] = True
        _write_all(answer[1:])
    elif _state["kept_all"]:
        _print_held()
    else:
        _write_all(b"[ctx-tree: no answer from the server; the output was too big to keep here]\n")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except BrokenPipeError:
        pass
    except Exception:
        try:  # noqa: SIM105 (contextlib costs start-up time)
            _passthrough()
        except Exception:
            pass
    os._exit(0)
