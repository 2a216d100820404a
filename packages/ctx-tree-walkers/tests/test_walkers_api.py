"""Provider protocols, the CLI's walk report, and the start-up sweep of leftovers."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from ctx_tree_schema import Node
from ctx_tree_store import Store
from ctx_tree_walkers import Coordinator, EmbeddingProvider, SummarizerProvider, SummaryResult
from walkers_testlib import T0, Timeline, add_pending, make_config, status_of

BIG = "src/app.py:10:    handle_request(session, payload)  # the real match\n" * 2


class FakeEmbedder:
    model = "fake-embed"
    dimensions = 3

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(len(t)), 0.0, 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


class FakeSummarizer:
    model = "fake-sum"

    def summarize(
        self, root: Node, nodes: Sequence[Node], *, max_tokens: int = 500
    ) -> SummaryResult:
        return SummaryResult(f"{len(nodes)} nodes under {root.id}", 10, 5)


def test_provider_protocols_are_structural() -> None:
    assert isinstance(FakeEmbedder(), EmbeddingProvider)
    assert isinstance(FakeSummarizer(), SummarizerProvider)
    assert not isinstance(FakeSummarizer(), EmbeddingProvider)
    vectors = FakeEmbedder().embed(["ab", "abc"])
    assert [len(v) for v in vectors] == [FakeEmbedder.dimensions] * 2


def test_leftover_pending_nodes_are_swept_at_start(store_file: Path) -> None:
    """Pending nodes left by a crashed server are triaged by the first tick, before any
    interval has passed."""
    with Store.open(store_file) as s:
        keep = add_pending(s, BIG, source="grep://left")
        tiny = add_pending(s, "x", source="grep://tiny")

    async def main() -> Coordinator:
        tl = Timeline()
        c = Coordinator(
            store_file, make_config(), now_ms=tl.now, sleep=tl.sleep, walkers=("filter",)
        )
        task = c.start()
        await tl.settle(1)
        await c.stop()
        await task
        return c

    c = asyncio.run(main())
    assert c.state["filter"].run_times_ms == [T0]
    assert c.state["filter"].last_summary.startswith("2 promoted (1 ranked low: 1 too small")
    with Store.open(store_file) as s:
        assert status_of(s, keep) == "live" == status_of(s, tiny)
