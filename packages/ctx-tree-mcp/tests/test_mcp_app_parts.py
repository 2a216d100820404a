"""App's parts: the view cache keeps the last file views served, dropping the least recently
used; the usage counters add up per tool and are handed over whole, once."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ctx_tree_mcp.app import UsageCounters, ViewCache


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
