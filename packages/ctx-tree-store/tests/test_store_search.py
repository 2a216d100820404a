"""FTS5 search: sync by triggers, pruned nodes out of the index, hostile queries, ranking."""

from __future__ import annotations

import pytest
from ctx_tree_schema import Filters, NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store, query_words
from ctx_tree_store._terms import index_terms, match_all_query, match_query
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NASTY = [
    "foo(",
    '"unterminated',
    "AND",
    "OR",
    "NOT",
    "-x",
    "*",
    "NEAR",
    "NEAR(a b",
    "a:b",
    "content:fox",
    "^fox",
    "fox*",
    "(",
    ")",
    '""',
    "''",
    "",
    "   ",
    "\x00",
    "\ud800 fox",
    "{content terms}: fox",
    "x" * 10_000,
    "fox " * 3000,
    "🦊 fox",
    "AND OR NOT NEAR",
    "fox -- ; DROP TABLE nodes;",
    "a" * 100_000,
]


@pytest.fixture
def filled(store: Store) -> Store:
    sid = store.ensure_session("s1", "/p")
    store.insert(
        [
            NewNode(NodeKind.NOTE, "the quick brown fox jumps", parent_id=sid),
            NewNode(
                NodeKind.FILE_CHUNK,
                "def getAppDir(self):\n    return app_dir\n",
                parent_id=sid,
                metadata={"lines": [10, 11]},
                terms="userdirs.py",
            ),
            NewNode(NodeKind.TOOL_OUTPUT, "running runners ran", parent_id=sid),
            NewNode(NodeKind.NOTE, "AND OR NOT NEAR are plain words here", parent_id=sid),
        ]
    )
    return store


@pytest.mark.parametrize("query", NASTY)
def test_no_query_raises(filled: Store, query: str):
    hits = filled.search(query)
    assert isinstance(hits, list)
    if "fox" in query.lower() and query.count("fox") < 3000:
        assert any("fox" in h.node.content for h in hits)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=300))
def test_arbitrary_text_never_raises(filled: Store, query: str):
    hits = filled.search(query, limit=5)
    assert len(hits) <= 5
    assert all(h.node.status in (NodeStatus.LIVE, NodeStatus.PENDING) for h in hits)


@settings(max_examples=200, deadline=None)
@given(query=st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_match_expressions_are_valid_fts5(query: str):
    import apsw

    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='porter unicode61')")
    con.execute("INSERT INTO t VALUES ('some text', 'more')")
    for expr in (match_query(query), match_all_query(query)):
        if expr is not None:
            con.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()


def test_nasty_words_are_searchable_as_words(filled: Store):
    hits = filled.search("NEAR")
    assert [h.node.content for h in hits] == ["AND OR NOT NEAR are plain words here"]


def test_porter_stemming_and_snippet(filled: Store):
    (hit,) = filled.search("run")
    assert hit.node.content == "running runners ran"
    assert "running" in hit.snippet
    assert hit.score > 0


def test_camel_case_and_snake_case_and_path_terms(filled: Store):
    for q in ("getAppDir", "get app dir", "app_dir", "userdirs", "GetAppDir"):
        hits = filled.search(q)
        assert hits and hits[0].node.lines == (10, 11), q
        assert hits[0].lines == (10, 11)


def test_line_range_is_none_without_metadata(filled: Store):
    (hit,) = filled.search("quick")
    assert hit.lines is None


def test_all_words_rank_before_some_words(store: Store):
    ids = store.insert(
        [
            NewNode(NodeKind.NOTE, "socket socket socket socket timeout"),
            NewNode(NodeKind.NOTE, "open a socket connection"),
            NewNode(NodeKind.NOTE, "connection pool"),
            NewNode(NodeKind.NOTE, "unrelated"),
        ]
    )
    hits = store.search("open socket connection")
    assert hits[0].node.id == ids[1]  # the only node with every word
    assert {h.node.id for h in hits} == set(ids[:3])  # OR fills up to the limit
    assert len(store.search("open socket connection", limit=1)) == 1


def test_or_fallback_for_words_no_node_has_together(store: Store):
    a, b = store.insert([NewNode(NodeKind.NOTE, "alpha here"), NewNode(NodeKind.NOTE, "beta")])
    assert {h.node.id for h in store.search("alpha beta")} == {a, b}


def test_pruned_nodes_leave_the_index_and_it_stays_consistent(filled: Store):
    (hit,) = filled.search("fox")
    filled.set_status([hit.node.id], NodeStatus.PRUNED)
    assert filled.search("fox") == []
    assert filled.search("fox", filters=Filters(status=("pruned",))) == []
    assert filled.integrity() == ("ok", True)
    filled.delete([hit.node.id])
    assert filled.integrity() == ("ok", True)


def test_stale_and_superseded_stay_indexed_but_filtered(filled: Store):
    (hit,) = filled.search("fox")
    filled.set_status([hit.node.id], NodeStatus.STALE)
    assert filled.search("fox") == []
    assert len(filled.search("fox", filters=Filters(status=("stale",)))) == 1
    assert filled.integrity() == ("ok", True)


