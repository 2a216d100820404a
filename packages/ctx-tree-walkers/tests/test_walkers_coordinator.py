"""The coordinator's schedule (fake clock), lease sharing, resilience and clean shutdown."""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
from pathlib import Path

import pytest
from ctx_tree_store import Store
from ctx_tree_walkers import Coordinator, FilterReport, filter_pending
from walkers_testlib import T0, Timeline, add_pending, make_config

BIG = "a real answer with enough bytes to be kept by the filter walker\n" * 2


def coordinator(store_file, timeline: Timeline, config=None, **kw) -> Coordinator:
    return Coordinator(
        store_file,
        config or make_config(),
        now_ms=timeline.now,
        sleep=timeline.sleep,
        **kw,
    )


def run(coro):
    return asyncio.run(coro)


def test_schedule_follows_the_intervals(store_file) -> None:
    cfg = make_config(
        walkers={"filterIntervalMs": 1000, "stalenessIntervalMs": 30000, "prunerIntervalMs": 300000}
    )

    async def main():
        tl = Timeline()
        c = coordinator(store_file, tl, cfg)
        task = c.start()
        await tl.advance(600_000, parties=1)
        await c.stop()
        await task
        return c

    c = run(main())
    f, s, p = (c.state[n] for n in ("filter", "staleness", "pruner"))
    assert f.run_times_ms[:3] == [T0, T0 + 1000, T0 + 2000]  # sweep at start, then every second
    assert f.runs == 601
    assert s.run_times_ms[:3] == [T0 + 2000, T0 + 32000, T0 + 62000]
    assert s.runs == 20
    assert p.run_times_ms == [T0 + 10_000, T0 + 310_000]
    assert all(st.errors == 0 and st.skipped == 0 for st in c.state.values())
    assert s.last_summary == "checked 0 file roots: none changed"


def test_zero_interval_disables_a_walker_and_a_jump_does_not_burst(store_file) -> None:
    cfg = make_config(walkers={"filterIntervalMs": 0, "stalenessIntervalMs": 1000})

    async def main():
        tl = Timeline()
        c = coordinator(store_file, tl, cfg, walkers=("filter", "staleness"))
        task = c.start()
        await tl.advance(5_000, parties=1)
        tl.jump(3_600_000)  # suspended for an hour: one catch-up run, not 3,600
        await tl.advance(1_000, parties=1)
        await c.stop()
        await task
        return c

    c = run(main())
    assert "filter" not in c.state
    times = c.state["staleness"].run_times_ms
    assert times[:5] == [T0 + 1000 * i for i in range(1, 6)]
    assert times[5:] == [T0 + 3_605_000, T0 + 3_606_000]


def test_three_coordinators_share_one_run_per_interval(store_file) -> None:
    """Three servers on one store: the lease makes exactly one run per filter interval,
    and when the holder shuts down another takes over at its next tick."""
    cfg = make_config(walkers={"filterIntervalMs": 1000})
    Store.open(store_file).close()

    async def main():
        tl = Timeline()
        cs = [coordinator(store_file, tl, cfg, walkers=("filter",)) for _ in range(3)]
        tasks = [c.start() for c in cs]
        await tl.advance(10_000, parties=3)
        holder = max(cs, key=lambda c: c.state["filter"].runs)
        await holder.stop()
        await tl.advance(10_000, parties=2)
        for c in cs:
            await c.stop()
        await asyncio.gather(*tasks)
        return cs, holder

    cs, holder = run(main())
    times = sorted(t for c in cs for t in c.state["filter"].run_times_ms)
    # one run per interval over the first 10 s (t0 .. t0+10 s) ...
    assert times[:11] == [T0 + 1000 * i for i in range(11)]
    assert holder.state["filter"].runs == 11
    # the other two skipped each of those 11 ticks, then one survivor the next 10
    assert sum(c.state["filter"].skipped for c in cs) == 2 * 11 + 10
    # ... and after the holder left, a survivor ran every interval too (no gap, no doubles)
    assert len(times) == len(set(times))
    assert times[11:] == [T0 + 1000 * i for i in range(11, 21)]
    survivors = [c for c in cs if c is not holder]
    assert sorted(c.state["filter"].runs for c in survivors) == [0, 10]


