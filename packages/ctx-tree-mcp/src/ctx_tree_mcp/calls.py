"""The tool calls of one server process as the project index sees them (:class:`CallsClock`,
``App.calls``): the index writes only between calls and after a quiet spell (docs/index.md).

Two kinds of call count: ctx-tree's own tool calls (``run_tool`` marks each with
:meth:`CallsClock.start`, :meth:`CallsClock.end`) and the host's own calls that ctx-tree routes (the routing hook's
decision holds the clock with :meth:`CallsClock.hold` until the routed command's answer is
out, :meth:`CallsClock.release`, or a deadline: a command left alone ends unseen;
docs/routing.md).
"""

from __future__ import annotations

import math
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Protocol

    class SharedDouble(Protocol):
        """A ``multiprocessing`` shared double (``Value("d", …)``): what the index's worker
        processes read."""

        value: float


class CallsClock:
    """How many tool calls run now, the host's calls held (:meth:`hold`, by key, each until a
    ``time.monotonic()`` deadline), when the last one ended (``time.monotonic()`` seconds),
    and, once the index gives it one, a :class:`SharedDouble` its worker processes pause by,
    told without a poll: ``inf`` while a call runs, else the latest of the last end and the
    holds' deadlines. ``run_tool`` calls :meth:`start` and, whatever happens, :meth:`end`
    (plain calls: a context manager would cost more than the rest of this). Only the index
    reads it; the event loop and the routing threads write it."""

    def __init__(self) -> None:
        self.running = 0
        self.last_end = 0.0
        self._shared: SharedDouble | None = None
        self._holds: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def shared(self) -> SharedDouble | None:
        """The index workers' shared double, once the index gives one (set it to publish)."""
        return self._shared

    @shared.setter
    def shared(self, value: SharedDouble | None) -> None:
        with self._lock:
            self._shared = value
            self._publish()

    def start(self) -> None:
        """A tool call begins."""
        with self._lock:
            self.running += 1
            self._publish()

    def end(self) -> None:
        """A tool call ended (each :meth:`start` has one)."""
        with self._lock:
            self.running -= 1
            self.last_end = time.monotonic()
            self._publish()

    def hold(self, key: str, seconds: float) -> None:
        """A host's call ``key`` runs for at most ``seconds`` more (it ends then, or at
        :meth:`release`)."""
        with self._lock:
            self._holds[key] = time.monotonic() + seconds
            self._publish()

    def release(self, key: str) -> None:
        """The host's call ``key`` ended now (a key not held is ignored)."""
        with self._lock:
            if self._holds.pop(key, None) is not None:
                self.last_end = max(self.last_end, time.monotonic())
                self._publish()

    def busy(self) -> bool:
        """True while a tool call runs or a host's call is held."""
        if self.running > 0:
            return True
        with self._lock:
            return self._expire() > 0

    def idle_for(self) -> float:
        """Seconds since the last call ended (since the clock's epoch before any); negative
        while a host's call is held."""
        with self._lock:
            self._expire()
            until = max(self._holds.values(), default=self.last_end)
            return time.monotonic() - max(self.last_end, until)

    def _expire(self) -> int:
        """Drop the holds past their deadline (each ended then); returns how many remain."""
        now = time.monotonic()
        for key, until in list(self._holds.items()):
            if until <= now:
                del self._holds[key]
                self.last_end = max(self.last_end, until)
        return len(self._holds)

    def _publish(self) -> None:
        shared = self._shared
        if shared is not None:
            shared.value = (
                math.inf
                if self.running
                else max(self.last_end, max(self._holds.values(), default=0.0))
            )
