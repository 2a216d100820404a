"""Benchmark the project index against tree-sitter parsing alone, side by side in one run.

    uv run python bench/index.py                 # 700 stdlib .py files (tests left out)
    uv run python bench/index.py --files 300 --workers 1

The same files are copied into a temporary project; then, in this order and in one process:

1. the baseline: one tree-sitter parse of every file, single process (parser only, no
   chunking, no storing);
2. ``index_project`` into a fresh store (a cold run: every file read, redacted, chunked and
   stored), wall-clock and this process's CPU;
3. a warm run (nothing changed: the stat comparison only);
4. one file edited, then an incremental run (write to chunks live);

and prints the ratios: index time / parse time, and store size (``store.db*``) / sources.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sysconfig
import tempfile
import time
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SKIP = {"site-packages", "test", "tests", "idle_test"}


def stdlib_files(n: int) -> list[Path]:
    found = sorted(p for p in STDLIB.rglob("*.py") if not SKIP & set(p.relative_to(STDLIB).parts))
    return found[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=700)
    ap.add_argument("--workers", type=int, default=None, help="default: index.workers")
    ap.add_argument(
        "--breakdown", action="store_true", help="print the store's bytes per table and index"
    )
    ap.add_argument("--keep", action="store_true", help="leave the temporary project and store")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ctx-index-bench-"))
    os.environ["CTX_TREE_HOME"] = str(work / "home")
    proj = work / "proj"
    files = stdlib_files(args.files)
    for p in files:
        dst = proj / p.relative_to(STDLIB)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dst)
    datas = [p.read_bytes() for p in files]
    src_bytes = sum(map(len, datas))
    lines = sum(d.count(b"\n") for d in datas)

    from tree_sitter_language_pack import get_parser

    parser = get_parser("python")
    parser.parse(datas[0])
    t = time.perf_counter()
    for d in datas:
        parser.parse(d)
    parse_s = time.perf_counter() - t

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.files.indexer import index_project

    app = App(proj)
    try:
        t, c = time.perf_counter(), time.process_time()
        cold = index_project(app.store, proj, app.policy, app.config, workers=args.workers)
        cold_s, cold_cpu = time.perf_counter() - t, time.process_time() - c
        t = time.perf_counter()
        index_project(app.store, proj, app.policy, app.config, workers=args.workers)
        warm_s = time.perf_counter() - t
        edited = proj / files[len(files) // 2].relative_to(STDLIB)
        t = time.perf_counter()
        edited.write_text(
            edited.read_text(encoding="utf-8") + "\ndef added_by_the_bench():\n    pass\n"
        )
        one = index_project(app.store, proj, app.policy, app.config, workers=args.workers)
        edit_s = time.perf_counter() - t
        assert one.stored == 1 and app.store.search("added_by_the_bench")
        breakdown = _breakdown(app.store) if args.breakdown else []
    finally:
        app.close()
    store_bytes = sum(f.stat().st_size for f in (work / "home").rglob("store.db*"))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"files: {len(files)} ({src_bytes / 1e6:.1f} MB, {lines:,} lines), stored {cold.stored}")
    print(f"tree-sitter parse alone, one process: {parse_s:.2f} s")
    print(
        f"index, cold: {cold_s:.2f} s wall ({cold_s / parse_s:.1f}x the parse), "
        f"{cold_cpu:.2f} s CPU in the writing process"
    )
    print(f"index, warm (nothing changed): {warm_s * 1000:.0f} ms")
    print(f"index after one edit (write to live): {edit_s * 1000:.0f} ms")
    print(f"store: {store_bytes / 1e6:.1f} MB ({store_bytes / src_bytes:.2f}x the sources)")
    print(
        f"peak RSS of the writing process: {peak_mb:.0f} MB; load average {os.getloadavg()[0]:.1f}"
    )
    for name, kb in breakdown:
        print(f"  {name:<32} {kb / 1e3:8.2f} MB")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


def _breakdown(store: object) -> list[tuple[str, int]]:
    """Bytes on disk per table and index (SQLite's dbstat), largest first, in KB."""
    con = store.con  # type: ignore[attr-defined]
    rows = con.execute(
        "SELECT name, sum(pgsize) / 1000 FROM dbstat GROUP BY name ORDER BY 2 DESC"
    ).fetchall()
    return [(str(n), int(kb)) for n, kb in rows]


if __name__ == "__main__":
    main()
