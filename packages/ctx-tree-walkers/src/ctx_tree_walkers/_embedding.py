"""The embedding indexer (docs/walkers.md, docs/search.md): vectors for live and pending nodes.

Each run takes the nodes that have no vector of the provider's model for their current content,
oldest first, ``walkers.embeddingBatchSize`` at a time: the texts are sent to the provider
**outside** any transaction, then the batch's vectors are written in one short transaction
that skips nodes gone or changed meanwhile. The run goes on batch after batch until nothing is
missing, the coordinator asks it to stop (shutdown, lost lease) or the provider fails: then it
stops, counts the failure and retries at its next tick (a provider that is down costs one
request per tick, never a crash).

One bad text does not block the others (docs/search.md#when-a-provider-misbehaves): a batch the provider
refuses (:class:`InputRejected`: an HTTP error answer, or an unusable vector) is checked with
a probe text; if the probe is embedded, the batch is split in halves until the refused texts
are found. Those nodes are marked (``walker_state`` ``embedding:rejected:<model>``, by node and
content hash) and not sent again until their content changes or ``ctx-tree reembed``
retries them; if the probe fails too, the provider is failing, nothing is marked. A provider
that asked to wait (``Retry-After`` longer than one call waits) is left alone until then.

A store holding vectors of another model is left alone (``skipped_other_model``): mixing two
models' vectors would make them incomparable; ``ctx-tree reembed`` (:func:`embed_missing`
with ``replace=True``) replaces them. A model answering vectors of another length than the
store holds under its name fails with :class:`DimensionsChanged`, which ``reembed`` fixes by
replacing that model's vectors.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctx_tree_schema import Config, Node
from ctx_tree_store import DimensionMismatch, InvalidVector, Store, VectorUnavailable

from ._common import KeepGoing, always
from ._providers import DimensionsChanged, EmbeddingProvider, InputRejected, ProviderUnavailable

#: The text sent to tell a refused input from a failing provider.
PROBE_TEXT = "ctx-tree probe: a short plain sentence."
REJECTED = "embedding:rejected:"
#: ``{"kind", "message", "at", "until"?}`` of the last provider problem; absent when fine.
PROBLEM = "embedding:problem"
#: At most this many refused nodes are remembered per model (the oldest are forgotten).
MAX_REJECTED = 5000


def problem(store: Store) -> dict[str, object] | None:
    """The embedding provider's last problem as the walker recorded it, or None (doctor):
    ``kind`` ``dimensions``, ``rate-limited`` or ``failing``, ``message``, ``at`` (epoch ms),
    ``until`` (epoch ms, rate-limited only), ``rejected`` (nodes refused, any kind)."""
    raw = store.walker_state(PROBLEM)
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def rejected(store: Store, model: str) -> dict[str, list[str]]:
    """``{node id: [content hash, reason]}`` of the nodes ``model``'s provider refused."""
    raw = store.walker_state(REJECTED + model)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _set_problem(store: Store, value: dict[str, object] | None) -> None:
    """Record (or clear) the problem, writing only when it changed."""
    old = problem(store)
    if value is None:
        if old is not None:
            store.set_walker_state(PROBLEM, "")
        return
    if old is None or any(old.get(k) != value.get(k) for k in ("kind", "message", "until")):
        store.set_walker_state(PROBLEM, json.dumps(value))


@dataclass(slots=True)
class EmbeddingReport:
    """What one indexer run (or one ``reembed``) did."""

    model: str = ""
    embedded: int = 0
    batches: int = 0
    failed: str = ""
    skipped_other_model: str = ""
    dropped_other: int = 0
    dropped_changed: int = 0
    rejected: int = 0
    limited: str = ""
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
        if self.dropped_changed:
            text += f", {self.dropped_changed} vectors of {self.model} of another length replaced"
        if self.rejected:
            text += (
                f"; {self.rejected} nodes refused by the provider (marked, not sent again "
                "until they change)"
            )
        if self.limited:
            text += f"; {self.limited}"
        if self.failed:
            text += f"; provider failed: {self.failed} (retried next tick)"
        return text + (" — stopped early" if self.stopped else "")


