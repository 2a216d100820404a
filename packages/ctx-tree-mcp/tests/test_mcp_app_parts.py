"""App's parts: the view cache keeps the last file views served, dropping the least recently
used; the usage counters add up per tool and are handed over whole, once; the store handle
opens the store on first use, stands in for a damaged file from memory and tells the views
whenever the store is swapped; the recorder makes its session node once per store and
cuts captures at capture.maxBytes; the backlog counts are reused per model for their ttl;
the calls clock reads inf while any call runs, then when the last one ended."""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, UsageCounters
from ctx_tree_mcp.caches import ViewCache
from ctx_tree_mcp.recorder import Recorder
from ctx_tree_mcp.store_handle import StoreHandle
from ctx_tree_store import Store, StoreUnwritable


@dataclass
class _Root:
    id: str


@dataclass
class _View:
    root: _Root


def test_least_recently_used_view_goes_first():
    cache = ViewCache(size=2)
    a, b, c = (_View(_Root(name)) for name in "abc")
    assert cache.remember(a) is a
    cache.remember(b)
    assert cache.recall("a") is a  # a is now the most recent
    cache.remember(c)  # over the size: b, the least recently used, goes
    assert cache.recall("b") is None
    assert cache.recall("a") is a and cache.recall("c") is c


def test_clear_forgets_every_view():
    cache = ViewCache()
    cache.remember(_View(_Root("a")))
    cache.clear()
    assert cache.recall("a") is None


def test_usage_counters_add_up_and_are_taken_once():
    counters = UsageCounters(flush_every=3)
    assert counters.add("read", tokens_served=10, reads=1) is False
    assert counters.add("read", tokens_served=5, reads=1) is False
    assert counters.add("grep", tokens_served=7, greps=1) is True  # the third call: due
    assert counters.take() == {
        ("read", "tokens_served"): 15,
        ("read", "reads"): 2,
        ("grep", "tokens_served"): 7,
        ("grep", "greps"): 1,
    }
    assert counters.take() == {}
    assert counters.add("read", reads=1) is False  # the count of calls started again


