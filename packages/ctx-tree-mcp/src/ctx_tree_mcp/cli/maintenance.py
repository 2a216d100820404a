"""``ctx-tree walk``, ``stats``, ``stores`` and ``forget``: run walkers once, report what the
stores hold, and delete a project's store."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App


def walk(app: App, which: str = "all") -> str:
    """Run one walker (``capture``, ``filter``, ``staleness``, ``pruner``, ``embedding``,
    ``dedupe``, ``summarizer``) or ``all`` once (the capture ingest first), with the configured
    providers; returns a report, one line per walker, e.g. ``filter: 3 promoted (1 ranked low: 1
    too small, 0 noise; 0 superseded an older copy)``.

    No lease is taken (see ``ctx_tree_walkers.run_once``): running it next to a server is safe
    (a spooled event is claimed by one ingester only).
    """
    from ctx_tree_walkers import run_once

    from ctx_tree_mcp.capture.ingest import WALKER, ingest

    started = time.perf_counter()
    reports: dict[str, str] = {}
    if which in ("all", WALKER):
        reports[WALKER] = ingest(app).summary()
    if which != WALKER:
        reports.update(run_once(app.store, app.config, which, **app.walker_providers()))
    took = (time.perf_counter() - started) * 1000
    width = max(len(name) for name in reports)
    lines = [f"{(name + ':').ljust(width + 1)} {summary}" for name, summary in reports.items()]
    lines.append(f"({took:.0f} ms on {app.store_file})")
    return "\n".join(lines) + "\n"


def index(app: App, progress: bool = False) -> str:
    """``ctx-tree index``: bring the project index up to date now (docs/index.md), with a
    progress bar on stderr when ``progress``; returns the run's one-line summary. Runs even
    when ``index.enabled`` is false (the switch is the server's)."""
    import sys

    from ctx_tree_mcp.engines.files.indexer import IndexState, index_project, record, summary

    bar = None
    state = IndexState()

    def show(st: IndexState) -> None:
        nonlocal bar
        if not progress or st.phase != "indexing":
            return
        if bar is None:
            from tqdm import tqdm

            bar = tqdm(total=st.todo, unit="file", file=sys.stderr, desc="indexing")
        bar.update(st.done - bar.n)

    try:
        index_project(app.store, app.root, app.policy, app.config, state=state, progress=show)
    finally:
        if bar is not None:
            bar.close()
    record(app.store, state)
    return summary(state) + "\n"


def stats(app: App) -> str:
    """Counts by kind × status, store size on disk, and tokens served against what the same
    calls would have returned natively (the sources read or grepped, as numbered lines)."""
    from ctx_tree_store import disk_bytes
    from tabulate import tabulate

    from ctx_tree_mcp.answers.budget import tokens_for_chars
    from ctx_tree_mcp.answers.render import plural, size_text
    from ctx_tree_mcp.engines.files.indexer import status_lines

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
        f"store: {app.store_file} ({size_text(disk_bytes(app.store_file))} on disk)\n\n"
        + tabulate(rows, headers=["kind", *statuses])
        + f"\n\ntokens stored (chars/4): {tokens_for_chars(stored_chars):,}\n"
        f"tokens served: {served:,}; the whole sources would have been {source:,}{share}\n"
        f"calls: {plural(counters.get('reads', 0), 'read')}, {plural(counters.get('greps', 0), 'grep')}\n"
        + routed_table(app)
        + "".join(f"{line}\n" for line in status_lines(app.store, app.root, app.config))
    )


def routed_table(app: App) -> str:
    """Per kind of routed command (docs/routing.md): how many, the tokens the host would have
    passed the model and what it passed; ``""`` when nothing was routed."""
    from ctx_tree_store import browse
    from tabulate import tabulate

    per: dict[str, dict[str, int]] = {}
    for _day, tool, name, value in browse.usage_since(app.store, "0000-00-00"):
        if tool.startswith("route:"):
            counts = per.setdefault(tool.removeprefix("route:"), {})
            counts[name] = counts.get(name, 0) + value
    if not per:
        return ""
    rows = []
    for kind in sorted(per):
        c = per[kind]
        source, served = c.get("tokens_source", 0), c.get("tokens_served", 0)
        share = f"{served / source:.2f}" if source else "-"
        rows.append([kind, c.get("routed", 0), f"{source:,}", f"{served:,}", share])
    table = tabulate(rows, headers=["routed", "commands", "native tokens", "passed", "ratio"])
    return f"\n{table}\n\n"


def _size(size: int) -> str:
    from ctx_tree_mcp.answers.render import size_text

    return size_text(size)


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000)) if ms else "never"


