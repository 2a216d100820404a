"""The view cache keeps the last file views served, dropping the least recently used."""

from __future__ import annotations

from dataclasses import dataclass

from ctx_tree_mcp.app import ViewCache


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
