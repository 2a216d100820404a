"""Vectors in the store: put, nearest (sign-bit scan then exact cosine), filters, triggers."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from ctx_tree_schema import Filters, NodeKind, NodeStatus
from ctx_tree_store import DimensionMismatch, NewNode, Store
from ctx_tree_store import _vectors as vec_module
from ctx_tree_store._filters import filter_sql


def unit(v: list[float]) -> list[float]:
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(unit(a), unit(b), strict=True))


def add(store: Store, texts: list[str], kind: NodeKind = NodeKind.NOTE) -> list[str]:
    return store.insert([NewNode(kind, t) for t in texts])


def embed_all(store: Store, model: str, vectors: dict[str, list[float]]) -> int:
    nodes = store.get_many(list(vectors))
    return store.put_vectors(
        model, [(nid, nodes[nid].content_hash, v) for nid, v in vectors.items()]
    )


def test_nearest_matches_brute_force_cosine(store: Store):
    rng = random.Random(7)
    ids = add(store, [f"note {i}" for i in range(300)])
    vecs = {nid: [rng.gauss(0, 1) for _ in range(16)] for nid in ids}
    assert embed_all(store, "m1", vecs) == 300
    query = [rng.gauss(0, 1) for _ in range(16)]
    want = sorted(ids, key=lambda nid: -cosine(vecs[nid], query))[:10]
    hits = store.vector_search("m1", query, limit=10)
    assert [h.node.id for h in hits] == want  # 300 < candidate count: exact
    assert hits[0].similarity == pytest.approx(cosine(vecs[want[0]], query), abs=1e-5)


def test_bit_scan_then_rerank_finds_a_near_copy_among_many(
    store: Store, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(vec_module, "CANDIDATES_MIN", 50)
    rng = random.Random(3)
    ids = add(store, [f"n{i}" for i in range(2000)])
    vecs = {nid: [rng.gauss(0, 1) for _ in range(64)] for nid in ids}
    embed_all(store, "m", vecs)
    target = ids[1234]
    query = [x + rng.gauss(0, 0.05) for x in vecs[target]]
    where, args = filter_sql(store.db, None, "n")
    hits = vec_module.nearest(store.db, store._vec, "m", query, 5, where, args, candidates=50)
    assert hits[0].node.id == target and hits[0].similarity > 0.99


def test_filters_apply_and_fall_back_past_the_candidates(store: Store):
    rng = random.Random(5)
    notes = add(store, [f"note {i}" for i in range(600)])
    outputs = add(store, [f"out {i}" for i in range(5)], NodeKind.TOOL_OUTPUT)
    vecs = {nid: [rng.gauss(0, 1) for _ in range(8)] for nid in notes + outputs}
    embed_all(store, "m", vecs)
    hits = store.vector_search(
        "m", [1.0] * 8, limit=10, filters=Filters(kind=(NodeKind.TOOL_OUTPUT,))
    )
    assert sorted(h.node.id for h in hits) == sorted(outputs)  # all 5, past 400 candidates


def test_default_statuses_skip_superseded_and_pruned_rows_lose_their_vector(store: Store):
    a, b, c = add(store, ["alpha", "beta", "gamma"])
    embed_all(store, "m", {a: [1, 0, 0], b: [0.9, 0.1, 0], c: [0, 1, 0]})
    store.supersede(a, b)
    assert [h.node.id for h in store.vector_search("m", [1, 0, 0], limit=3)] == [a, c]
    everything = Filters(status=tuple(NodeStatus))
    assert b in [h.node.id for h in store.vector_search("m", [1, 0, 0], 3, everything)]
    store.set_status([b], NodeStatus.PRUNED)
    assert store.vector_models() == {"m": 2}
    assert store.con.execute("SELECT count(*) FROM nodes_vec_bits").get == 2
    store.set_status([c], NodeStatus.PRUNED)
    store.delete([c])
    assert store.vector_models() == {"m": 1}


def test_dimension_mismatch_is_refused_and_writes_nothing(store: Store):
    a, b = add(store, ["one", "two"])
    embed_all(store, "m", {a: [1.0, 0.0, 0.0]})
    node_b = store.require(b)
    with pytest.raises(DimensionMismatch, match="2 dimensions, the store holds 3"):
        store.put_vectors("m", [(b, node_b.content_hash, [1.0, 0.0])])
    assert store.vector_models() == {"m": 1}
    with pytest.raises(DimensionMismatch, match="query vector has 2"):
        store.vector_search("m", [1.0, 0.0])
    assert store.vector_search("other-model", [1.0, 0.0]) == []


def test_missing_lists_unembedded_changed_and_other_model_nodes(store: Store):
    a, b, c = add(store, ["one", "two", "three"])
    store.insert([NewNode(NodeKind.NOTE, "pending one", status=NodeStatus.PENDING)])
    store.ensure_session("s", "/tmp")  # sessions are never embedded
    store.insert([NewNode(NodeKind.TOOL_OUTPUT, "")])  # nor empty nodes (a silent command)
    embed_all(store, "m", {a: [1.0, 0.0]})
    embed_all(store, "old", {b: [1.0, 0.0, 1.0]})
    missing = [n.content for _, n in store.missing_vectors("m", limit=10)]
    assert missing == ["two", "three", "pending one"]
    assert store.vector_backlog("m") == 3
    # A vector computed from other content (hash differs) is not written.
    assert store.put_vectors("m", [(c, "not-the-hash", [0.0, 1.0])]) == 0
    rowid_b = store.missing_vectors("m", limit=1)[0][0]
    assert [n.content for _, n in store.missing_vectors("m", 10, after_rowid=rowid_b)] == [
        "three",
        "pending one",
    ]
    assert store.drop_other_vectors("m") == 1
    assert store.vector_models() == {"m": 1}


def test_walker_state_round_trips(store: Store):
    assert store.walker_state("dedupe:cursor") is None
    store.set_walker_state("dedupe:cursor", "42")
    store.set_walker_state("dedupe:cursor", "43")
    assert store.walker_state("dedupe:cursor") == "43"


def test_vectors_survive_reopen_and_keyword_search_never_loads_the_extension(db_path: Path):
    with Store.open(db_path) as store:
        [a] = add(store, ["persistent vector note"])
        embed_all(store, "m", {a: [0.5, 0.5]})
    with Store.open(db_path) as again:
        assert [h.node.id for h in again.search("persistent")] == [a]
        assert again._vec.loaded is False
        assert again.vector_of(a, "m") == [0.5, 0.5]
        assert again.vector_search("m", [1.0, 1.0])[0].node.id == a
        assert again._vec.loaded is True


def test_an_unloadable_extension_is_reported_and_keyword_search_still_works(
    store: Store, monkeypatch: pytest.MonkeyPatch
):
    import sqlite_vec

    monkeypatch.setattr(sqlite_vec, "loadable_path", lambda: "/nonexistent/vec0")
    from ctx_tree_store import VectorUnavailable

    [a] = add(store, ["still searchable"])
    with pytest.raises(VectorUnavailable, match="sqlite-vec cannot be loaded"):
        store.vector_search("m", [1.0])
    with pytest.raises(VectorUnavailable):  # remembered, not retried per call
        store.put_vectors("m", [(a, store.require(a).content_hash, [1.0])])
    assert [h.node.id for h in store.search("searchable")] == [a]


def test_similarities_of_given_nodes_are_exact_and_skip_nodes_without_a_vector(store: Store):
    rng = random.Random(3)
    ids = add(store, [f"note {i}" for i in range(40)])
    vecs = {nid: [rng.gauss(0, 1) for _ in range(8)] for nid in ids[:30]}
    embed_all(store, "m", vecs)
    query = [rng.gauss(0, 1) for _ in range(8)]
    asked = [ids[0], ids[29], ids[35], "no-such-node"]  # ids[35] has no vector
    sims = store.vector_similarities("m", query, asked)
    assert set(sims) == {ids[0], ids[29]}
    for nid in sims:
        assert sims[nid] == pytest.approx(cosine(vecs[nid], query), abs=1e-5)
    assert store.vector_similarities("other-model", query, asked) == {}
    with pytest.raises(DimensionMismatch):
        store.vector_similarities("m", [1.0, 0.0], asked)


def test_similarities_look_the_nodes_up_by_id_not_by_walking_the_model(store: Store):
    # Hybrid search asks for about 50 ids: without statistics SQLite would rather walk the
    # model's index (every vector of the model) than do 50 id lookups.
    ids = add(store, [f"note {i}" for i in range(50)])
    embed_all(store, "m", {nid: [1.0, float(i)] for i, nid in enumerate(ids)})
    sql = vec_module._sql.VEC_DISTANCES.format(marks=",".join("?" * len(ids)))
    plan = " ".join(
        str(row[3])
        for row in store.con.execute(
            "EXPLAIN QUERY PLAN " + sql, [vec_module.pack([1.0, 0.0]), "m", *ids]
        )
    )
    assert "idx_nodes_vec_model" not in plan and "(id=?)" in plan
