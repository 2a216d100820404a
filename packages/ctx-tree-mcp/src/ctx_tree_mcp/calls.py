"""The tool calls of one App as the project index sees them (:class:`CallsClock`,
``App.calls``): the index writes only between calls and after a quiet spell (docs/index.md).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class SharedDouble(Protocol):
    """A ``multiprocessing`` shared double (``Value("d", …)``): what the index's worker
    processes read."""

    value: float


class CallsClock:
    """How many tool calls run now (``run_tool`` marks each with :meth:`call`), when the last
    one ended (``time.monotonic()`` seconds), and, once the index gives it one, a
    :class:`SharedDouble` its worker processes pause by, told without a poll: ``inf`` while a
    call runs, else when the last one ended. Only the index reads it."""

    def __init__(self) -> None:
        self.running = 0
        self.last_end = 0.0
        self.shared: SharedDouble | None = None

    @contextmanager
    def call(self) -> Iterator[None]:
        """Mark one tool call for as long as the ``with`` block runs."""
        self.running += 1
        shared = self.shared
        if shared is not None:
            shared.value = math.inf
        try:
            yield
        finally:
            self.running -= 1
            self.last_end = time.monotonic()
            if shared is not None and not self.running:
                shared.value = self.last_end

    def busy(self) -> bool:
        """True while a tool call runs."""
        return self.running > 0

    def idle_for(self) -> float:
        """Seconds since the last tool call ended (since the clock's epoch before any)."""
        return time.monotonic() - self.last_end
