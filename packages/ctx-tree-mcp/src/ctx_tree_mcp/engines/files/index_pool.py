"""The project index's per-file step and the worker processes that run it (docs/index.md,
"Cost and yielding").

:func:`prepare_file` is the whole work of one file, in a worker: read, hash, redact, chunk
(``filecache.build_nodes``, as a read stores it) and build the rows the store inserts
(``ctx_tree_store.file_rows``). It returns an :class:`Outcome`; the writer only runs the
status machine and the inserts. A step that derives more from a file (its reference edges)
belongs here, beside the chunks, so it runs in the workers too.

:class:`WorkerPool` runs batches of files in spawned processes (never forked from a threaded
server), at nice 10, each pausing before a file while the server's tool calls run. It keeps
at most :data:`AHEAD` batches a worker in flight, so memory stays flat in the size of the
tree; and it watches each worker's current file: one that takes longer than
``index.fileTimeoutMs`` of CPU (or five times that of waiting) is skipped (``Outcome.reason``
``slow``), its worker killed and
started again, and the rest of its batch given to the workers again. A worker ends by itself
within :data:`WORKER_PARENT_POLL_S` of its parent's death.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

#: ``(relative path, mtime ms, sha256 of the stored version or "")``: a file to prepare.
Item = tuple[str, int, str]

#: Niceness added to the index's worker processes: tool calls of the server go first.
WORKER_NICE = 10
#: How often a worker checks that the process that started it still runs (seconds).
WORKER_PARENT_POLL_S = 0.25
#: A worker pauses until no tool call has ended for this long (seconds) ...
QUIET_S = 0.05
#: ... but not longer than this before one file (seconds): calls back to back do not starve it.
WORKER_MAX_PAUSE_S = 0.25
#: A file whose worker has waited this many times ``index.fileTimeoutMs`` on it, CPU or not,
#: is slow too (a read that blocks).
BLOCKED_FACTOR = 5
#: The longest :meth:`WorkerPool.kill` waits for a worker being started to be known to it
#: (seconds; a start takes milliseconds, the stop path has ``ending.STOP_WAIT_S`` in all).
KILL_WAIT_S = 1.0
#: Batches handed to a worker ahead of the one it runs: enough to keep it busy, few enough
#: that prepared rows do not pile up in memory while the writer catches up.
AHEAD = 2


@dataclass(frozen=True, slots=True)
class Outcome:
    """What :func:`prepare_file` made of one file: ``status`` ``new`` (``rows`` to store),
    ``same`` (the stored version's bytes) or ``skip``, with its ``reason``: ``binary`` (or
    undecodable), ``unreadable``, ``slow`` (over ``index.fileTimeoutMs``)."""

    status: str
    rel: str
    rows: Any = None
    reason: str = ""


#: In a worker process: the shared clock of tool calls (``inf`` while one runs, else the
#: ``time.monotonic()`` the last one ended), set by :func:`_worker_init`.
_calls_until: Any = None


def _pause_for_calls() -> None:
    """Worker side, before each file: wait while the server's tool calls run (at most
    :data:`WORKER_MAX_PAUSE_S`). The two cores a machine may have are the server's first."""
    if _calls_until is None:
        return
    start = now = time.monotonic()
    while now < _calls_until.value + QUIET_S and now - start < WORKER_MAX_PAUSE_S:
        time.sleep(0.005)
        now = time.monotonic()


def prepare_file(root: str, item: Item, max_bytes: int) -> Outcome:
    """The per-file step (see the module doc): ``max_bytes`` is ``capture.maxFileBytes``.
    Never raises for the file's content: what cannot be stored is a ``skip``."""
    from ctx_tree_chunk import ChunkError
    from ctx_tree_store import file_rows, now_ms

    from ctx_tree_mcp.engines.files.filecache import build_nodes

    rel, mtime_ms, known = item
    absolute = os.path.join(root, rel)
    try:
        with open(absolute, "rb") as fh:
            data = fh.read()
    except OSError:
        return Outcome("skip", rel, reason="unreadable")
    digest = hashlib.sha256(data).hexdigest()
    if digest == known:
        return Outcome("same", rel)
    try:
        node, chunks, _outline = build_nodes(absolute, rel, data, digest, mtime_ms, max_bytes)
    except ChunkError:
        return Outcome("skip", rel, reason="binary")
    return Outcome("new", rel, file_rows(node, chunks, now_ms()))


