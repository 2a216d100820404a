"""The embedding indexer (docs/walkers.md, docs/search.md): vectors for live and pending nodes.

Each run takes the nodes that have no vector of the provider's model for their current content,
oldest first, ``walkers.embeddingBatchSize`` at a time: the texts are sent to the provider
**outside** any transaction, then the batch's vectors are written in one short transaction
that skips nodes gone or changed meanwhile. The run goes on batch after batch until nothing is
missing, the coordinator asks it to stop (shutdown, lost lease) or the provider fails: then it
stops, counts the failure and retries at its next tick (a provider that is down costs one
request per tick, never a crash).

A store holding vectors of another model is left alone (``skipped_other_model``): mixing two
models' vectors would make them incomparable; ``ctx-tree reembed`` (:func:`embed_missing`
with ``replace=True``) replaces them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ctx_tree_schema import Config
from ctx_tree_store import DimensionMismatch, Store, VectorUnavailable

from ._common import KeepGoing, always
from ._providers import EmbeddingProvider, ProviderUnavailable


@dataclass(slots=True)
class EmbeddingReport:
    """What one indexer run (or one ``reembed``) did."""

    model: str = ""
    embedded: int = 0
    batches: int = 0
    failed: str = ""
    skipped_other_model: str = ""
    dropped_other: int = 0
    seconds_in_provider: float = 0.0
    stopped: bool = False

    def summary(self) -> str:
        if not self.model:
            return "off (no embedding provider configured)"
        if self.skipped_other_model:
            return (
                f"skipped: the store holds vectors of {self.skipped_other_model!r}, not "
                f"{self.model!r}; run `ctx-tree reembed`"
            )
        text = f"{self.embedded} nodes embedded with {self.model} in {self.batches} batches"
        if self.embedded and self.seconds_in_provider > 0:
            text += f" ({self.embedded / self.seconds_in_provider:.0f}/s in the provider)"
        if self.dropped_other:
            text += f", {self.dropped_other} vectors of other models dropped"
        if self.failed:
            text += f"; provider failed: {self.failed} (retried next tick)"
        return text + (" — stopped early" if self.stopped else "")


def embed_missing(
    store: Store,
    provider: EmbeddingProvider,
    *,
    batch_size: int = 32,
    keep_going: KeepGoing = always,
    replace: bool = False,
    progress: Callable[[int, int], None] | None = None,
    now_ms: Callable[[], int] | None = None,
) -> EmbeddingReport:
    """Embed every live and pending node lacking a vector of ``provider.model``, each by its
    content as stored (docs/search.md#what-is-embedded).

    ``replace`` (``ctx-tree reembed``): also replace vectors of other models, and at the end
    drop the other models' vectors left on nodes that are not live or pending. Without it, a
    store holding another model's vectors is skipped. ``progress(done, remaining_estimate)``
    is called after each batch. Resumable: every batch is committed on its own, so a run cut
    short continues where it stopped.
    """
    import time

    model = provider.model
    report = EmbeddingReport(model=model)
    if not replace:
        other = store.other_vector_model(model)
        if other is not None:
            report.skipped_other_model = other
            return report
    size = max(1, int(batch_size))
    after = 0
    while True:
        batch = store.missing_vectors(model, limit=size, after_rowid=after)
        if not batch:
            break
        after = batch[-1][0]
        started = time.monotonic()
        try:
            vectors = provider.embed([node.content for _, node in batch])
            report.seconds_in_provider += time.monotonic() - started
            items = [
                (node.id, node.content_hash, vec)
                for (_, node), vec in zip(batch, vectors, strict=True)
            ]
            at = now_ms() if now_ms is not None else None
            report.embedded += store.put_vectors(model, items, at=at)
        except (ProviderUnavailable, DimensionMismatch, VectorUnavailable, ValueError) as exc:
            report.failed = str(exc)
            break
        report.batches += 1
        if progress is not None:
            progress(report.embedded, store.vector_backlog(model))
        if not keep_going():
            report.stopped = True
            return report
    if replace and not report.failed:
        report.dropped_other = store.drop_other_vectors(model)
    return report


def index_embeddings(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    provider: EmbeddingProvider | None = None,
) -> EmbeddingReport:
    """The ``embedding`` walker: :func:`embed_missing` with ``walkers.embeddingBatchSize``;
    does nothing without a provider."""
    if provider is None:
        return EmbeddingReport()
    return embed_missing(
        store,
        provider,
        batch_size=int(config.data["walkers"]["embeddingBatchSize"]),
        keep_going=keep_going,
        now_ms=lambda: now_ms,
    )
