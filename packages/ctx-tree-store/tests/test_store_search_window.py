"""The AND step ranks the AND's own newest matches: a node holding every word is found however
many newer nodes hold only some of the words."""

from __future__ import annotations

import pytest
from ctx_tree_schema import Filters, NodeKind
from ctx_tree_store import NewNode, Store

CAP = 20


@pytest.fixture
def capped(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    import ctx_tree_store._fts as fts_module

    monkeypatch.setattr(fts_module, "SEARCH_CAP", CAP)
    return store


def _notes(store: Store, texts: list[str], kind: NodeKind = NodeKind.NOTE) -> list[str]:
    return store.insert([NewNode(kind, t) for t in texts])


def test_all_word_matches_older_than_the_partial_window_come_first(capped: Store):
    # Three old nodes hold every word; "created" floods (>= CAP matches) as in the real case.
    every = _notes(capped, [f"async thunk action created here {i}" for i in range(3)])
    _notes(capped, [f"created filler {i}" for i in range(CAP)])
    # Then 45 newer nodes each hold one ranking word, several times (high BM25): the OR of
    # the ranking words has more than CAP matches, all newer than the three.
    newer = [
        f"{w} {w} {w} {w} partial {i}" for w in ("async", "thunk", "action") for i in range(15)
    ]
    _notes(capped, newer)
    hits = capped.search("async thunk action created", limit=10)
    assert len(hits) == 10
    assert {h.node.id for h in hits[:3]} == set(every)
    assert [h.matched_all for h in hits] == [True] * 3 + [False] * 7
    assert all(h.score > 0 for h in hits[:3])
    # limit below the AND's count: only AND hits
    assert {h.node.id for h in capped.search("async thunk action created", limit=3)} == set(every)


def test_the_and_window_is_its_own_newest_matches_after_filters(capped: Store):
    old = _notes(capped, ["alpha beta " * 10])[0]  # the strongest AND match, but oldest
    window = _notes(capped, [f"alpha beta note {i}" for i in range(CAP - 1)])
    output = _notes(capped, ["alpha beta output"], NodeKind.TOOL_OUTPUT)[0]
    hits = capped.search("alpha beta", limit=CAP + 5)
    # The CAP newest AND matches are ranked; the oldest is past the window (bounded work).
    assert {h.node.id for h in hits} == {*window, output}
    # The window counts matches after the filters: the old note is back among notes only.
    hits = capped.search("alpha beta", limit=CAP + 5, filters=Filters(kind=("note",)))
    assert {h.node.id for h in hits} == {old, *window}
    assert hits[0].node.id == old  # the strongest match ranks first


def test_an_and_match_outside_the_ranking_words_is_kept(capped: Store):
    # The parts "zebra" and "quux" flood, so only the whole word "zebraquux" ranks: a node
    # holding zebra_quux matches the identifier through its parts, not the ranking word. It is
    # still a hit with every word, after the ranked one, with score 0.0.
    _notes(capped, [f"zebra quux filler {i}" for i in range(CAP)])
    part = _notes(capped, ["def zebra_quux(): pass"])[0]
    whole = _notes(capped, ["zebraQuux()"])[0]
    hits = capped.search("zebraQuux", limit=2)
    assert [(h.node.id, h.matched_all) for h in hits] == [(whole, True), (part, True)]
    assert hits[0].score > 0 and hits[1].score == 0.0


def test_ranking_among_the_window_is_one_fts5_pass(store: Store):
    # The rowid list must stay out of FTS5's plan: a rowid = ? lookup per id would re-run
    # BM25's IDF pass (a walk of every ranking word's doclist) once per id.
    from ctx_tree_store import _sql

    plan = [
        str(r[-1])
        for r in store.con.execute(
            "EXPLAIN QUERY PLAN " + _sql.SEARCH_RANK_AMONG.format(terms_weight=2.0),
            ('"x"', 1, 9, "[1, 5, 9]"),
        )
    ]
    fts = [p for p in plan if p.startswith("SCAN fts VIRTUAL TABLE")]
    assert len(fts) == 1, plan
    index = fts[0].split("INDEX", 1)[1]  # FTS5's plan: M a MATCH, < > rowid bounds, = a lookup
    assert "M" in index and "=" not in index, plan
