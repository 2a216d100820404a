"""Search finds CJK words, never falls back to a lone digit, lists hits best first and says
which matched every word."""

from __future__ import annotations

from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store, query_words
from ctx_tree_store._terms import cjk_terms


def _notes(store: Store, *texts: str) -> list[str]:
    return store.insert([NewNode(NodeKind.NOTE, t) for t in texts])


def test_cjk_word_inside_a_run_is_found(store: Store):
    zh, ja, other = _notes(
        store,
        "本工具在后台静默运行，不打扰用户。",
        "このツールは静默に動作します。",
        "本工具在前台运行。",
    )
    assert {h.node.id for h in store.search("静默")} == {zh, ja}
    hits = store.search("静默运行")
    assert [h.node.id for h in hits if h.matched_all] == [zh]  # the others hold some bigrams
    assert hits[0].node.id == zh
    assert {h.node.id for h in store.search("运行")} == {zh, other}
    assert [h.node.id for h in store.search("ツール")] == [ja]
    assert store.search("静音") == []


def test_cjk_terms_and_query_words():
    assert cjk_terms("abc 静默运行 x") == "静 默 运 行 静默 默运 运行"
    assert cjk_terms("plain ascii") == ""
    assert query_words("静默运行 export") == ["静默", "默运", "运行", "export"]


def test_no_fallback_to_a_lone_digit_part(store: Store):
    _notes(store, "version 3 of the protocol", "the answer is 3")
    assert store.search("qwertyuiop3") == []
    # a number typed as its own word is still searched
    assert len(store.search("3")) == 2


def test_hits_are_in_score_order_and_partial_hits_are_marked(store: Store):
    both = _notes(store, "export html from the console")[0]
    # many nodes that hold only one of the words, some of them very often (high BM25)
    _notes(store, *(["html " * 30 + f"page {i}" for i in range(5)]))
    hits = store.search("export html", limit=6)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    flags = {h.node.id: h.matched_all for h in hits}
    assert flags[both] is True
    assert sum(1 for h in hits if not h.matched_all) == 5


def test_index_words_split_identifiers_and_stem_like_the_index(store: Store) -> None:
    assert store.index_words("Command.HelpTemplate overrides get_app_dir") == [
        "command",
        "helptempl",
        "help",
        "templat",
        "overrid",
        "get",
        "app",
        "dir",
    ]
    # The same words as the index matches: a stored "overriding" is found by "overrides".
    assert store.index_words("Overriding") == store.index_words("overrides")
    assert store.index_words("") == [] and store.index_words("  …  ") == []


def test_snippets_show_the_query_words_of_the_given_nodes(store: Store) -> None:
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import NewNode

    long_text = "filler words here " * 30 + "the retry loop waits with backoff " + "tail " * 30
    ids = store.insert(
        [
            NewNode(NodeKind.NOTE, long_text),
            NewNode(NodeKind.NOTE, "nothing relevant at all"),
        ]
    )
    got = store.snippets("retry backoff", [*ids, "no-such-id"])
    assert set(got) == {ids[0]}  # the node without the words, and an unknown id: absent
    assert "retry" in got[ids[0]] and "backoff" in got[ids[0]] and got[ids[0]].startswith("…")
    assert store.snippets("", ids) == {} and store.snippets("retry", []) == {}


def test_reader_is_a_live_second_connection(tmp_path) -> None:
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import NewNode

    store = Store.open(tmp_path / "s.db")
    try:
        reader = store.reader()
        assert reader is not None and reader is store.reader()  # opened once
        (first,) = store.insert([NewNode(NodeKind.NOTE, "written after the reader opened")])
        assert reader.get(first).content == "written after the reader opened"  # sees commits
        store.reopen()
        again = store.reader()
        assert again is not None and again is not reader and again.get(first) is not None
    finally:
        store.close()
    assert Store.open(":memory:").reader() is None  # no file: nothing to open twice


def test_coverage_is_the_share_of_the_query_words_a_partial_match_holds(store: Store):
    (full,) = store.insert([NewNode(NodeKind.NOTE, "alpha beta gamma delta")])
    (half,) = store.insert([NewNode(NodeKind.NOTE, "alpha beta beta beta")])
    (quarter,) = store.insert([NewNode(NodeKind.NOTE, "delta delta delta")])
    hits = {h.node.id: h for h in store.search("alpha beta gamma delta", 10)}
    assert (hits[full].matched_all, hits[full].coverage) == (True, 1.0)
    assert (hits[half].matched_all, hits[half].coverage) == (False, 0.5)
    assert (hits[quarter].matched_all, hits[quarter].coverage) == (False, 0.25)
    assert store.search("beta", 10)[0].coverage == 1.0  # one word: every hit holds it
