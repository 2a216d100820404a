"""The provider walkers in the coordinator: scheduled only with their provider, embed in the
worker thread, skip a store of another model, and report every run."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store
from ctx_tree_walkers import Coordinator, ProviderUnavailable, embed_missing, run_once
from walkers_testlib import make_config


class CountingEmbedder:
    """Two-dimensional vectors from the text length; counts calls; can be made to fail."""

    model = "count-embed"
    dimensions = 2

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.fail = False

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.fail:
            raise ProviderUnavailable("count-embed at nowhere unreachable")
        self.calls.append(len(texts))
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


def notes(store: Store, n: int) -> list[str]:
    return store.insert([NewNode(NodeKind.NOTE, f"note {i} " + "x" * i) for i in range(n)])


def test_provider_walkers_are_scheduled_only_with_their_provider(store_file: Path) -> None:
    Store.open(store_file).close()
    none = Coordinator(store_file, make_config())
    assert set(none.state) == {"filter", "staleness", "pruner"}
    with_embedder = Coordinator(store_file, make_config(), embedder=CountingEmbedder())
    assert set(with_embedder.state) == {"filter", "staleness", "pruner", "embedding", "dedupe"}


def test_embedding_walker_runs_in_the_coordinator_in_batches(store_file: Path) -> None:
    with Store.open(store_file) as s:
        notes(s, 7)
    embedder = CountingEmbedder()
    config = make_config(walkers={"embeddingBatchSize": 3})

    async def main() -> Coordinator:
        c = Coordinator(store_file, config, walkers=("embedding",), embedder=embedder)
        await c.run_walker_now("embedding")
        await c.stop()
        return c

    c = asyncio.run(main())
    assert embedder.calls == [3, 3, 1]
    assert c.state["embedding"].last_summary.startswith(
        "7 nodes embedded with count-embed in 3 batches"
    )
    with Store.open(store_file) as s:
        assert s.vector_models() == {"count-embed": 7}


def test_a_failing_provider_is_reported_and_the_store_of_another_model_is_skipped(
    store: Store,
) -> None:
    notes(store, 2)
    embedder = CountingEmbedder()
    embedder.fail = True
    out = run_once(store, make_config(), "embedding", embedder=embedder)
    assert "provider failed: count-embed at nowhere unreachable" in out["embedding"]
    embedder.fail = False

    class Other(CountingEmbedder):
        model = "other-model"

    embed_missing(store, Other())
    out = run_once(store, make_config(), "embedding", embedder=embedder)
    assert out["embedding"].startswith("skipped: the store holds vectors of 'other-model'")
    report = embed_missing(store, embedder, replace=True)
    assert (report.embedded, report.dropped_other) == (2, 0)
    assert store.vector_models() == {"count-embed": 2}


class SameVectorEmbedder:
    """A broken provider: one vector for every text."""

    model = "same-vector"
    dimensions = 3

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0, 0.0]


def test_dedupe_merges_only_texts_that_are_alike_not_only_their_vectors(store: Store) -> None:
    """A provider answering alike vectors for unlike texts (broken, or a model that maps
    short texts together) made dedupe supersede distinct notes: near-duplicates must share
    most of their words too."""
    old, distinct, dup_old, dup_new = store.insert(
        [
            NewNode(NodeKind.NOTE, "alpha: the cache index is rebuilt at start-up"),
            NewNode(NodeKind.NOTE, "beta: retries back off up to thirty seconds"),
            NewNode(NodeKind.NOTE, "The deploy failed because the disk was full on the host."),
            NewNode(NodeKind.NOTE, "The deploy failed because the disk was full on the host!"),
        ]
    )
    config = make_config(walkers={"dedupeThreshold": 0.97})
    embedder = SameVectorEmbedder()
    run_once(store, config, "embedding", embedder=embedder)
    summary = run_once(store, config, "dedupe", embedder=embedder)["dedupe"]
    assert "1 near-duplicates superseded in 1 groups" in summary, summary
    assert [store.get(i).status.value for i in (old, distinct, dup_old, dup_new)] == [
        "live",
        "live",
        "superseded",
        "live",
    ]