def test_a_raising_walker_is_retried_and_never_stops_the_others(store_file, caplog) -> None:
    cfg = make_config(walkers={"filterIntervalMs": 1000, "stalenessIntervalMs": 1000})
    calls = {"n": 0}

    def flaky_filter(store, config, *, now_ms, keep_going):
        calls["n"] += 1
        if calls["n"] <= 3:
            raise RuntimeError("disk on fire")
        return filter_pending(store, config, now_ms=now_ms, keep_going=keep_going)

    def always_broken(store, config, *, now_ms, keep_going):
        raise OSError("nope")

    async def main():
        tl = Timeline()
        c = coordinator(
            store_file,
            tl,
            cfg,
            walkers=("filter", "staleness", "pruner"),
            functions={"filter": flaky_filter, "pruner": always_broken},
            first_delay_ms={"pruner": 0},
        )
        task = c.start()
        await tl.advance(10_000, parties=1)
        await c.stop()
        await task
        return c

    with caplog.at_level(logging.ERROR, logger="ctx_tree_walkers"):
        c = run(main())
    f, s, p = (c.state[n] for n in ("filter", "staleness", "pruner"))
    assert f.errors == 3 and f.runs == 8 and f.last_summary == "nothing pending"
    assert s.errors == 0 and s.runs == 10
    assert p.errors == 1 and p.last_error == "OSError: nope"
    assert "walker filter failed" in caplog.text


LOCKER = """
import sys, time, apsw
con = apsw.Connection(sys.argv[1])
for line in sys.stdin:  # "lock" / "unlock", answered "ok" once done
    con.execute("BEGIN IMMEDIATE" if line.strip() == "lock" else "COMMIT")
    print("ok", flush=True)
"""