class _Isolator:
    """Embeds one batch, finding the inputs the provider refuses (see the module doc)."""

    def __init__(self, provider: EmbeddingProvider) -> None:
        self.provider = provider
        self.probed: bool | None = None

    def provider_works(self) -> bool:
        """Whether the provider embeds :data:`PROBE_TEXT` (asked once per run)."""
        if self.probed is None:
            try:
                self.provider.embed([PROBE_TEXT])
                self.probed = True
            except ProviderUnavailable:
                self.probed = False
        return self.probed

    def embed(self, texts: Sequence[str]) -> tuple[dict[int, list[float]], dict[int, str]]:
        """``(vectors, refused)`` by index into ``texts``. Raises ``ProviderUnavailable``
        when the provider fails for everything (the probe too)."""
        try:
            return dict(enumerate(self.provider.embed(texts))), {}
        except InputRejected as exc:
            got = dict(exc.vectors)
            bad = {i: str(exc) for i in exc.bad}
            rest = [i for i in range(len(texts)) if i not in got and i not in bad]
            if not bad and not self.provider_works():
                raise ProviderUnavailable(
                    f"{exc} (and a probe text failed too: the provider is failing)",
                    status=exc.status,
                ) from None
            if rest and len(rest) == len(texts) == 1:
                bad[0] = str(exc)
            elif rest:
                halves = [rest] if bad else [rest[: len(rest) // 2], rest[len(rest) // 2 :]]
                for part in (p for p in halves if p):
                    vectors, refused = self.embed([texts[i] for i in part])
                    got.update((part[k], v) for k, v in vectors.items())
                    bad.update((part[k], why) for k, why in refused.items())
            return got, bad


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

    ``replace`` (``ctx-tree reembed``): also replace vectors of other models, and of this
    model when it now answers another length (a probe text tells), retry the nodes the
    provider refused before, and at the end drop the other models' vectors left on nodes that
    are not live or pending. Without it, a store holding another model's vectors is skipped,
    and a length change fails naming ``ctx-tree reembed``. ``progress(done,
    remaining_estimate)`` is called after each batch. Resumable: every batch is committed on
    its own, so a run cut short continues where it stopped.
    """
    model = provider.model
    report = EmbeddingReport(model=model)
    if not replace:
        other = store.other_vector_model(model)
        if other is not None:
            report.skipped_other_model = other
            return report
    isolator = _Isolator(provider)
    refused = {} if replace else rejected(store, model)
    stored_dims = store.vector_dimensions(model) if _has_vectors(store) else None
    if replace and stored_dims is not None:
        try:
            report.dropped_changed = _replace_changed(store, provider, stored_dims)
        except ProviderUnavailable as exc:
            report.failed = str(exc)
            return report
        if report.dropped_changed:
            stored_dims = None
    size = max(1, int(batch_size))
    after = 0
    while True:
        batch = store.missing_vectors(model, limit=size, after_rowid=after)
        if not batch:
            break
        after = batch[-1][0]
        todo: list[Node] = [
            node for _, node in batch if refused.get(node.id, [""])[0] != node.content_hash
        ]
        if not todo:
            continue
        started = time.monotonic()
        try:
            vectors, bad = isolator.embed([node.content for node in todo])
            report.seconds_in_provider += time.monotonic() - started
            got = [(todo[i].id, todo[i].content_hash, v) for i, v in sorted(vectors.items())]
            if got and stored_dims is not None and len(got[0][2]) != stored_dims:
                raise DimensionsChanged(
                    f"{model} now answers {len(got[0][2])}-dimension vectors, the store holds "
                    f"{stored_dims}-dimension ones of that name: run `ctx-tree reembed` to "
                    "replace them"
                )
            at = now_ms() if now_ms is not None else None
            report.embedded += store.put_vectors(model, got, at=at)
            if got and stored_dims is None:
                stored_dims = len(got[0][2])
            for i, why in bad.items():
                refused[todo[i].id] = [todo[i].content_hash, why[:240]]
            report.rejected += len(bad)
            if bad:
                _save_rejected(store, model, refused)
        except (
            ProviderUnavailable,
            DimensionMismatch,
            InvalidVector,
            VectorUnavailable,
            ValueError,
        ) as exc:
            report.failed = str(exc)
            _note_failure(store, exc, now_ms)
            break
        report.batches += 1
        if progress is not None:
            progress(report.embedded, store.vector_backlog(model))
        if not keep_going():
            report.stopped = True
            return report
    if replace and not report.failed:
        report.dropped_other = store.drop_other_vectors(model)
        # every mark was tried again: what is refused now replaces the old list
        if refused or rejected(store, model):
            _save_rejected(store, model, refused)
    if not report.failed:
        _set_problem(store, None)
    return report


def _has_vectors(store: Store) -> bool:
    try:
        return bool(store.vector_models())
    except Exception:  # no vector table yet: nothing stored
        return False


def _replace_changed(store: Store, provider: EmbeddingProvider, stored_dims: int) -> int:
    """``reembed``: when the model now answers another length than the store holds under
    its name, drop its vectors (they cannot be compared with new ones); how many."""
    probe = provider.embed([PROBE_TEXT])
    if probe and len(probe[0]) != stored_dims:
        return store.drop_model_vectors(provider.model)
    return 0


def _save_rejected(store: Store, model: str, refused: dict[str, list[str]]) -> None:
    items = list(refused.items())[-MAX_REJECTED:]
    store.set_walker_state(REJECTED + model, json.dumps(dict(items)))


def _note_failure(store: Store, exc: Exception, now_ms: Callable[[], int] | None) -> None:
    """Record the failure for ``doctor`` (and the wait a provider asked for)."""
    at = now_ms() if now_ms is not None else int(time.time() * 1000)
    value: dict[str, object] = {"kind": "failing", "message": str(exc)[:300], "at": at}
    if isinstance(exc, DimensionsChanged | DimensionMismatch):
        value["kind"] = "dimensions"
    elif isinstance(exc, ProviderUnavailable) and exc.retry_after_s:
        value["kind"] = "rate-limited"
        value["until"] = at + int(exc.retry_after_s * 1000)
    with contextlib.suppress(Exception):  # the record is for doctor; the outcome stands
        _set_problem(store, value)


def index_embeddings(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    provider: EmbeddingProvider | None = None,
) -> EmbeddingReport:
    """The ``embedding`` walker: :func:`embed_missing` with ``walkers.embeddingBatchSize``;
    does nothing without a provider, nor before the time a rate-limited provider gave."""
    if provider is None:
        return EmbeddingReport()
    last = problem(store)
    until = last.get("until") if last and last.get("kind") == "rate-limited" else None
    if isinstance(until, int) and now_ms < until:
        report = EmbeddingReport(model=provider.model)
        report.limited = (
            f"rate-limited by the provider: next request after "
            f"{time.strftime('%H:%M:%S UTC', time.gmtime(until / 1000))}"
        )
        return report
    return embed_missing(
        store,
        provider,
        batch_size=int(config.data["walkers"]["embeddingBatchSize"]),
        keep_going=keep_going,
        now_ms=lambda: now_ms,
    )
