"""Keyword hits come grouped: every-word matches first, then some-word matches, each group best
score first, so the listing at limit k is the first k of the listing at any larger limit."""

from __future__ import annotations

from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, SearchHit, Store

FILLER = " ".join(f"filler{i}" for i in range(60))


def _store_with_strong_partials(store: Store) -> tuple[list[str], list[str]]:
    """Seven long nodes holding both words once (low BM25) and ten short ones holding "export"
    many times (high BM25), among unrelated nodes that keep both words' IDF up."""
    every = store.insert([NewNode(NodeKind.NOTE, f"export html {FILLER} {i}") for i in range(7)])
    partial = store.insert(
        [NewNode(NodeKind.NOTE, "export " * (8 + i) + f"page {i}") for i in range(10)]
    )
    store.insert([NewNode(NodeKind.NOTE, f"unrelated note number {i}") for i in range(40)])
    return every, partial


def _grouped(hits: list[SearchHit]) -> None:
    flags = [h.matched_all for h in hits]
    assert flags == sorted(flags, reverse=True), flags  # every True before any False
    for group in (True, False):
        scores = [h.score for h in hits if h.matched_all is group]
        assert scores == sorted(scores, reverse=True), (group, scores)


def test_a_longer_limit_keeps_the_first_hits_and_their_order(store: Store) -> None:
    every, partial = _store_with_strong_partials(store)
    by_limit = {k: store.search("export html", limit=k) for k in (3, 5, 6, 7, 10, 14, 20, 40)}
    # The case that reordered: partial matches outscore every node holding both words.
    assert min(h.score for h in by_limit[20] if h.node.id in partial) > max(
        h.score for h in by_limit[20] if h.node.id in every
    )
    for k, hits in by_limit.items():
        _grouped(hits)
        ids = [h.node.id for h in hits]
        assert len(ids) == min(k, 17)
        assert set(ids[:7]) <= set(every) and len(set(ids[:7])) == min(k, 7)
        for longer in (m for m in by_limit if m > k):
            assert [h.node.id for h in by_limit[longer]][:k] == ids, (k, longer)
    assert [h.matched_all for h in by_limit[14]] == [True] * 7 + [False] * 7
    assert {h.node.id for h in by_limit[40]} == set(every) | set(partial)


def test_hits_without_every_word_are_only_some_word_matches(store: Store) -> None:
    _every, partial = _store_with_strong_partials(store)
    hits = store.search("export nowhereword", limit=5)  # no node holds both: one group
    assert [h.matched_all for h in hits] == [False] * 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.node.id for h in hits} <= set(partial)
