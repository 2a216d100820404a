"""What the store holds and what it saved: node counts by kind and status, the file count, and
the usage counters (totals and per tool and UTC day, read by ``stats`` and the inspector)."""

from __future__ import annotations

import time

from . import _sql
from ._conn import Db
from ._rows import now_ms


def bump(db: Db, **counters: int) -> None:
    """Add to named usage counters (e.g. ``tokens_served=120``)."""
    with db.transaction() as con:
        for name, value in counters.items():
            con.execute(_sql.BUMP_COUNTER, (name, int(value)))


def record_usage(db: Db, usage: dict[tuple[str, str], int], *, at: int | None = None) -> None:
    """Add ``{(tool, counter name): value}`` to the usage counters, in one transaction: the
    totals (:func:`counters`) and the rows of the UTC day of ``at`` (epoch ms, default now)
    per tool (``usage_daily``, read by the inspector's savings view)."""
    if not usage:
        return
    day = time.strftime("%Y-%m-%d", time.gmtime((at if at is not None else now_ms()) / 1000))
    totals: dict[str, int] = {}
    for (_tool, name), value in usage.items():
        totals[name] = totals.get(name, 0) + int(value)
    with db.transaction() as con:
        for name, value in totals.items():
            con.execute(_sql.BUMP_COUNTER, (name, value))
        for (tool, name), value in usage.items():
            con.execute(_sql.BUMP_USAGE_DAILY, (day, tool, name, int(value)))


def counters(db: Db) -> dict[str, int]:
    """Usage counters written with :func:`bump` and :func:`record_usage`."""
    return dict(db.query(_sql.COUNTERS))


def counts(db: Db) -> dict[tuple[str, str], tuple[int, int]]:
    """``{(kind, status): (node count, content characters)}``."""
    return {(k, s): (c, b or 0) for k, s, c, b in db.query(_sql.COUNTS)}


def file_root_count(db: Db) -> int:
    """How many files the store holds (live, stale or pending file roots)."""
    return int(db.query(_sql.FILE_ROOT_COUNT)[0][0])
