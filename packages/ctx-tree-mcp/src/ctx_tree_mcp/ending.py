"""What ends when the server ends: SIGINT, SIGTERM and SIGHUP end the process at once.

A host stops its MCP server with a signal and a short grace (Claude Code sends SIGINT, then
SIGTERM 100 ms later, then SIGKILL). :func:`install` makes the first of these signals start one
stop thread that does the durable work and exits, in order
(docs/architecture.md#what-ends-when-the-server-ends):

1. sends SIGTERM to every running ``ctx_tree_bash`` command's process group;
2. runs the stop hooks registered with :func:`on_stop` (the index starts no new batch; the
   usage counters are written: one transaction);
3. SIGKILLs what is left of the command groups, runs the last hooks (order :data:`LAST` and
   up: give back the spool claims not stored by then, kill the index's worker processes) and
   exits with ``128 + signal`` by ``os._exit``.

Nothing else is waited for: a walker's or the index's batch still open is rolled back (a
write is one transaction; the next run does it again), the store's WAL is checkpointed by
its next opener, and the threads, the event loop and the interpreter's teardown are
abandoned. A later signal does not interrupt this (the host's SIGTERM 100 ms after its
SIGINT). A client that stops reading the server's output ends it the same way, as a SIGHUP
(:func:`watch_output`). After :data:`STOP_WAIT_S` the process exits whatever step still runs (a store locked
by another process). Commands are also ended when the server is killed outright:
``engines/shell/reaper.py``. Standard library only: the start-up path (``serve/instant.py``) imports it
before anything else.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = [
    "LAST",
    "STOP_SIGNALS",
    "STOP_WAIT_S",
    "begin",
    "end_children",
    "install",
    "on_stop",
    "run_hooks",
    "stop",
    "stopping",
    "watch_output",
]

#: Signals that stop the server cleanly.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Seconds the stop steps may take after a signal before the process exits regardless.
STOP_WAIT_S = 2.0

_hooks: list[tuple[int, Callable[[], object]]] = []
_lock = threading.Lock()
_stopping = threading.Event()


def stopping() -> bool:
    """True once a stop signal arrived (loops that can end early check it)."""
    return _stopping.is_set()


def begin() -> None:
    """The server is ending (stdin EOF or a signal): :func:`stopping` is True from now on, and
    a command that starts from now on is ended at once (``engines/shell/run.py``)."""
    _stopping.set()


def on_stop(hook: Callable[[], object], order: int = 50) -> Callable[[], None]:
    """Run ``hook`` when a signal stops the server (lower ``order`` first; a hook that raises
    is logged and the next runs). Returns a function that unregisters it."""
    item = (order, hook)
    with _lock:
        _hooks.append(item)

    def remove() -> None:
        with _lock:
            if item in _hooks:
                _hooks.remove(item)

    return remove


#: Hooks of this order and above run last, just before the process exits.
LAST = 100


def run_hooks(last: bool = False) -> None:
    """Run the registered stop hooks of order below :data:`LAST` (with ``last``: the others)
    once each, in order."""
    with _lock:
        hooks = sorted((i for i in _hooks if (i[0] >= LAST) == last), key=lambda i: i[0])
        for item in hooks:
            _hooks.remove(item)
    for _order, hook in hooks:
        try:
            hook()
        except Exception as exc:  # one failing hook never keeps the others from running
            _say(f"a stop step failed: {type(exc).__name__}: {exc}")


def _say(text: str) -> None:
    try:
        sys.stderr.write(f"ctx-tree: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def end_children(kill: bool = False) -> None:
    """SIGTERM (SIGKILL with ``kill``) every running ``ctx_tree_bash`` command's process group
    (none when no command was ever run: ``engines/shell/run.py`` is then not even imported)."""
    runner = sys.modules.get("ctx_tree_mcp.engines.shell.run")
    if runner is not None:
        runner.end_running(kill=kill)


def stop(signum: int) -> None:
    """Stop the server for ``signum`` (the stop thread's body; exits the process)."""
    start = time.monotonic()
    # other threads (index, walkers, the event loop) would each hold the GIL up to 5 ms
    # between this thread's steps
    sys.setswitchinterval(0.0005)
    # whatever hangs below (a store locked by another process: its busy timeout is 30 s),
    # the process is gone after STOP_WAIT_S
    hard = threading.Timer(STOP_WAIT_S, _exit, [signum, start, "(a step hung)"])
    hard.daemon = True
    hard.start()
    end_children()
    run_hooks()
    _exit(signum, start)


def _exit(signum: int, start: float, why: str = "") -> None:
    """SIGKILL what is left of the command groups, run the last hooks (give back spool claims
    not stored by now) and exit with ``128 + signum``."""
    end_children(kill=True)
    run_hooks(last=True)
    name = signal.Signals(signum).name
    ms = round((time.monotonic() - start) * 1000)
    _say(f"stopped by {name} in {ms} ms{' ' + why if why else ''}")
    os._exit(128 + signum)


def watch_output(fd: int) -> None:
    """End the server as a hangup (SIGHUP, so the steps above run) once nobody reads ``fd``,
    its protocol output: a client that closed its end of the pipe (or socket) but not the
    server's input would otherwise keep it, and its commands, running until it did. A
    daemon thread waits in ``poll`` for the error or hang-up the kernel reports on the write
    end of a pipe whose readers are all gone; a file or terminal never reports one."""
    import select

    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return
    import fcntl

    # a private copy of the descriptor: the SDK's stdio server moves fd 1 elsewhere and
    # writes to a copy of its own (a writer more changes nothing: the readers are watched)
    mine = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)

    def wait() -> None:
        poller = select.poll()
        poller.register(mine, 0)  # no events asked: only POLLERR, POLLHUP, POLLNVAL come
        while True:
            try:
                events = poller.poll()
            except InterruptedError:  # pragma: no cover - retried by Python since 3.5
                continue
            if any(mask & (select.POLLERR | select.POLLHUP) for _fd, mask in events):
                break
            if any(mask & select.POLLNVAL for _fd, mask in events):
                return  # the fd was closed here: the server is ending anyway
        if not _stopping.is_set():
            _say("the client stopped reading the server's output; stopping")
            os.kill(os.getpid(), signal.SIGHUP)

    threading.Thread(target=wait, name="ctx-tree-output-watch", daemon=True).start()


def install() -> None:
    """Make :data:`STOP_SIGNALS` stop the server (main thread only)."""

    def handler(signum: int, _frame: object) -> None:
        if _stopping.is_set():
            return  # already stopping: the host's second signal changes nothing
        _stopping.set()
        threading.Thread(target=stop, args=(signum,), name="ctx-tree-stop", daemon=True).start()

    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
