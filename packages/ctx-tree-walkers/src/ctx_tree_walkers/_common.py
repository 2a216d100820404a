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
