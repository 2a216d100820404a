"""Small pieces shared by the walkers: the batch checkpoint type, config accessors and the
record of runs that changed something."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from ctx_tree_schema import Config
from ctx_tree_store import Store

log = logging.getLogger(__name__)

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


def walker_interval_ms(config: Config, name: str) -> int:
    """The configured interval of walker ``name`` (``filter``, ``staleness``, ``pruner``,
    ``embedding``, ``dedupe``, ``summarizer``)."""
    walkers = config.data["walkers"]
    return {
        "filter": walkers["filterIntervalMs"],
        "staleness": walkers["stalenessIntervalMs"],
        "pruner": walkers["prunerIntervalMs"],
        "embedding": walkers["embeddingIdleMs"],
        "dedupe": walkers["dedupeIntervalMs"],
        "summarizer": walkers["summarizerIntervalMs"],
    }[name]


#: Report fields that count what a walker looked at rather than what it changed.
_NOT_CHANGES = frozenset(
    {"checked", "skipped", "unreadable", "kept_for_children", "candidates", "batches"}
)


def record_run(store: Store, name: str, started_ms: int, finished_ms: int, report: Any) -> None:
    """Append a run of walker ``name`` to the store's ``walker_runs`` when it changed something
    (a positive count in its report other than what it only looked at); fails open: a store
    error is logged, never raised (the walker's own work is already committed)."""
    changes = {
        f.name: value
        for f in dataclasses.fields(report)
        if f.name not in _NOT_CHANGES
        and isinstance(value := getattr(report, f.name), int)
        and not isinstance(value, bool)
        and value > 0
    }
    if not changes:
        return
    try:
        store.record_walker_run(name, started_ms, finished_ms, report.summary(), changes)
    except Exception:
        log.warning("walker %s: could not record its run", name, exc_info=True)
