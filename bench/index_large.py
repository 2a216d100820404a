"""The project index on a tree of 10k+ files: time, store size and peak memory.

    uv run python bench/index_large.py                  # stdlib + Django + SymPy + site-packages
    uv run python bench/index_large.py --wheels a.whl b.whl --min-files 12000

The tree is made of public sources: every file of the CPython standard library (tests
included), the files of the Django 5.1.4 and SymPy 1.13.3 wheels (from PyPI with
``pip download``, unless ``--wheels`` are given), and then files of this environment's
site-packages until ``--min-files``. It is copied into a temporary project (not a git work
tree), indexed cold with ``index_project`` (as ``ctx-tree index`` does), then warm. Prints
files listed/stored/skipped, wall time, store size (``store.db*``) against the text stored,
and the peak RSS of the writing process (``ru_maxrss``) and of the largest worker process
(``VmHWM``, sampled every 0.5 s: a spawned child's ``ru_maxrss`` counts its parent's pages
at the fork).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import zipfile
from pathlib import Path

WHEELS = ("django==5.1.4", "sympy==1.13.3")


def fetch_wheels(cache: Path) -> list[Path]:
    cache.mkdir(parents=True, exist_ok=True)
    have = sorted(cache.glob("*.whl"))
    if len(have) >= len(WHEELS):
        return have
    import importlib.util

    pip = [sys.executable, "-m", "pip"] if importlib.util.find_spec("pip") else ["pip"]
    subprocess.run(
        [*pip, "download", "--no-deps", "--only-binary", ":all:", *WHEELS, "-d", str(cache)],
        check=True,
    )
    return sorted(cache.glob("*.whl"))


def build_tree(proj: Path, wheels: list[Path], min_files: int) -> int:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    count = 0
    for src in sorted(stdlib.rglob("*")):
        rel = src.relative_to(stdlib)
        if "site-packages" in rel.parts or "__pycache__" in rel.parts or not src.is_file():
            continue
        if src.is_symlink():
            continue
        dst = proj / "cpython" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        count += 1
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(proj / wheel.name.split("-")[0].lower())
            count += len([n for n in z.namelist() if not n.endswith("/")])
    site = Path(sysconfig.get_paths()["purelib"])
    for src in sorted(site.rglob("*")):
        if count >= min_files:
            break
        rel = src.relative_to(site)
        if "__pycache__" in rel.parts or not src.is_file() or src.is_symlink():
            continue
        dst = proj / "site" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        count += 1
    return count


def _hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


def sample_workers(stop: threading.Event, peak: list[int]) -> None:
    """The largest VmHWM (peak RSS after exec) of this process's children, every 0.5 s."""
    while not stop.wait(0.5):
        for child in _children(os.getpid()):
            peak[0] = max(peak[0], _hwm_kb(child))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, nargs="*", help="wheels to add (default: download)")
    ap.add_argument("--min-files", type=int, default=10_500)
    ap.add_argument("--workers", type=int, default=None, help="default: index.workers")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "ctx-tree-bench")
    args = ap.parse_args()
    wheels = args.wheels if args.wheels else fetch_wheels(args.cache)
    work = Path(tempfile.mkdtemp(prefix="ctx-index-large-"))
    os.environ["CTX_TREE_HOME"] = str(work / "home")
    proj = work / "proj"
    n = build_tree(proj, wheels, args.min_files)

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.files.indexer import index_project

    app = App(proj)
    peak = [0]
    stop = threading.Event()
    sampler = threading.Thread(target=sample_workers, args=(stop, peak), daemon=True)
    sampler.start()
    try:
        t = time.perf_counter()
        cold = index_project(app.store, proj, app.policy, app.config, workers=args.workers)
        cold_s = time.perf_counter() - t
        stop.set()
        t = time.perf_counter()
        warm = index_project(app.store, proj, app.policy, app.config, workers=args.workers)
        warm_s = time.perf_counter() - t
        stored_chars = app.store.con.execute(
            "SELECT sum(original_bytes) FROM nodes WHERE kind = 'file_chunk' "
            "AND parent_id IS NULL AND status = 'live'"
        ).get
        chunks = app.store.con.execute("SELECT count(*) FROM nodes WHERE status = 'live'").get
    finally:
        app.close()
    store_bytes = sum(f.stat().st_size for f in (work / "home").rglob("store.db*"))
    self_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_mb = peak[0] / 1024
    print(f"tree: {n:,} files copied; listed {cold.listed:,}, capped {cold.capped}")
    print(
        f"index, cold: {cold_s:.1f} s wall; {cold.stored:,} stored, {cold.skipped:,} skipped "
        f"(binary or undecodable), {cold.too_big} over index.maxFileBytes; {chunks:,} live nodes"
    )
    print(f"index, warm (nothing changed): {warm_s:.2f} s ({warm.unchanged:,} unchanged)")
    print(
        f"store: {store_bytes / 1e6:.1f} MB for {stored_chars / 1e6:.1f} MB of stored files "
        f"({store_bytes / stored_chars:.2f}x)"
    )
    print(
        f"peak RSS: writing process {self_mb:.0f} MB, largest worker {child_mb:.0f} MB; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
