"""ctx-tree's background walkers (docs/walkers.md): filter, staleness marker and pruner; the
embedding indexer, dedupe and summarizer when their providers are given.

* :class:`Coordinator` runs them on their intervals inside a server's asyncio loop, with the
  database work in a worker thread on its own connection and a cross-process lease per walker.
* :func:`run_once` runs them once, synchronously (``ctx-tree walk``).
* :class:`EmbeddingProvider` / :class:`SummarizerProvider` are the provider interfaces; the
  HTTP implementations live in ``ctx_tree_mcp.providers`` and are injected.

See ``docs/walkers.md``. Everything public is in ``__all__``.
"""

from __future__ import annotations

import ctx_tree_store
from ctx_tree_schema import Config
from ctx_tree_store import Store

from ._common import KeepGoing, Yielder, polite, record_run, walker_interval_ms
from ._coordinator import (
    FIRST_DELAY_MS,
    LEASE_PREFIX,
    PROVIDER_WALKERS,
    WALKER_NAMES,
    WALKERS,
    Coordinator,
    WalkerState,
    bind_providers,
    default_holder,
)
from ._dedupe import DEDUPE_KINDS, DedupeReport, dedupe
from ._embedding import EmbeddingReport, embed_missing, index_embeddings
from ._embedding import problem as embedding_problem
from ._embedding import rejected as rejected_nodes
from ._filter import FilterReport, classify, filter_pending, is_progress_line, noise_reason
from ._providers import (
    DimensionsChanged,
    EmbeddingProvider,
    InputRejected,
    ProviderUnavailable,
    SummarizerProvider,
    SummaryFailed,
    SummaryResult,
)
from ._pruner import PrunerReport, prune
from ._staleness import StalenessReport, check_root, mark_stale, source_path
from ._summarizer import SummarizerReport, summarize_subtrees, summarizer_problem, tokens_used


def run_once(
    store: Store,
    config: Config,
    which: str = "all",
    *,
    now_ms: int | None = None,
    embedder: EmbeddingProvider | None = None,
    summarizer: SummarizerProvider | None = None,
) -> dict[str, str]:
    """Run one walker (a name of :data:`WALKER_NAMES`) or ``all`` of them once, in that
    order, on ``store``; returns ``{walker: one-line summary}``. ``embedding`` and ``dedupe``
    need ``embedder``, ``summarizer`` needs ``summarizer``; without it they report ``off``.

    ``now_ms`` (epoch ms, default: now) is the time the walkers act at: the pruner's retention
    horizons count back from it and status changes are stamped with it. No lease is taken: a
    manual run may overlap a server's, which is safe (every batch re-checks the rows it changes
    inside its transaction) but may do some work twice. A run that changed something is
    recorded in the store's ``walker_runs`` (:func:`record_run`). Raises ``ValueError`` for another name.
    """
    if which == "all":
        names = list(WALKER_NAMES)
    elif which in WALKER_NAMES:
        names = [which]
    else:
        raise ValueError(f"unknown walker {which!r}; one of: {', '.join(WALKER_NAMES)}, all")
    at = ctx_tree_store.now_ms() if now_ms is None else int(now_ms)
    bound = {**WALKERS, **bind_providers(embedder, summarizer)}
    out: dict[str, str] = {}
    for name in names:
        started = ctx_tree_store.now_ms()
        report = bound[name](store, config, now_ms=at, keep_going=polite())
        record_run(store, name, started, ctx_tree_store.now_ms(), report)
        out[name] = report.summary()
    return out


__all__ = [
    "DEDUPE_KINDS",
    "FIRST_DELAY_MS",
    "LEASE_PREFIX",
    "PROVIDER_WALKERS",
    "WALKERS",
    "WALKER_NAMES",
    "Coordinator",
    "DedupeReport",
    "DimensionsChanged",
    "EmbeddingProvider",
    "EmbeddingReport",
    "FilterReport",
    "InputRejected",
    "KeepGoing",
    "ProviderUnavailable",
    "PrunerReport",
    "StalenessReport",
    "SummarizerProvider",
    "SummarizerReport",
    "SummaryFailed",
    "SummaryResult",
    "WalkerState",
    "Yielder",
    "bind_providers",
    "check_root",
    "classify",
    "dedupe",
    "default_holder",
    "embed_missing",
    "embedding_problem",
    "filter_pending",
    "index_embeddings",
    "is_progress_line",
    "mark_stale",
    "noise_reason",
    "polite",
    "prune",
    "record_run",
    "rejected_nodes",
    "run_once",
    "source_path",
    "summarize_subtrees",
    "summarizer_problem",
    "tokens_used",
    "walker_interval_ms",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-walkers")