def test_usage_counters_lose_nothing_across_threads():
    counters = UsageCounters(flush_every=10**9)
    taken: list[dict[tuple[str, str], int]] = []

    def work() -> None:
        for _ in range(1000):
            counters.add("read", reads=1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for _ in range(50):
        taken.append(counters.take())
    for t in threads:
        t.join()
    taken.append(counters.take())
    assert sum(t.get(("read", "reads"), 0) for t in taken) == 4000


def test_the_store_handle_opens_on_first_use_and_again_after_close(root: Path, tmp_path: Path):
    handle = StoreHandle(root, tmp_path / "home")
    assert not handle.opened and not handle.path.exists()
    store = handle.store
    assert handle.opened and handle.store is store and handle.path.exists()
    handle.close()
    assert not handle.opened
    assert handle.store is not store and handle.store.persistent
    handle.close()


def test_the_store_handle_tells_the_views_when_the_store_is_opened_anew(root: Path, tmp_path: Path):
    swaps: list[str] = []
    handle = StoreHandle(root, tmp_path / "home", on_swap=lambda: swaps.append("swap"))
    handle.check()  # nothing opened yet: nothing to do
    handle.store.ensure_session("s", str(root))
    handle.check()  # the same file: nothing to do
    assert swaps == []
    shutil.rmtree(handle.path.parent)  # what ctx-tree forget does
    handle.check()
    assert swaps == ["swap"] and handle.path.exists() and handle.not_storing is None
    handle.close()


def test_the_store_handle_answers_from_memory_for_a_damaged_file(root: Path, tmp_path: Path):
    home = tmp_path / "home"
    first = StoreHandle(root, home)
    first.store
    first.close()
    first.path.write_bytes(b"garbage garbage garbage " * 100)
    swaps: list[str] = []
    handle = StoreHandle(root, home, on_swap=lambda: swaps.append("swap"))
    assert not handle.store.persistent
    line = handle.not_storing
    assert line is not None and "damaged" in line and "ctx-tree forget" in line
    assert handle.answer("text") == f"text\n{line}\n" == handle.answer("text\n")
    with pytest.raises(StoreUnwritable, match="the note was not saved"):
        handle.require_persistent("the note")
    handle.path.unlink()
    handle.check()
    assert swaps == ["swap"] and handle.not_storing is None and not handle.opened
    assert handle.store.persistent and handle.answer("text") == "text"
    handle.require_persistent("the note")
    handle.close()


def test_apps_over_a_store_or_of_another_session_share_it_and_leave_it_open(
    root: Path, tmp_path: Path
):
    home = tmp_path / "home"
    app = App(root, home=home)
    sibling = app.with_session("other")
    assert sibling.stores is app.stores and sibling.views is app.views
    store = sibling.store  # opened through the shared handle: the owner's too
    assert app.stores.opened and app.store is store
    sibling.close()
    assert app.stores.opened and app.store is store
    app.close()
    assert not app.stores.opened
    with Store.open(StoreHandle(root, home).path) as own:
        config = App(root, home=home).config
        over = App.over(root, own, config, home)
        assert over.stores.opened and over.store is own and over.config is config
        over.close()
        assert own.get("no such node") is None  # still open


def test_the_recorder_makes_its_session_node_once_and_captures_under_it(root: Path, tmp_path: Path):
    from ctx_tree_schema import NodeKind

    handle = StoreHandle(root, tmp_path / "home")
    recorder = Recorder(handle, root, "s1", max_bytes=lambda: 10)
    other = Recorder(handle, root, "s2", max_bytes=lambda: 10)
    try:
        session = recorder.session_node_id()
        assert recorder.session_node_id() == session != other.session_node_id()
        node_id = recorder.capture(
            NodeKind.TOOL_OUTPUT, "0123456789abcdef", source_uri="bash://x", metadata={}
        )
        node = handle.store.get(node_id)
        assert node is not None and node.parent_id == session
        assert node.content == "0123456789" and node.truncated and node.original_bytes == 16
        same = recorder.capture(NodeKind.TOOL_OUTPUT, "short", source_uri="bash://y", metadata={})
        again = recorder.capture(NodeKind.TOOL_OUTPUT, "short", source_uri="bash://y", metadata={})
        assert same == again  # an identical live capture: its id, nothing new stored
    finally:
        handle.close()


def test_backlog_counts_once_per_model_until_the_ttl_passes(monkeypatch: pytest.MonkeyPatch):
    from ctx_tree_mcp import caches

    now = [100.0]
    monkeypatch.setattr(caches.time, "monotonic", lambda: now[0])
    backlogs = caches.BacklogCache(ttl_s=10.0)
    counted: list[str] = []

    def count(model: str, value: int) -> int:
        counted.append(model)
        return value

    assert backlogs.get("m", lambda: count("m", 5)) == 5
    now[0] += 9.0
    assert backlogs.get("m", lambda: count("m", 7)) == 5  # reused within the ttl
    assert backlogs.get("other", lambda: count("other", 1)) == 1  # per model
    now[0] += 2.0
    assert backlogs.get("m", lambda: count("m", 7)) == 7  # counted again after it
    assert counted == ["m", "other", "m"]


def test_calls_clock_reads_inf_while_any_call_runs_then_the_last_end():
    import math

    from ctx_tree_mcp.calls import CallsClock

    @dataclass
    class _Shared:
        value: float = 0.0

    clock = CallsClock()
    assert not clock.busy() and clock.idle_for() > 0
    clock.shared = shared = _Shared()
    clock.start()
    assert clock.busy() and shared.value == math.inf
    clock.start()  # two at once: inf until the last one ends
    clock.end()
    assert clock.running == 1 and shared.value == math.inf
    clock.end()
    assert not clock.busy() and shared.value == clock.last_end
    assert 0 <= clock.idle_for() < 5


def test_calls_clock_holds_a_hosts_call_until_released_or_its_deadline():
    import math

    from ctx_tree_mcp.calls import CallsClock

    @dataclass
    class _Shared:
        value: float = 0.0

    clock = CallsClock()
    clock.shared = shared = _Shared()
    clock.hold("routed", 60.0)
    assert clock.busy() and clock.idle_for() < -50  # the index waits for it
    assert shared.value > clock.last_end + 50  # the workers pause by it too
    clock.start()
    assert shared.value == math.inf
    clock.end()
    assert clock.busy() and shared.value > clock.last_end
    clock.release("routed")
    clock.release("never-held")  # ignored
    assert not clock.busy() and shared.value == clock.last_end
    assert 0 <= clock.idle_for() < 5
    clock.hold("left-alone", 0.0)  # past its deadline: it ended then
    assert not clock.busy() and "left-alone" not in clock._holds
