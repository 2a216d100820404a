"""The tool calls of one App as the project index sees them (:class:`CallsClock`,
``App.calls``): the index writes only between calls and after a quiet spell (docs/index.md).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Protocol

    class SharedDouble(Protocol):
        """A ``multiprocessing`` shared double (``Value("d", …)``): what the index's worker
        processes read."""

        value: float


class CallsClock:
    """How many tool calls run now, when the last one ended (``time.monotonic()`` seconds), and, once the index gives it one, a
    :class:`SharedDouble` its worker processes pause by, told without a poll: ``inf`` while a
    call runs, else when the last one ended. ``run_tool`` calls :meth:`start` and, whatever
    happens, :meth:`end` (plain calls: a context manager would cost more than the rest of
    this). Only the index reads it."""

    def __init__(self) -> None:
        self.running = 0
        self.last_end = 0.0
        self.shared: SharedDouble | None = None

    def start(self) -> None:
        """A tool call begins."""
        self.running += 1
        if self.shared is not None:
            self.shared.value = math.inf

    def end(self) -> None:
        """A tool call ended (each :meth:`start` has one)."""
        self.running -= 1
        self.last_end = time.monotonic()
        if self.shared is not None and not self.running:
            self.shared.value = self.last_end

    def busy(self) -> bool:
        """True while a tool call runs."""
        return self.running > 0

    def idle_for(self) -> float:
        """Seconds since the last tool call ended (since the clock's epoch before any)."""
        return time.monotonic() - self.last_end