def prepare_batch(
    root: str, items: Sequence[Item], max_bytes: int, mark: Callable[[int], None] | None = None
) -> list[Outcome]:
    """:func:`prepare_file` of each item, pausing for tool calls before each; ``mark(i)`` is
    called as item ``i`` starts (a worker tells its parent which file it is on)."""
    out: list[Outcome] = []
    for i, item in enumerate(items):
        _pause_for_calls()
        if mark is not None:
            mark(i)
        out.append(prepare_file(root, item, max_bytes))
    return out


def _worker_init(parent: int, calls_until: Any = None) -> None:
    """Worker start-up: lower its priority (:data:`WORKER_NICE`), keep ``calls_until`` (a
    shared double, see :func:`_pause_for_calls`), and end the worker when ``parent`` (the
    server, or ``ctx-tree index``) is gone, even killed outright, so no worker outlives the
    process that started it (docs/index.md). Standard library only."""
    global _calls_until
    _calls_until = calls_until
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    _die_with_parent()

    def watch() -> None:
        while True:
            time.sleep(WORKER_PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="ctx-tree-index-parent", daemon=True).start()


def _die_with_parent() -> None:
    """On Linux, have the kernel SIGKILL this process when its parent ends: the watch thread
    below needs the GIL, which a worker stuck in one long regex match holds."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _worker_main(conn: Any, slot: int, board: Any, parent: int, calls_until: Any) -> None:
    """A worker's loop: ``(batch id, root, items, max bytes)`` in, ``(batch id, outcomes)``
    out, until ``None`` or EOF. ``board[3 * slot]`` is the item it is on,
    ``board[3 * slot + 1]`` the ``time.monotonic()`` it started it (0 between batches) and
    ``board[3 * slot + 2]`` this process's CPU seconds then."""
    _worker_init(parent, calls_until)
    # what every file needs, loaded before the first file's clock starts
    import ctx_tree_chunk._code  # noqa: F401
    import ctx_tree_store  # noqa: F401

    import ctx_tree_mcp.engines.files.filecache
    import ctx_tree_mcp.wire.redact  # noqa: F401

    def mark(i: int) -> None:
        board[3 * slot] = i
        board[3 * slot + 2] = time.process_time()
        board[3 * slot + 1] = time.monotonic()

    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        batch_id, root, items, max_bytes = task
        outcomes = prepare_batch(root, items, max_bytes, mark)
        board[3 * slot + 1] = 0.0
        conn.send((batch_id, outcomes))


@dataclass
class _Worker:
    proc: Any
    conn: Any
    queue: deque[tuple[int, list[Item]]]


