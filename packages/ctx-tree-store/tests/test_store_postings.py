"""Store.postings: the per-node counts of a long query's words (docs/search.md#long-queries),
read through the index's own stemming, filtered like search, without writing to the store."""

from __future__ import annotations

from ctx_tree_schema import Filters, NodeKind
from ctx_tree_store import NewNode, Store


def test_counts_are_per_node_stemmed_and_weighted_by_column(store: Store) -> None:
    a, b, c = store.insert(
        [
            NewNode(NodeKind.NOTE, "parser parsers parser running"),
            NewNode(NodeKind.NOTE, "the parser once; HelpFormatter"),
            NewNode(NodeKind.NOTE, "nothing here"),
        ]
    )
    rowid = dict(store.db.query("SELECT id, rowid FROM nodes"))
    before = store.size_bytes()
    post = store.postings(["parser", "runs", "formatter", "absent"])
    # "parsers" stems to "parser"; "runs" finds "running" (both "run")
    assert post.tf["parser"] == {rowid[a]: 3.0, rowid[b]: 1.0}
    assert post.tf["runs"] == {rowid[a]: 1.0}
    # "formatter" is only in the terms column (HelpFormatter's camelCase part): weight 2
    assert post.tf["formatter"] == {rowid[b]: 2.0}
    assert "absent" not in post.tf
    assert post.total == 3
    assert post.docs[rowid[a]][0] == a and post.docs[rowid[a]][2] == "note"
    assert post.docs[rowid[a]][3] == 4  # index tokens of content and terms
    assert rowid[c] not in post.docs
    assert store.size_bytes() == before  # a temp table: nothing written to the store


def test_filters_and_frequent_words(store: Store, monkeypatch) -> None:
    monkeypatch.setattr("ctx_tree_store._postings.POSTINGS_MIN_CAP", 1)
    ids = store.insert([NewNode(NodeKind.NOTE, f"common word{i} rare") for i in range(3)])
    ids += store.insert([NewNode(NodeKind.NOTE, f"common filler {i}") for i in range(7)])
    store.set_status([ids[0]], "stale")
    post = store.postings(["rare", "common"], max_share=0.5)
    # "common" is in all 10 nodes, over half: left out; the stale node is filtered out
    assert set(post.tf) == {"rare"}
    assert {post.docs[r][0] for r in post.tf["rare"]} == {ids[1], ids[2]}
    post = store.postings(["rare"], Filters(status=("stale",)), max_share=0.5)
    assert {post.docs[r][0] for r in post.tf["rare"]} == {ids[0]}


def test_child_counts_count_chunks_per_parent(store: Store) -> None:
    (root,) = store.insert([NewNode(NodeKind.NOTE, "root")])
    store.insert([NewNode(NodeKind.NOTE, f"child {i}", parent_id=root) for i in range(4)])
    assert store.child_counts([root, "nope"]) == {root: 4}


def test_an_identifier_of_several_tokens_counts_as_its_phrase(store: Store) -> None:
    a, _b = store.insert(
        [
            NewNode(NodeKind.NOTE, "def _format_float(value): return repr(value)"),
            NewNode(NodeKind.NOTE, "format the value as a float"),
        ]
    )
    post = store.postings(["_format_float"])
    assert [post.docs[r][0] for r in post.tf["_format_float"]] == [a]


def test_a_packed_chunk_gives_its_symbol_back(store: Store) -> None:
    (root,) = store.insert([NewNode(NodeKind.FILE_CHUNK, "outline", source_uri="file:///p/x.py")])
    chunk = NewNode(
        NodeKind.FILE_CHUNK,
        "def parse_args(self): return self.namespace",
        parent_id=root,
        source_uri="file:///p/x.py#Parser.parse_args",
        metadata={"path": "/p/x.py", "symbol": "Parser.parse_args", "lines": [1, 1]},
    )
    (nid,) = store.insert([chunk])
    stored = store.db.query(
        "SELECT ctx_meta(metadata, source_uri) FROM nodes WHERE id = ?", (nid,)
    )[0][0]
    assert "symbol" not in stored  # packed: the source_uri's fragment gives it
    post = store.postings(["namespace"])
    (rowid,) = post.tf["namespace"]
    assert post.docs[rowid][0] == nid and post.docs[rowid][4] == "Parser.parse_args"


def test_packed_chunks_give_their_symbol_without_their_metadata(store: Store) -> None:
    (root,) = store.insert([NewNode(NodeKind.FILE_CHUNK, "outline", source_uri="file:///p/y.py")])
    named, unnamed = store.insert(
        [
            NewNode(
                NodeKind.FILE_CHUNK,
                "def walk_tree(node): return node.children",
                parent_id=root,
                source_uri="file:///p/y.py#walk_tree",
                metadata={"path": "/p/y.py", "symbol": "walk_tree", "lines": [1, 1]},
            ),
            NewNode(
                NodeKind.FILE_CHUNK,
                "children = walk_tree(root)",
                parent_id=root,
                source_uri="file:///p/y.py#L2-3",
                metadata={"path": "/p/y.py", "symbol": None, "lines": [2, 3]},
            ),
        ]
    )
    # the metadata a search reads is never inflated: a BLOB that is not valid packing
    # would fail any read of it
    store.db.con.execute("UPDATE nodes SET metadata = x'ff' WHERE id IN (?, ?)", (named, unnamed))
    post = store.postings(["children"])
    symbols = {post.docs[r][0]: post.docs[r][4] for r in post.tf["children"]}
    assert symbols == {named: "walk_tree", unnamed: None}