def test_content_updates_reindex(filled: Store):
    (hit,) = filled.search("fox")
    filled.con.execute(
        "UPDATE nodes SET content = 'a slow green turtle' WHERE id = ?", (hit.node.id,)
    )
    assert filled.search("fox") == []
    assert filled.search("turtle")[0].node.id == hit.node.id
    filled.con.execute("UPDATE nodes SET terms = 'zanzibar' WHERE id = ?", (hit.node.id,))
    assert filled.search("zanzibar")[0].node.id == hit.node.id
    assert filled.integrity() == ("ok", True)


def test_filters(filled: Store):
    sid = filled.ensure_session("s1", "/p")
    other = filled.ensure_session("s2", "/q")
    (elsewhere,) = filled.insert([NewNode(NodeKind.NOTE, "fox elsewhere", parent_id=other)])
    assert len(filled.search("fox")) == 2
    assert [h.node.id for h in filled.search("fox", filters=Filters(session_id="s2"))] == [
        elsewhere
    ]
    assert [h.node.id for h in filled.search("fox", filters=Filters(session_id=other))] == [
        elsewhere
    ]
    assert len(filled.search("fox", filters=Filters(parent_id=sid))) == 1
    assert filled.search("fox", filters=Filters(kind=("tool_output",))) == []
    assert len(filled.search("fox", filters=Filters(kind=("note", "tool_output")))) == 2
    created = filled.require(elsewhere).created_at
    assert filled.search("fox", filters=Filters(since=created + 1)) == []
    assert len(filled.search("fox", filters=Filters(until=created))) == 2
    assert filled.search("fox", filters=Filters(session_id="no-such-session")) == []


def test_limit_is_clamped(store: Store):
    store.insert([NewNode(NodeKind.NOTE, f"word {i}") for i in range(250)])
    assert len(store.search("word", limit=0)) == 1
    assert len(store.search("word", limit=1000)) == 200


def test_query_helpers():
    assert query_words("getHTTPResponse foo_bar") == [
        "gethttpresponse",
        "get",
        "http",
        "response",
        "foo",
        "bar",
    ]
    assert query_words("") == [] and match_query("(*)") is None
    assert len(query_words(" ".join(f"w{i}" for i in range(100)))) == 32
    assert match_all_query("one") is None
    assert match_all_query("getAppDir") == '("getappdir" OR ("get" AND "app" AND "dir"))'
    terms = index_terms("x = getAppDir(HTTPServer, snake_case, ALLCAPS, Title)", "pkg/my_mod.py")
    assert set(terms.split()) == {"pkg", "my", "mod", "py", "get", "app", "dir", "http", "server"}


def test_fts_scores(filled: Store):
    (hit,) = filled.search("fox")
    scores = filled.fts_scores("fox", [hit.node.id, "missing"])
    assert list(scores) == [hit.node.id] and scores[hit.node.id] > 0
    assert filled.fts_scores("", [hit.node.id]) == {}


def test_search_cap_ranks_the_newest_matches_and_drops_flooding_words(
    store: Store, monkeypatch: pytest.MonkeyPatch
):
    import ctx_tree_store._fts as fts_module

    monkeypatch.setattr(fts_module, "SEARCH_CAP", 5)
    old_strong = store.insert([NewNode(NodeKind.NOTE, "common common common common")])[0]
    rare = store.insert([NewNode(NodeKind.NOTE, "zebra")])[0]
    newer = store.insert([NewNode(NodeKind.NOTE, f"common filler {i}") for i in range(10)])
    (note_old,) = store.insert([NewNode(NodeKind.TOOL_OUTPUT, "common output")])
    more = store.insert([NewNode(NodeKind.NOTE, f"common tail {i}") for i in range(3)])
    # 15 nodes hold "common": only the 5 newest are ranked, so the old strong match is out.
    hits = [h.node.id for h in store.search("common", limit=10)]
    assert old_strong not in hits and hits and set(hits) <= {*newer[-1:], note_old, *more}
    assert len(hits) == 5
    # "common" floods: the OR step keeps only the rarer word, so zebra comes back.
    assert store.search("zebra common", limit=3)[0].node.id == rare
    # The window counts matches after the filters: the one tool_output is found.
    hits = store.search("common", filters=Filters(kind=("tool_output",)))
    assert [h.node.id for h in hits] == [note_old]
    monkeypatch.setattr(fts_module, "SEARCH_CAP", 100)
    assert store.search("common", limit=1)[0].node.id == old_strong  # exact BM25 under the cap


def test_floor_query_walks_the_index_newest_first(store: Store):
    from ctx_tree_store import _sql

    plan = " ".join(
        str(r[-1])
        for r in store.con.execute(
            "EXPLAIN QUERY PLAN " + _sql.SEARCH_FLOOR.format(where=""), ('"x"', 1)
        )
    )
    assert "TEMP B-TREE" not in plan.upper()
