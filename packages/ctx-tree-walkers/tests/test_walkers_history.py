"""Walker runs that change something are recorded in the store (the inspector reads them)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ctx_tree_store import Store, browse
from ctx_tree_walkers import Coordinator, FilterReport, record_run, run_once
from walkers_testlib import Timeline, add_pending, make_config

BIG = "src/app.py:10:    handle_request(session, payload)  # the real match\n" * 2


def test_run_once_records_only_runs_that_changed_something(store: Store) -> None:
    add_pending(store, BIG, source="grep://1")
    add_pending(store, "", source="grep://2")
    run_once(store, make_config(), "all")
    runs = browse.walker_runs(store)
    assert [(r.walker, r.changes) for r in runs] == [("filter", {"promoted": 2, "too_small": 1})]
    assert runs[0].status_counts == {"live": 2}
    assert runs[0].summary.startswith("2 promoted (1 ranked low")
    assert runs[0].started_at <= runs[0].finished_at
    run_once(store, make_config(), "all")  # nothing pending, nothing stale: no new record
    assert len(browse.walker_runs(store)) == 1


def test_the_coordinator_records_its_runs(store_file: Path) -> None:
    with Store.open(store_file) as s:
        add_pending(s, BIG, source="grep://1")
    clock = Timeline()
    coord = Coordinator(store_file, make_config(), now_ms=clock.now, walkers=("filter",))

    async def go() -> None:
        await coord.run_walker_now("filter")
        await coord.stop()

    asyncio.run(go())
    with Store.open(store_file) as s:
        (run,) = browse.walker_runs(s)
    assert (run.walker, run.changes, run.started_at) == ("filter", {"promoted": 1}, clock.now())


def test_recording_fails_open_on_a_read_only_store(store: Store, store_file: Path) -> None:
    with Store.open_readonly(store_file) as ro:
        record_run(ro, "filter", 1, 2, FilterReport(promoted=3))  # logs, does not raise
    assert browse.walker_runs(store) == []
