"""``ctx-tree walk`` and ``ctx-tree stats``: run walkers once, and report what the store holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import App


def walk(app: App, which: str = "all") -> str:
    """Run one walker (``filter``, ``staleness``, ``pruner``) or ``all`` once; returns a report,
    one line per walker, e.g. ``filter: 3 promoted, 1 dropped (1 too small, 0 duplicate, 0 noise)``.

    No lease is taken (see ``ctx_tree_walkers.run_once``): running it next to a server is safe.
    """
    import time

    from ctx_tree_walkers import run_once

    started = time.perf_counter()
    reports = run_once(app.store, app.config, which)
    took = (time.perf_counter() - started) * 1000
    width = max(len(name) for name in reports)
    lines = [f"{(name + ':').ljust(width + 1)} {summary}" for name, summary in reports.items()]
    lines.append(f"({took:.0f} ms on {app.store_file})")
    return "\n".join(lines) + "\n"


def stats(app: App) -> str:
    """Counts by kind × status, store size on disk, and tokens served against what the same
    calls would have returned natively (the sources read or grepped, as numbered lines)."""
    from tabulate import tabulate

    app.flush_counters()
    counts = app.store.counts()
    counters = app.store.counters()
    statuses = ["pending", "live", "stale", "superseded", "pruned"]
    rows = [
        [k, *(counts.get((k, s), (0, 0))[0] for s in statuses)]
        for k in sorted({k for k, _ in counts})
    ]
    stored_chars = sum(b for (_k, s), (_c, b) in counts.items() if s != "pruned")
    served = counters.get("tokens_served", 0)
    source = counters.get("tokens_source", 0)
    share = f" ({served * 100 // source}% of it)" if source else ""
    return (
        f"store: {app.store_file} ({app.store.size_bytes() / 1e6:.1f} MB on disk)\n\n"
        + tabulate(rows, headers=["kind", *statuses])
        + f"\n\ntokens stored (chars/4): {stored_chars // 4:,}\n"
        f"tokens served: {served:,}; the whole sources would have been {source:,}{share}\n"
        f"calls: {counters.get('reads', 0)} reads, {counters.get('greps', 0)} greps\n"
    )