def test_a_store_locked_by_another_process_is_one_warning_per_episode(store_file, caplog) -> None:
    """Another process holds the write lock past the busy timeout: each tick fails with
    ``BusyError``, which is expected, not a bug: one WARNING line per locked spell, no
    traceback, no ERROR; the walker runs again once the lock is released."""
    import subprocess
    import sys

    Store.open(store_file).close()
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(store_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def tell(word: str) -> None:
        locker.stdin.write(word + "\n")
        locker.stdin.flush()
        assert locker.stdout.readline().strip() == "ok"

    def open_store(path):
        store = Store.open(path)
        store.con.set_busy_timeout(20)  # ms: the test does not wait the real 30 s
        return store

    cfg = make_config(walkers={"filterIntervalMs": 1000, "stalenessIntervalMs": 1000})

    async def main():
        tl = Timeline()
        c = coordinator(store_file, tl, cfg, walkers=("filter", "staleness"), open_store=open_store)
        task = c.start()
        await tl.advance(1_500, parties=1)  # one good tick first: the connection is open
        runs = c.state["filter"].runs
        tell("lock")
        await tl.advance(5_000, parties=1)  # five locked ticks of each walker
        tell("unlock")
        await tl.advance(2_000, parties=1)
        assert c.state["filter"].runs > runs
        tell("lock")
        await tl.advance(3_000, parties=1)  # a second locked spell
        tell("unlock")
        await tl.advance(1_000, parties=1)
        await c.stop()
        await task
        return c

    try:
        with caplog.at_level(logging.DEBUG, logger="ctx_tree_walkers"):
            c = run(main())
    finally:
        locker.stdin.close()
        locker.wait(timeout=10)
    f = c.state["filter"]
    assert f.errors >= 8 and f.last_error == "BusyError: database is locked"
    walkers = [r for r in caplog.records if r.name.startswith("ctx_tree_walkers")]
    assert [r for r in walkers if r.levelno >= logging.ERROR] == []
    assert all(r.exc_info is None for r in walkers)
    warnings = [r.getMessage() for r in walkers if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("locked" in w for w in warnings), warnings


def test_store_that_cannot_open_is_retried(tmp_path, caplog) -> None:
    """A store under a file (``CTX_TREE_HOME`` naming a file) cannot be made: the store calls
    it unwritable, so each tick is skipped, one warning says why, and the next tick tries
    again; nothing counts as a walker error."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cfg = make_config(walkers={"filterIntervalMs": 1000})

    async def main():
        tl = Timeline()
        c = coordinator(blocker / "store.db", tl, cfg, walkers=("filter",))
        task = c.start()
        await tl.advance(3_000, parties=1)
        await c.stop()
        await task
        return c

    with caplog.at_level(logging.WARNING, logger="ctx_tree_walkers"):
        c = run(main())
    f = c.state["filter"]
    assert (f.skipped, f.errors, f.runs) == (4, 0, 0)
    paused = [r.getMessage() for r in caplog.records if "walkers paused" in r.getMessage()]
    assert len(paused) == 1 and "Not a directory" in paused[0], paused


def test_stop_mid_run_commits_whole_batches_and_releases_the_lease(store_file) -> None:
    with Store.open(store_file) as s:
        ids = [add_pending(s, f"{BIG}{i}", source=f"grep://{i}") for i in range(1000)]
    in_batch = threading.Event()
    release = threading.Event()
    reports: list[FilterReport] = []

    def slow_filter(store, config, *, now_ms, keep_going):
        batches = {"n": 0}

        def kg() -> bool:
            batches["n"] += 1
            if batches["n"] == 3:
                in_batch.set()  # the server is told to stop while batch 3 is done ...
                release.wait(5)  # ... and checks the flag at the batch boundary
            return keep_going()

        reports.append(filter_pending(store, config, now_ms=now_ms, keep_going=kg, batch_size=100))
        return reports[-1]

    async def main():
        tl = Timeline()
        c = coordinator(
            store_file, tl, walkers=("filter",), functions={"filter": slow_filter}, holder="A"
        )
        task = c.start()
        await asyncio.get_running_loop().run_in_executor(None, in_batch.wait, 5)
        stopping = asyncio.ensure_future(c.stop())
        await asyncio.sleep(0.05)
        release.set()
        await stopping
        await task
        return c

    c = run(main())
    assert reports[0].stopped and reports[0].promoted == 300
    with Store.open(store_file) as s:
        statuses = [s.get(i).status.value for i in ids]
        assert statuses == ["live"] * 300 + ["pending"] * 700  # nothing half-written
        # the lease was released: another holder gets it at once
        assert s.acquire_lease("walker:filter", "B", 1000, at=T0)
    assert c.state["filter"].runs == 1


def test_lost_lease_stops_a_long_run(store_file) -> None:
    with Store.open(store_file) as s:
        for i in range(300):
            add_pending(s, f"{BIG}{i}", source=f"grep://{i}")
    clock = {"t": T0}
    cfg = make_config(walkers={"filterIntervalMs": 1000})

    def stealing_filter(store, config, *, now_ms, keep_going):
        def kg() -> bool:
            clock["t"] += 2500  # the batch took longer than the lease's TTL ...
            with Store.open(store_file) as other:  # ... and another server took it over
                assert other.acquire_lease("walker:filter", "thief", 2000, at=clock["t"])
            return keep_going()

        return filter_pending(store, config, now_ms=now_ms, keep_going=kg, batch_size=100)

    async def main():
        c = Coordinator(
            store_file,
            cfg,
            now_ms=lambda: clock["t"],
            walkers=("filter",),
            functions={"filter": stealing_filter},
        )
        await c.run_walker_now("filter")
        await c.stop()
        return c

    c = run(main())
    assert c.state["filter"].last_summary.endswith("stopped early")
    assert c.state["filter"].last_summary.startswith("100 promoted")


def test_unknown_walker_rejected(store_file) -> None:
    with pytest.raises(ValueError, match="unknown walker"):
        Coordinator(store_file, make_config(), walkers=("nosuch",))


def test_real_sleep_is_cut_short_by_stop(store_file) -> None:
    """With the default clock and sleep, stop() returns at once even mid-interval."""
    cfg = make_config(walkers={"stalenessIntervalMs": 60_000})

    async def main():
        c = Coordinator(store_file, cfg, walkers=("staleness",), first_delay_ms={"staleness": 0})
        task = c.start()
        await asyncio.sleep(0.2)
        loop = asyncio.get_running_loop()
        t = loop.time()
        await c.stop()
        await task
        return c, loop.time() - t

    c, took = run(main())
    assert c.state["staleness"].runs == 1
    assert took < 1.0


def test_a_store_deleted_under_the_walkers_is_closed_and_not_recreated(store_file) -> None:
    cfg = make_config(walkers={"filterIntervalMs": 1000})
    path = Path(store_file)
    seen: dict[str, int] = {}

    async def main():
        tl = Timeline()
        c = coordinator(store_file, tl, cfg, walkers=("filter",))
        task = c.start()
        await tl.advance(1_000, parties=1)
        seen["before"] = c.state["filter"].runs
        shutil.rmtree(path.parent)  # ctx-tree forget while the server runs
        await tl.advance(3_000, parties=1)
        seen["deleted"] = c.state["filter"].runs
        seen["recreated"] = int(path.exists())
        Store.open(path).close()  # the server's next call makes a new store
        await tl.advance(2_000, parties=1)
        await c.stop()
        await task
        return c

    c = run(main())
    assert seen["before"] >= 1 and seen["deleted"] == seen["before"] and seen["recreated"] == 0
    assert c.state["filter"].runs > seen["before"] and c.state["filter"].errors == 0


def test_a_full_store_is_one_warning_per_spell_not_a_traceback_per_tick(store_file, caplog):
    """The store's disk is full (SQLite's own limit on the file's pages: every write that
    grows it fails with SQLITE_FULL, i.e. ``StoreFull``): one WARNING per full spell, no
    traceback, no ERROR, and one line when it can be written again."""
    Store.open(store_file).close()
    limit: dict[str, Store] = {}

    def open_store(path):
        store = Store.open(path)
        limit["store"] = store
        return store

    def grower(store, config, *, now_ms, keep_going):
        add_pending(store, f"{now_ms} " + "output line\n" * 20000)  # grows the file
        return FilterReport()

    async def main():
        tl = Timeline()
        c = coordinator(
            store_file, tl, walkers=("grower",), functions={"grower": grower}, open_store=open_store
        )
        task = c.start()
        await tl.advance(1_500, parties=1)  # one good tick: the connection is open
        con = limit["store"].con
        con.execute(f"PRAGMA max_page_count = {con.execute('PRAGMA page_count').get}")
        await tl.advance(5_000, parties=1)  # five full ticks
        con.execute("PRAGMA max_page_count = 4294967294")  # space freed
        await tl.advance(2_000, parties=1)
        await c.stop()
        await task
        return c

    with caplog.at_level(logging.DEBUG, logger="ctx_tree_walkers"):
        c = run(main())
    g = c.state["grower"]
    assert g.errors >= 4 and g.last_error.startswith("StoreFull")
    walkers = [r for r in caplog.records if r.name.startswith("ctx_tree_walkers")]
    assert [r for r in walkers if r.levelno >= logging.ERROR] == []  # before: one per tick
    assert all(r.exc_info is None for r in walkers)
    warnings = [r.getMessage() for r in walkers if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "disk full" in warnings[0]
    assert any("can be written again" in r.getMessage() for r in walkers)
