"""Small pieces shared by the walkers: the batch checkpoint type and config accessors."""

from __future__ import annotations

import time
from collections.abc import Callable

from ctx_tree_schema import Config

#: Called by a walker between two batches (each batch is one transaction). Returns False when
#: the walker must stop now (shutdown, or its lease was lost); the work done so far is committed.
KeepGoing = Callable[[], bool]

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


def always() -> bool:
    """The default :data:`KeepGoing`: never stop early."""
    return True


class Yielder:
    """Between batches, sleep about as long as the last batch held the database (at least
    ``min_s``, at most ``max_s``), so the walker uses at most about half of the write time.

    SQLite's busy handler polls: a writer that commits and begins again at once can starve the
    tool handlers' connection until its busy timeout runs out ("database is locked"). The pause
    leaves them a window at every batch boundary.
    """

    def __init__(self, ratio: float = 1.0, min_s: float = 0.002, max_s: float = 0.05) -> None:
        self.ratio, self.min_s, self.max_s = ratio, min_s, max_s
        self._mark = time.monotonic()

    def __call__(self) -> None:
        busy = time.monotonic() - self._mark
        if self.ratio > 0:
            time.sleep(min(max(busy * self.ratio, self.min_s), self.max_s))
        self._mark = time.monotonic()


def polite(keep_going: KeepGoing = always, ratio: float = 1.0) -> KeepGoing:
    """``keep_going`` preceded by a :class:`Yielder` pause."""
    pause = Yielder(ratio)

    def check() -> bool:
        pause()
        return keep_going()

    return check


def wall_ms() -> int:
    """Current wall time in epoch milliseconds (the default clock)."""
    return time.time_ns() // 1_000_000


def walker_interval_ms(config: Config, name: str) -> int:
    """The configured interval of walker ``name`` (``filter``, ``staleness``, ``pruner``)."""
    key = {
        "filter": "filterIntervalMs",
        "staleness": "stalenessIntervalMs",
        "pruner": "prunerIntervalMs",
    }[name]
    return int(config.get("walkers", key))
