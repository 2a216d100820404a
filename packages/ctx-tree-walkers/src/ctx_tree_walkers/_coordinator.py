"""The walker coordinator: one per server process, in the server's asyncio loop.

Scheduling runs on the event loop; every database call runs in a worker thread (a *lane*)
that owns its **own** ``Store`` connection on the same file (never the tool handlers'), so a
walker batch never blocks a tool call: SQLite's WAL lets the handlers read while a walker
writes, and a walker write transaction is one short batch.

The walkers that only touch the store (``filter``, ``staleness``, ``pruner``, and the capture
ingest the server adds) share the main lane and run one after another. Each walker that calls
a provider over the network (``embedding``, ``dedupe``, ``summarizer``) has a lane of its own
and runs beside the schedule, not in it: a slow or hung provider holds up only its own walker
(which skips its ticks while the run lasts), never the capture ingest or another walker
(docs/walkers.md#the-coordinator-in-the-server). On stop, a provider walker still waiting on its provider is given
:data:`STOP_GRACE_S`, then left to end on its own (its thread is a daemon; its lease expires).

Each walker (``filter``, ``staleness``, ``pruner``; ``embedding``, ``dedupe`` and
``summarizer`` when their provider is given) runs every ``walkers.<name>IntervalMs``
(``embeddingIdleMs`` for the indexer; 0 disables it in the server). Before each run the coordinator takes or renews the database
lease ``walker:<name>`` with a TTL of twice the interval; while one process holds it the others
skip that walker, so N servers sharing a store do the work once. A long run renews the lease
between batches and stops if it was lost. On shutdown the current batch finishes (each batch is
one transaction), the walker stops at its next batch boundary, and the leases are released so
another server takes over at its next tick.

A walker that raises is logged and retried at its next tick; it never stops the loop or the
other walkers. A store locked by another process past the busy timeout (``BusyError``) is
expected, not a fault: one warning per locked spell, no traceback (docs/walkers.md). The clock (``now_ms``) and the ``sleep`` function are injectable, so the schedule
is tested with a fake clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import ctx_tree_store
from ctx_tree_schema import Config
from ctx_tree_store import Store, StoreError

from ._common import KeepGoing, Yielder, record_run, walker_interval_ms
from ._dedupe import dedupe
from ._embedding import index_embeddings
from ._filter import filter_pending
from ._providers import EmbeddingProvider, SummarizerProvider
from ._pruner import prune
from ._staleness import mark_stale
from ._summarizer import summarize_subtrees

log = logging.getLogger(__name__)

WALKER_NAMES: tuple[str, ...] = (
    "filter",
    "staleness",
    "pruner",
    "embedding",
    "dedupe",
    "summarizer",
)
#: The walkers that need a provider (run only when one is given).
PROVIDER_WALKERS = {"embedding": "embedder", "dedupe": "embedder", "summarizer": "summarizer"}
#: First run after start-up: the filter sweeps leftovers at once (pending nodes of a crashed
#: server); the others wait a little so a cold start serves its first tool calls undisturbed.
FIRST_DELAY_MS = {
    "filter": 0,
    "staleness": 2_000,
    "pruner": 10_000,
    "embedding": 3_000,
    "dedupe": 20_000,
    "summarizer": 30_000,
}
LEASE_PREFIX = "walker:"
#: Seconds :meth:`Coordinator.stop` waits for a provider walker's run before leaving it.
STOP_GRACE_S = 3.0
MAIN_LANE = "main"


class Lane:
    """One worker thread (a daemon) with its own store connection: jobs run in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.store: Store | None = None
        self.open_failed = False
        self.was_deleted = False
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """Run ``fn(*args)`` on the lane; a future of the running loop gets its outcome."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not fut.done():
                (fut.set_result if ok else fut.set_exception)(value)

        def job() -> None:
            try:
                outcome: tuple[bool, Any] = (True, fn(*args))
            except BaseException as exc:  # handed to the awaiting coroutine
                outcome = (False, exc)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(settle, *outcome)

        self._jobs.put(job)
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._work, name=f"ctx-tree-walkers-{self.name}", daemon=True
            )
            self._thread.start()
        return fut

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def close(self) -> None:
        """End the thread after the jobs already queued."""
        self._jobs.put(None)


class Report(Protocol):
    stopped: bool

    def summary(self) -> str: ...


WalkerFn = Callable[..., Report]

WALKERS: dict[str, WalkerFn] = {
    "filter": filter_pending,
    "staleness": mark_stale,
    "pruner": prune,
    "embedding": index_embeddings,
    "dedupe": dedupe,
    "summarizer": summarize_subtrees,
}


def bind_providers(
    embedder: EmbeddingProvider | None, summarizer: SummarizerProvider | None
) -> dict[str, WalkerFn]:
    """The walker functions with their providers bound; those whose provider is None are left
    out (they have nothing to do)."""
    import functools

    given = {"embedder": embedder, "summarizer": summarizer}
    out: dict[str, WalkerFn] = {}
    for name, fn in WALKERS.items():
        role = PROVIDER_WALKERS.get(name)
        if role is None:
            out[name] = fn
        elif given[role] is not None:
            out[name] = functools.partial(fn, provider=given[role])
    return out


@dataclass(slots=True)
class WalkerState:
    """Per-walker bookkeeping, readable by tests and ``stats``."""

    interval_ms: int
    next_due_ms: int = 0
    runs: int = 0  # runs this process did (it held the lease)
    skipped: int = 0  # ticks where another process held the lease
    errors: int = 0
    busy_ticks: int = 0  # ticks skipped while its own last run still waited on its provider
    last_summary: str = ""
    last_error: str = ""
    run_times_ms: list[int] = field(default_factory=list)


def default_holder() -> str:
    """A lease holder id unique to this coordinator: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Coordinator:
    """Runs the walkers on their intervals for the store at ``store_file``.

    ``now_ms`` returns epoch ms; ``sleep(seconds)`` is awaited between ticks (default
    ``asyncio.sleep``); :meth:`stop` cuts any sleep short. ``open_store`` opens the worker thread's own
    connection (default ``Store.open``). ``walkers`` picks a subset of :data:`WALKER_NAMES`;
    ``embedder`` and ``summarizer`` are the providers of the ``embedding``/``dedupe`` and
    ``summarizer`` walkers, which do not run without theirs.
    """

    def __init__(
        self,
        store_file: str | os.PathLike[str],
        config: Config,
        *,
        now_ms: Callable[[], int] = ctx_tree_store.now_ms,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        holder: str | None = None,
        walkers: tuple[str, ...] = WALKER_NAMES,
        open_store: Callable[[str], Store] = Store.open,
        functions: dict[str, WalkerFn] | None = None,
        first_delay_ms: dict[str, int] | None = None,
        yield_ratio: float = 1.0,
        embedder: EmbeddingProvider | None = None,
        summarizer: SummarizerProvider | None = None,
    ) -> None:
        self.store_file = str(Path(store_file)) if str(store_file) != ":memory:" else ":memory:"
        self.config = config
        self.holder = holder or default_holder()
        self.yield_ratio = yield_ratio
        self._now = now_ms
        self._sleep = sleep or asyncio.sleep
        self._open_store = open_store
        self._functions = {**bind_providers(embedder, summarizer), **(functions or {})}
        delays = {**FIRST_DELAY_MS, **(first_delay_ms or {})}
        self.state: dict[str, WalkerState] = {}
        for name in walkers:
            if name in PROVIDER_WALKERS and name not in self._functions:
                continue  # no provider: nothing to do
            if name not in self._functions:
                raise ValueError(f"unknown walker {name!r}; one of {', '.join(WALKER_NAMES)}")
            interval = walker_interval_ms(config, name) if name in WALKER_NAMES else 1000
            if interval > 0:
                self.state[name] = WalkerState(
                    interval, next_due_ms=min(delays.get(name, 0), interval)
                )
        self._stop_flag = threading.Event()  # read by the worker thread between batches
        self._wake: asyncio.Event | None = None
        #: The main lane, and one per provider walker (see the module doc).
        self._lanes: dict[str, Lane] = {MAIN_LANE: Lane(MAIN_LANE)}
        for name in self.state:
            if name in PROVIDER_WALKERS:
                self._lanes[name] = Lane(name)
        self._background: dict[str, asyncio.Task[None]] = {}
        #: Ticks failed since another connection began holding the write lock (0: not locked).
        self._busy_ticks = 0
        #: Ticks failed since the store's disk filled up (0: not full).
        self._full_ticks = 0
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    # -- public ----------------------------------------------------------------------------
    @property
    def _store(self) -> Store | None:
        """The main lane's connection (None when closed)."""
        return self._lanes[MAIN_LANE].store

    def lane_of(self, name: str) -> str:
        """The lane walker ``name`` runs on: its own for a provider walker, else ``main``."""
        return name if name in self._lanes else MAIN_LANE

    @property
    def stopping(self) -> bool:
        return self._stop_flag.is_set()

    def start(self) -> asyncio.Task[None]:
        """Start :meth:`run` as a task of the running loop; returns the task."""
        self._task = asyncio.get_running_loop().create_task(self.run(), name="ctx-tree-walkers")
        return self._task

    async def run(self) -> None:
        """The schedule loop; returns after :meth:`stop` (or when no walker is enabled)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        start = self._now()
        for st in self.state.values():
            st.next_due_ms += start
        while self.state and not self.stopping:
            now = self._now()
            for name, st in self.state.items():
                if self.stopping:
                    break
                if now < st.next_due_ms:
                    continue
                if self.lane_of(name) == MAIN_LANE:
                    await self._run_walker(name, now)
                elif name in self._background and not self._background[name].done():
                    st.busy_ticks += 1  # its provider still answers the last run
                else:
                    self._background[name] = asyncio.ensure_future(self._run_walker(name, now))
                # Next run one interval after this one was due; never a burst to catch up.
                st.next_due_ms += st.interval_ms
                if st.next_due_ms <= now:
                    st.next_due_ms = now + st.interval_ms
            if self.stopping:
                break
            delay_ms = min(st.next_due_ms for st in self.state.values()) - self._now()
            if delay_ms > 0:
                await self._sleep_unless_stopped(delay_ms / 1000)
            else:
                await asyncio.sleep(0)

    def request_stop(self) -> None:
        """Ask the loop and the running walker to stop at the next batch boundary (no wait)."""
        self._stop_flag.set()
        if self._wake is not None:
            self._wake.set()

    async def stop(self) -> None:
        """Stop cleanly: the running batch commits, the walker stops at the batch boundary,
        leases are released and the worker's connection is closed. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.request_stop()
        if self._task is not None and self._task is not asyncio.current_task():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        running = [t for t in self._background.values() if not t.done()]
        if running:
            await asyncio.wait(running, timeout=STOP_GRACE_S)
        for name, lane in self._lanes.items():
            busy = name in self._background and not self._background[name].done()
            if busy:
                log.warning("walker %s still waits on its provider; left to end on its own", name)
            try:
                done = lane.submit(self._shutdown_in_thread, lane)
                if not busy:
                    await done
            finally:
                lane.close()

    async def run_walker_now(self, name: str) -> None:
        """Run one walker now (lease rules apply), e.g. from a test."""
        await self._run_walker(name, self._now())

    # -- internals -------------------------------------------------------------------------
    async def _sleep_unless_stopped(self, seconds: float) -> None:
        """Await the (injected) sleep, cut short by :meth:`request_stop`."""
        assert self._wake is not None
        sleeper = asyncio.ensure_future(self._sleep(seconds))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in (sleeper, waker):
                fut.cancel()
            await asyncio.gather(sleeper, waker, return_exceptions=True)

    async def _run_walker(self, name: str, now: int) -> None:
        st = self.state[name]
        lane = self._lanes[self.lane_of(name)]
        try:
            summary = await lane.submit(self._tick_in_thread, name, now)
        except Exception as exc:
            st.errors += 1
            st.last_error = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, ctx_tree_store.StoreFull):
                # a full disk: one line per full spell, as for a locked store
                if not self._full_ticks:
                    log.warning("walkers waiting: %s; retried each tick", exc)
                self._full_ticks += 1
                return
            if not ctx_tree_store.is_busy(exc):
                log.exception("walker %s failed (retried at its next tick)", name)
                return
            # expected while another process writes for long: one line per locked spell
            if not self._busy_ticks:
                log.warning(
                    "walkers waiting: another connection held the store's write lock past the "
                    "busy timeout (%s); retried each tick",
                    exc,
                )
            self._busy_ticks += 1
            return
        if self._busy_ticks:
            log.info(
                "walkers: the store's write lock is free again (after %d locked ticks)",
                self._busy_ticks,
            )
            self._busy_ticks = 0
        if self._full_ticks:
            log.info(
                "walkers: the store can be written again (after %d full ticks)", self._full_ticks
            )
            self._full_ticks = 0
        if summary is None:
            st.skipped += 1
            return
        st.runs += 1
        st.run_times_ms.append(now)
        st.last_summary = summary
        log.debug("walker %s: %s", name, summary)

    def _store_in_thread(self, lane: Lane) -> Store | None:
        """The lane's connection; None when there is no store file to work on.

        A store deleted while the server runs (``ctx-tree forget``) is closed here and reopened
        only once something else (the next tool call) made the file again.
        A store that cannot be opened (read-only, full disk) is logged once and skipped.
        """
        if lane.store is not None and lane.store.replaced():
            log.info("walkers: the store %s was deleted or replaced; closing it", self.store_file)
            with contextlib.suppress(Exception):
                lane.store.close()
            lane.store = None
            lane.was_deleted = True
        if lane.store is None:
            if lane.was_deleted and not os.path.exists(self.store_file):
                return None
            try:
                lane.store = self._open_store(self.store_file)
            except StoreError as exc:
                if not lane.open_failed:
                    log.warning("walkers paused: %s", exc)
                lane.open_failed = True
                return None
            lane.open_failed = False
        return lane.store

    def _tick_in_thread(self, name: str, now: int) -> str | None:
        if self.stopping:
            return None
        store = self._store_in_thread(self._lanes[self.lane_of(name)])
        if store is None:
            return None
        st = self.state[name]
        lease = LEASE_PREFIX + name
        ttl = 2 * st.interval_ms
        if not store.acquire_lease(lease, self.holder, ttl, at=now):
            return None
        renewed = [now]
        pause = Yielder(self.yield_ratio)

        def keep_going() -> bool:
            pause()
            if self.stopping:
                return False
            t = self._now()
            if t - renewed[0] >= st.interval_ms // 2:
                renewed[0] = t
                if not store.acquire_lease(lease, self.holder, ttl, at=t):
                    log.warning("walker %s lost its lease mid-run; stopping this run", name)
                    return False
            return True

        fn = self._functions[name]
        kg: KeepGoing = keep_going
        report = fn(store, self.config, now_ms=now, keep_going=kg)
        record_run(store, name, now, self._now(), report)
        return report.summary()

    def _shutdown_in_thread(self, lane: Lane) -> None:
        store = lane.store
        if store is None:
            return
        try:
            for name in self.state:
                if self.lane_of(name) == lane.name:
                    with contextlib.suppress(Exception):
                        store.release_lease(LEASE_PREFIX + name, self.holder)
        finally:
            store.close()
            lane.store = None
