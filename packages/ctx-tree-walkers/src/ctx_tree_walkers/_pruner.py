"""The pruner (docs/walkers.md): age stale and superseded nodes out, then delete old pruned rows.

Per run, with ``now`` the run's time:

1. ``stale`` nodes last updated more than ``retention.staleHours`` ago → ``pruned``;
2. ``superseded`` nodes last updated more than ``retention.supersededDays`` ago → ``pruned``,
   only when their content is not lost by it (``Store.expired_replaceable``): file chunks (the
   file is on disk to be read again), summaries (made again from their children) and exact
   duplicates of the node that superseded them. An older run of a command, a near duplicate
   superseded by dedupe, stays ``superseded`` (gettable, searchable with a status filter): no
   stored output is deleted by a heuristic. A pruned node leaves the FTS index at once (the DDL's triggers index only non-pruned rows)
   but its row stays for audit;
3. ``pruned`` nodes last updated more than ``retention.prunedAuditDays`` ago are deleted with
   their edges (``Store.delete``; ``edges`` cascade). A pruned node that still has a child which
   is not pruned is kept until the child is (deleting it would turn the child into a root);
4. one ``PRAGMA incremental_vacuum`` step returns free pages to the file system.

Why not ``VACUUM``: the FTS5 table is *external content* keyed by ``nodes.rowid``; a full
``VACUUM`` may renumber the rowids of a table without an ``INTEGER PRIMARY KEY`` (``nodes`` has a
TEXT key), which would silently detach the index from its rows. It also rewrites the whole file
under an exclusive lock. The store is created with ``auto_vacuum=INCREMENTAL`` instead, so
freed pages can be handed back a step at a time without moving any row.

Every batch (``batch_size`` ids) is selected and changed inside one transaction, so a node
revived in between (a re-read turning stale → live) is never pruned by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctx_tree_schema import Config, NodeStatus
from ctx_tree_store import Store

from ._common import DAY_MS, HOUR_MS, KeepGoing, always

VACUUM_PAGES = 2000


@dataclass(slots=True)
class PrunerReport:
    """What one pruner run did."""

    pruned_stale: int = 0
    pruned_superseded: int = 0
    deleted: int = 0
    kept_for_children: int = 0
    pages_freed: int = 0
    stopped: bool = False

    def summary(self) -> str:
        text = (
            f"{self.pruned_stale + self.pruned_superseded} pruned "
            f"({self.pruned_stale} stale, {self.pruned_superseded} superseded), "
            f"{self.deleted} deleted past the audit horizon"
        )
        if self.kept_for_children:
            text += f" ({self.kept_for_children} kept: children not yet pruned)"
        if self.pages_freed:
            text += f", {self.pages_freed} free pages returned"
        return text + (" — stopped early" if self.stopped else "")


def _prune(
    store: Store, status: NodeStatus, before: int, now_ms: int, batch: int, keep_going: KeepGoing
) -> tuple[int, bool]:
    total = 0
    while True:
        with store.transaction():
            if status == NodeStatus.SUPERSEDED:
                ids = store.expired_replaceable(before, limit=batch)
            else:
                ids = store.expired(status, before, limit=batch)
            if ids:
                total += store.set_status(ids, NodeStatus.PRUNED, at=now_ms)
        if len(ids) < batch:
            return total, False
        if not keep_going():
            return total, True


def _deletable(store: Store, node_id: str) -> bool:
    child_ids = [i for i, via in store.adjacent(node_id) if via == "child"]
    if not child_ids:
        return True
    return all(s.status == NodeStatus.PRUNED.value for s in store.sizes(child_ids).values())


def _free_pages(store: Store) -> int:
    try:
        return store.free_pages()
    except Exception:  # pragma: no cover - a store without the pragma (never in practice)
        return 0


def prune(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    batch_size: int = 500,
) -> PrunerReport:
    """One pruner run; see the module docstring."""
    retention = config.data["retention"]
    report = PrunerReport()
    report.pruned_stale, stopped = _prune(
        store,
        NodeStatus.STALE,
        now_ms - int(retention["staleHours"]) * HOUR_MS,
        now_ms,
        batch_size,
        keep_going,
    )
    if not stopped:
        report.pruned_superseded, stopped = _prune(
            store,
            NodeStatus.SUPERSEDED,
            now_ms - int(retention["supersededDays"]) * DAY_MS,
            now_ms,
            batch_size,
            keep_going,
        )
    if not stopped:
        horizon = now_ms - int(retention["prunedAuditDays"]) * DAY_MS
        seen: set[str] = set()
        while True:
            with store.transaction():
                ids = [
                    i
                    for i in store.expired(NodeStatus.PRUNED, horizon, batch_size + len(seen))
                    if i not in seen
                ]
                batch = ids[:batch_size]
                doomed = [i for i in batch if _deletable(store, i)]
                seen.update(set(batch) - set(doomed))
                report.deleted += store.delete(doomed)
            if len(batch) < batch_size:
                break
            if not keep_going():
                stopped = True
                break
        report.kept_for_children = len(seen)
    if not stopped:
        before = _free_pages(store)
        store.vacuum_step(VACUUM_PAGES)
        report.pages_freed = max(0, before - _free_pages(store))
    report.stopped = stopped
    return report