class WorkerPool:
    """``n`` worker processes for :func:`prepare_batch` (see the module doc). ``calls_until``
    is the shared clock of tool calls (a ``multiprocessing`` double) or None; ``tick`` is
    called about every 10 ms while the pool waits (the caller keeps that clock there when no
    one else does). Use :meth:`run`, then :meth:`close`; :meth:`kill` from any thread."""

    def __init__(
        self,
        n: int,
        root: str,
        max_bytes: int,
        timeout_s: float,
        calls_until: Any = None,
        tick: Callable[[], None] | None = None,
    ) -> None:
        import multiprocessing

        self.ctx = multiprocessing.get_context("spawn")
        self.root, self.max_bytes, self.timeout_s = root, max_bytes, timeout_s
        self.calls_until = calls_until
        self.tick = tick
        self.board = self.ctx.Array("d", 3 * n, lock=False)
        self.workers: list[_Worker | None] = [None] * n
        self._killed = False
        # held while a worker starts: kill() waits for it to be in ``workers``, else a worker
        # whose start was under way when the process exited would outlive it
        self._starting = threading.RLock()

    def _start(self, slot: int) -> _Worker | None:
        """Start the worker of ``slot``; None once :meth:`kill` was called."""
        with self._starting:
            if self._killed:
                return None
            parent_end, child_end = self.ctx.Pipe()
            proc = self.ctx.Process(
                target=_worker_main,
                args=(child_end, slot, self.board, os.getpid(), self.calls_until),
                name=f"ctx-tree-index-{slot}",
                daemon=True,
            )
            proc.start()
            child_end.close()
            self.board[3 * slot + 1] = 0.0
            worker = _Worker(proc, parent_end, deque())
            self.workers[slot] = worker
            return worker

    def run(self, batches: Sequence[list[Item]], stop: threading.Event) -> Iterator[list[Outcome]]:
        """Yield each batch's outcomes as it completes (not in order; a batch cut by a slow
        file comes as the slow file's ``skip`` and, later, the rest of it). Ends early when
        ``stop`` is set."""
        from multiprocessing.connection import wait

        todo: deque[list[Item]] = deque(batches)
        sent = 0
        while not stop.is_set() and not self._killed:
            for slot in range(len(self.workers)):
                worker = self.workers[slot]
                while todo and (worker is None or len(worker.queue) < AHEAD):
                    worker = worker or self._start(slot)
                    if worker is None:  # killed
                        return
                    items = todo.popleft()
                    worker.queue.append((sent, items))
                    worker.conn.send((sent, self.root, items, self.max_bytes))
                    sent += 1
            busy = [w for w in self.workers if w is not None and w.queue]
            if not busy:
                return
            ready = wait([w.conn for w in busy], timeout=0.01)
            for w in busy:
                if w.conn in ready:
                    try:
                        _batch_id, outcomes = w.conn.recv()
                    except (EOFError, OSError):  # died (killed by the system): done again
                        self._replace(w, todo, skip_current=False)
                        continue
                    w.queue.popleft()
                    yield outcomes
            yield from self._check_slow(todo)
            if self.tick is not None:
                self.tick()

    def _check_slow(self, todo: deque[list[Item]]) -> Iterator[list[Outcome]]:
        """A file is slow once it has cost its worker ``timeout_s`` of CPU (a machine busy
        with other work does not make a file slow), or :data:`BLOCKED_FACTOR` times that of
        wall time (a read that never returns costs no CPU)."""
        now = time.monotonic()
        for slot, w in enumerate(self.workers):
            if w is None or not w.queue:
                continue
            started = self.board[3 * slot + 1]
            if not started or now - started <= self.timeout_s:
                continue
            cpu = _cpu_seconds(w.proc.pid)
            used = cpu - self.board[3 * slot + 2] if cpu is not None else now - started
            if used <= self.timeout_s and now - started <= BLOCKED_FACTOR * self.timeout_s:
                continue
            if self.board[3 * slot + 1] != started:  # it moved on meanwhile
                continue
            index = int(self.board[3 * slot])
            _batch_id, items = w.queue[0]
            if index >= len(items):
                continue
            yield [Outcome("skip", items[index][0], reason="slow")]
            self._replace(w, todo, skip_current=True, index=index)

    def _replace(
        self, w: _Worker, todo: deque[list[Item]], *, skip_current: bool, index: int = -1
    ) -> None:
        """End worker ``w`` and give its batches back to ``todo`` (less the item ``index`` of
        its current one when ``skip_current``); its slot starts a new worker when needed."""
        slot = self.workers.index(w)
        _kill(w.proc)
        with contextlib.suppress(OSError):
            w.conn.close()
        self.workers[slot] = None
        self.board[3 * slot + 1] = 0.0
        for n, (_batch_id, items) in enumerate(w.queue):
            rest = [
                it for i, it in enumerate(items) if not (n == 0 and skip_current and i == index)
            ]
            if rest:
                todo.appendleft(rest)

    def kill(self) -> None:
        """SIGKILL every worker without waiting (the process is about to exit: ``ending.py``;
        they hold nothing durable, and init reaps them), the one being started too."""
        self._killed = True
        waited = self._starting.acquire(timeout=KILL_WAIT_S)
        try:
            workers = list(self.workers)
        finally:
            if waited:
                self._starting.release()
        for w in workers:
            if w is not None:
                with contextlib.suppress(Exception):
                    w.proc.kill()

    def close(self, *, now: bool = False) -> None:
        """End the workers and reap them: when idle they are told to end (SIGTERM after 2 s,
        SIGKILL after 1 more); ``now`` (a stop, an error) SIGTERMs them at once, their
        batches dropped."""
        for w in self.workers:
            if w is None:
                continue
            with contextlib.suppress(OSError, ValueError):
                w.conn.send(None)
            if now:
                with contextlib.suppress(Exception):
                    w.proc.terminate()
        for w in self.workers:
            if w is None:
                continue
            w.proc.join(2)
            if w.proc.is_alive():
                w.proc.terminate()
                w.proc.join(1)
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(1)
            with contextlib.suppress(OSError):
                w.conn.close()
        self.workers = [None] * len(self.workers)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) ``pid`` has used, from ``/proc``; None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


def _kill(proc: Any) -> None:
    with contextlib.suppress(Exception):
        proc.kill()
    with contextlib.suppress(Exception):
        proc.join(1)
