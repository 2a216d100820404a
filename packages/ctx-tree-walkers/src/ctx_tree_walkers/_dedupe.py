"""The dedupe walker (docs/walkers.md): near-duplicate live nodes become one.

Each run walks the vectors of the provider's model added since its last run (a rowid cursor
kept in ``walker_state``), 200 per batch. For each live node of a dedupable kind it asks the
store for its nearest live neighbours of the same kind; those at cosine similarity
``walkers.dedupeThreshold`` (0.97) or more, whose words also overlap by :data:`WORD_OVERLAP`
or more (Jaccard of their sets of lower-cased words: a provider that answers alike vectors for
unlike texts, broken or not, cannot merge them), form a group with it. The newest node of the group
stays live and **supersedes** the others (``supersedes`` edges, status ``superseded``), so
search shows one of them; the pruner ages the others out like any superseded node.

File chunks, sessions and summaries are never deduplicated: chunks are versioned by the read
path (a changed file supersedes its old tree), and two near-identical functions in two files
are two places the agent may need.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctx_tree_schema import Config, Filters, NodeKind, NodeStatus
from ctx_tree_store import IllegalTransition, NodeNotFound, Store, VectorUnavailable

from ._common import KeepGoing, always
from ._providers import EmbeddingProvider

DEDUPE_KINDS: tuple[NodeKind, ...] = tuple(
    k for k in NodeKind if k not in (NodeKind.FILE_CHUNK, NodeKind.SESSION, NodeKind.SUMMARY)
)
BATCH = 200
#: Least share of words two near-duplicates have in common (|A ∩ B| / |A ∪ B|).
WORD_OVERLAP = 0.6
_WORD = re.compile(r"\w+")
NEIGHBOURS = 5
CURSOR = "dedupe:cursor:"


@dataclass(slots=True)
class DedupeReport:
    checked: int = 0
    superseded: int = 0
    groups: int = 0
    off: bool = False
    failed: str = ""
    stopped: bool = False

    def summary(self) -> str:
        if self.off:
            return "off (no embedding provider configured)"
        text = (
            f"checked {self.checked} nodes: {self.superseded} near-duplicates superseded "
            f"in {self.groups} groups"
        )
        if self.failed:
            text += f"; {self.failed}"
        return text + (" — stopped early" if self.stopped else "")


def dedupe(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    provider: EmbeddingProvider | None = None,
) -> DedupeReport:
    """One dedupe run over the vectors added since the last one (see the module doc)."""
    report = DedupeReport()
    if provider is None:
        report.off = True
        return report
    model = provider.model
    threshold = float(config.data["walkers"]["dedupeThreshold"])
    key = CURSOR + model
    cursor = int(store.walker_state(key) or 0)
    kinds = [k.value for k in DEDUPE_KINDS]
    while True:
        batch = store.live_vectors_after(model, cursor, BATCH, kinds)
        if not batch:
            break
        for _rowid, node in batch:
            report.checked += 1
            current = store.get(node.id)
            vector = store.vector_of(node.id, model)
            if vector is None or current is None or current.status is not NodeStatus.LIVE:
                continue  # superseded by an earlier group of this run, or gone
            try:
                near = store.vector_search(
                    model,
                    vector,
                    NEIGHBOURS,
                    Filters(status=(NodeStatus.LIVE,), kind=(node.kind,)),
                )
            except VectorUnavailable as exc:
                report.failed = str(exc)
                return report
            close = [h for h in near if h.node.id != node.id and h.similarity >= threshold]
            if not close:
                continue  # most nodes: no word is split (their text may be 100 KB)
            words = _words(current.content)
            group = [node.id] + [
                h.node.id for h in close if _overlap(words, _words(h.node.content)) >= WORD_OVERLAP
            ]
            if len(group) < 2:
                continue
            keep = max(group)  # ULIDs sort by creation: the newest stays live
            try:
                store.supersede(keep, [g for g in group if g != keep])
            except (IllegalTransition, NodeNotFound):
                continue  # changed meanwhile (a read, the pruner): the next run sees it again
            report.groups += 1
            report.superseded += len(group) - 1
        cursor = batch[-1][0]
        store.set_walker_state(key, str(cursor))
        if not keep_going():
            report.stopped = True
            break
    return report


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _overlap(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two word sets (1.0 for two empty ones)."""
    return len(a & b) / len(a | b) if a or b else 1.0