def _short(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def stores(home: Path | None = None, current: Path | None = None) -> str:
    """A table of every store under ``home`` (default ``$CTX_TREE_HOME``): project path,
    size on disk, node count, last use, directory; most recently used first. ``current`` (a
    store file) is marked ``*``."""
    from ctx_tree_store import ctx_tree_home, list_stores
    from tabulate import tabulate

    home = home or ctx_tree_home()
    found = list_stores(home)
    spools = _spools_table(home)
    if not found:
        return f"no stores in {home}\n" + spools
    rows = [
        [
            ("* " if s.path == current else "")
            + (s.project or "?")
            + (" (gone)" if s.project and not Path(s.project).exists() else ""),
            _size(s.size_bytes),
            "?" if s.nodes is None else f"{s.nodes:,}",
            _when(s.last_used_ms),
            _short(s.path.parent) + (f" ({s.error})" if s.error else ""),
        ]
        for s in found
    ]
    total = sum(s.size_bytes for s in found)
    return (
        tabulate(rows, headers=["project", "size", "nodes", "last use", "store"])
        + f"\n\n{len(found)} store{'s' if len(found) != 1 else ''}, {_size(total)} in {home}"
        + ("; * this project" if current in {s.path for s in found} else "")
        + "\n"
        + (
            "a project marked (gone) no longer exists there: `ctx-tree forget STORE` deletes "
            "its store\n"
            if any(s.project and not Path(s.project).exists() for s in found)
            else ""
        )
        + spools
    )


def _spools_table(home: Path) -> str:
    """The capture spools under ``home`` (plugin hooks' queues), for ``ctx-tree stores``:
    project (``(gone)`` when its directory is gone), events waiting, last write. '' when none."""
    from tabulate import tabulate

    from ctx_tree_mcp.capture.spool import ORPHAN_AGE_S, SPOOL_MAX_AGE_S, list_spools

    found = list_spools(home)
    if not found:
        return ""
    rows = [
        [
            (s.project or "?") + (" (gone)" if s.orphaned else ""),
            f"{s.waiting:,}",
            _when(int(s.last_write * 1000)),
            _short(s.path),
        ]
        for s in found
    ]
    return (
        "\ncapture spools (events the plugin's hooks wrote, waiting to be ingested):\n"
        + tabulate(rows, headers=["project", "waiting", "last write", "spool"])
        + f"\na server sweeps spools idle {SPOOL_MAX_AGE_S // 86400} days, or "
        f"{ORPHAN_AGE_S // 3600} h when the project is gone; `ctx-tree forget PROJECT` "
        "removes one now\n"
    )


def forget_plan(target: Path, home: Path | None = None) -> tuple[list[Path], list[Path]]:
    """What :func:`forget` would delete: ``(store files, spool folders)``."""
    from ctx_tree_store import STORE_FILE, ctx_tree_home, describe, project_stores

    from ctx_tree_mcp.app import spool_dir

    home = home or ctx_tree_home()
    target = target.expanduser().resolve()
    if (target / STORE_FILE).is_file() and target.parent == home.resolve():
        paths = [target / STORE_FILE]
        project = describe(paths[0]).project
        projects = [Path(project)] if project else []
    else:
        paths = project_stores(target, home)
        projects = [target]
    spools = [d for d in {spool_dir(home, p) for p in projects} if d.is_dir()]
    return paths, spools


def forget(target: Path, home: Path | None = None) -> str:
    """Delete everything ctx-tree keeps of the project at ``target``: its store(s) (its
    current store and any left under a 0.1.0 hash) and its capture spool, so events still
    waiting there are not ingested into a new store; or the store directory ``target``
    itself and its project's spool. Safe while servers run (see ``ctx_tree_store.forget``).
    Returns one line per store or spool removed."""
    from ctx_tree_store import ctx_tree_home, project_dir
    from ctx_tree_store import forget as forget_store

    from ctx_tree_mcp.capture.spool import remove

    home = home or ctx_tree_home()
    paths, spools = forget_plan(target, home)
    if not paths and not spools:
        return f"no store for {project_dir(target.expanduser().resolve())} in {home}; nothing to forget\n"
    lines = []
    for path in paths:
        info = forget_store(path)
        nodes = "?" if info.nodes is None else f"{info.nodes:,}"
        lines.append(
            f"forgot {info.project or project_dir(target)}: removed {path.parent} "
            f"({nodes} nodes, {_size(info.size_bytes)})"
        )
    for folder in spools:
        waiting = remove(folder)
        lines.append(f"removed its capture spool {folder} ({waiting:,} events not yet ingested)")
    return "\n".join(lines) + "\n"
