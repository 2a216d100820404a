"""The project index at the scale of big repositories, beside its floor, in one run.

    uv run --frozen python bench/index_scale.py                        # every repo below
    uv run --frozen python bench/index_scale.py --repos sphinx symfony
    uv run --frozen python bench/index_scale.py --repos generated --generated 100000
    PYTHONPATH=<an older checkout's src dirs> uv run --frozen python bench/index_scale.py

Each repository is a local git snapshot (``--mirrors``: ``<owner>+<name>/repo``, a bare git
directory) cloned (``--shared``, nothing copied) into a temporary work tree at its newest
commit; ``generated`` is a tree of ``--generated`` source files written by this script (no
git). For each, in this order, in one sitting:

1. **floor**: the files the index lists, read and parsed by tree-sitter in this process
   (the bare parse, no queries, no chunking, no store), CPU and wall;
2. **cold**: ``ctx-tree index`` into a fresh store, as a user runs it (a process of its own
   and the worker processes it starts): wall, CPU of all of them (``wait4``), peak RSS of all
   of them together (the sum of the tree's ``VmRSS``, sampled every 0.1 s), the store's size
   (``store.db*``) over the bytes of the files it holds;
3. **unchanged**: ``ctx-tree index`` again (nothing changed);
4. in this process (an ``App`` on the store, as the server's tools run): search p50, wall
   and CPU (CPU is what compares on a busy machine), of ``--queries`` short queries (a stored definition's name, with a word of its file's path
   for half of them) and of as many long ones (60 words of a stored chunk, as a pasted
   excerpt), the map (``ctx_tree_read('.')``, median of 3) and a cached read (p50);
5. **switch**: ``git checkout`` of an older commit that changes about ``--switch-files``
   files (a branch switch; for ``generated``: that many files edited and a tenth as many
   deleted), then ``ctx-tree index``: wall and CPU until it is live.

Ratios are to the floor's wall time. Wall figures are noisy on a shared machine; the CPU
figures and the ratios of a same sitting are what to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPOS = {
    "sphinx": "sphinx-doc+sphinx",
    "symfony": "symfony+symfony",
    "coreboot": "coreboot+coreboot",
    "u-boot": "u-boot+u-boot",
}


@dataclass
class Row:
    name: str
    files: int = 0
    mb: float = 0.0
    floor_s: float = 0.0
    floor_cpu: float = 0.0
    cold_s: float = 0.0
    cold_cpu: float = 0.0
    writer_cpu: float = 0.0
    stored: int = 0
    not_indexed: str = ""
    rss_mb: float = 0.0
    writer_mb: float = 0.0
    store_ratio: float = 0.0
    unchanged_s: float = 0.0
    switch_files: int = 0
    switch_s: float = 0.0
    switch_cpu: float = 0.0
    switch_summary: str = ""
    search_short_ms: float = 0.0
    search_long_ms: float = 0.0
    search_short_cpu_ms: float = 0.0
    search_long_cpu_ms: float = 0.0
    map_s: float = 0.0
    map_cpu: float = 0.0
    read_ms: float = 0.0
    notes: list[str] = field(default_factory=list)


# -- trees -------------------------------------------------------------------------------


def git(*args: str, cwd: Path | None = None) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, errors="replace"
    )
    return out.stdout


def clone(mirror: Path, dest: Path) -> str:
    """A work tree of ``mirror``'s newest commit at ``dest``; returns the commit."""
    head = git("-C", str(mirror), "rev-parse", "--verify", "-q", "HEAD^{commit}").strip()
    git("clone", "-q", "--shared", "--no-checkout", str(mirror), str(dest))
    git("-C", str(dest), "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", head)
    return head


def switch_target(tree: Path, head: str, want: int) -> tuple[str, int]:
    """An ancestor of ``head`` (first parents) whose diff to it names about ``want`` files."""
    chain = git("-C", str(tree), "rev-list", "--first-parent", "-n", "40000", head).split()

    def changed(i: int) -> int:
        out = git("-C", str(tree), "diff", "--no-renames", "--name-only", chain[i], head)
        return len(out.splitlines())

    lo, hi = 1, len(chain) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if changed(mid) < want:
            lo = mid
        else:
            hi = mid
    return chain[hi], changed(hi)


_PY = '''"""Module {i}: generated for the index benchmark."""
import os
from pkg{j} import helper_{k}


class Widget{i}:
    """A widget that holds {i} things."""

    def __init__(self, size: int = {i}) -> None:
        self.size = size
        self.items = [helper_{k}(n) for n in range(size % 17)]

    def render_{i}(self, out: list[str]) -> int:
        for item in self.items:
            out.append(f"{{item}}:{{self.size}}")
        return len(out)


def compute_{i}(values: list[int]) -> int:
    total = 0
    for v in values:
        if v % {m} == 0:
            total += v * {i}
        else:
            total -= helper_{k}(v)
    return total
'''
_C = """/* unit {i}: generated for the index benchmark */
#include <stdio.h>
#include "unit{j}.h"

struct record_{i} {{
    int id;
    const char *name;
    unsigned long flags;
}};

static int check_{i}(const struct record_{i} *r)
{{
    if (!r || r->id < 0)
        return -1;
    return (int)(r->flags & {m}u);
}}

int process_{i}(struct record_{i} *rs, int n)
{{
    int bad = 0;
    for (int x = 0; x < n; x++)
        bad += check_{i}(&rs[x]) < 0;
    printf("unit {i}: %d bad of %d\\n", bad, n);
    return helper_{k}(bad);
}}
"""
_MD = """# Note {i}

Part {j} of the generated documentation. It describes `compute_{k}` and the
widgets of module {i}: how they render, how many items they hold ({m}), and why.

## Usage

Call `process_{i}` with the records; it returns the count of bad ones.
"""


def generate(dest: Path, n: int) -> None:
    """``n`` files (Python, C and Markdown, 3:2:1) in a nested tree of 100-file folders."""
    rnd = random.Random(46)
    for i in range(n):
        d = dest / f"part{i // 10_000}" / f"pkg{(i // 100) % 100}"
        if i % 100 == 0:
            d.mkdir(parents=True, exist_ok=True)
        j, k, m = rnd.randrange(1000), rnd.randrange(1000), rnd.randrange(2, 97)
        kind = i % 6
        if kind < 3:
            text, ext = _PY.format(i=i, j=j, k=k, m=m), "py"
        elif kind < 5:
            text, ext = _C.format(i=i, j=j, k=k, m=m), "c"
        else:
            text, ext = _MD.format(i=i, j=j, k=k, m=m), "md"
        (d / f"f{i}.{ext}").write_text(text * (1 + rnd.randrange(3)))


def generated_switch(dest: Path, want: int) -> int:
    """Edit ``want`` files of a generated tree and delete a tenth as many: a branch switch."""
    files = sorted(dest.rglob("f*.*"))
    rnd = random.Random(7)
    picked = rnd.sample(files, min(len(files), want + want // 10))
    for p in picked[:want]:
        p.write_text(p.read_text() + f"\n# edited {p.stem}\n")
    for p in picked[want:]:
        p.unlink()
    return len(picked)


# -- measuring -----------------------------------------------------------------------------


def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _tree(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


@dataclass
class Run:
    wall: float
    cpu: float
    writer_cpu: float
    rss_mb: float
    writer_mb: float
    out: str


def _cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def run_index(tree: Path, home: Path) -> Run:
    """``ctx-tree index`` in ``tree``: wall, CPU (this process and every worker it reaped),
    the peak of the summed RSS of the process tree, the writer's own peak RSS."""
    env = {**os.environ, "CTX_TREE_HOME": str(home)}
    cmd = [sys.executable, "-c", "from ctx_tree_mcp.cli.main import main; main()", "index"]
    peak = [0, 0]
    writer_cpu = [0.0]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            pids = _tree(proc.pid)
            peak[0] = max(peak[0], sum(_status_kb(p, "VmRSS:") for p in pids))
            peak[1] = max(peak[1], _status_kb(proc.pid, "VmHWM:"))
            writer_cpu[0] = max(writer_cpu[0], _cpu_s(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out_chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    err = proc.stderr.read()  # type: ignore[union-attr]
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    done.set()
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = b"".join(out_chunks).decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"ctx-tree index failed ({proc.returncode}): {err.decode()[-2000:]}")
    # ru_*time of wait4 count the process and the children it waited for (the workers)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(
        wall, cpu, writer_cpu[0], peak[0] / 1024, max(peak[1], usage.ru_maxrss) / 1024, out.strip()
    )


def floor(tree: Path, home: Path) -> tuple[int, float, float, float]:
    """``(files, MB, wall s, CPU s)`` of reading every file the index lists and parsing the
    ones tree-sitter knows, in this process."""
    os.environ["CTX_TREE_HOME"] = str(home)
    from ctx_tree_chunk import detect_language
    from ctx_tree_chunk._languages import TREE_SITTER_LANGUAGES
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.files.indexer import list_files
    from tree_sitter_language_pack import get_parser

    app = App(tree)
    try:
        listing = list_files(tree, app.policy, app.config)
    finally:
        app.close()
    parsers: dict[str, object] = {}
    for lang in TREE_SITTER_LANGUAGES.values():  # loaded before the clock starts
        parsers[lang] = get_parser(lang)  # type: ignore[arg-type]
    total = 0
    t, c = time.perf_counter(), time.process_time()
    for rel, _mtime, _size in listing.files:
        try:
            with open(tree / rel, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        total += len(data)
        lang = detect_language(rel, data)
        grammar = TREE_SITTER_LANGUAGES.get(lang or "")
        if grammar and b"\0" not in data[:8192]:
            parsers[grammar].parse(data)  # type: ignore[attr-defined]
    return len(listing.files), total / 1e6, time.perf_counter() - t, time.process_time() - c


def store_ratio(home: Path) -> tuple[float, int]:
    import apsw

    (db,) = list(home.rglob("store.db"))
    store_bytes = sum(p.stat().st_size for p in db.parent.glob("store.db*"))
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    row = con.execute(
        "SELECT sum(original_bytes), count(*) FROM nodes WHERE kind = 'file_chunk' "
        "AND parent_id IS NULL AND status = 'live'"
    ).fetchall()[0]
    con.close()
    return store_bytes / max(1, row[0] or 0), int(row[1])


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def queries(app: object, n: int) -> tuple[list[str], list[str]]:
    """``n`` short and ``n`` long queries drawn (seeded) from what the store holds."""
    store = app.store  # type: ignore[attr-defined]
    rows = store.con.execute(
        "SELECT id FROM nodes WHERE kind = 'file_chunk' AND parent_id IS NULL "
        "AND status = 'live' ORDER BY id"
    ).fetchall()
    rnd = random.Random(46)
    short: list[str] = []
    long: list[str] = []
    for (root_id,) in rnd.sample(rows, min(len(rows), 20 * n)):
        root = store.get(root_id)
        syms = root.metadata.get("symbols") or []
        rel = str(root.metadata.get("relpath", ""))
        if syms and len(short) < n:
            name = str(rnd.choice(syms)[0]).rsplit(".", 1)[-1]
            path_words = [w for w in _WORDS.findall(rel) if len(w) > 3]
            if len(short) % 2 and path_words:
                name += " " + rnd.choice(path_words)
            short.append(name)
        if len(long) < n:
            kids = [c for c in store.children(root_id) if c.status.value == "live"]
            if kids:
                words = _WORDS.findall(rnd.choice(kids).content)
                if len(words) >= 40:
                    long.append(" ".join(words[:60]))
        if len(short) >= n and len(long) >= n:
            break
    return short, long


def in_process(
    tree: Path, home: Path, n: int
) -> tuple[float, float, float, float, float, float, float]:
    """Search p50 short and long (ms), the map's median of 3 (s) and its CPU (s), cached
    read p50 (ms), search CPU p50 short and long (ms: comparable on a busy machine)."""
    os.environ["CTX_TREE_HOME"] = str(home)
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.tools.read import read
    from ctx_tree_mcp.tools.search import search

    app = App(tree)
    try:
        short, long = queries(app, n)

        def p50(qs: list[str]) -> tuple[float, float]:
            times, cpu = [], []
            for q in qs:
                t, c = time.perf_counter(), time.process_time()
                search(app, q)
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            if not times:
                return float("nan"), float("nan")
            return statistics.median(times) * 1000, statistics.median(cpu) * 1000

        search(app, "warm up")
        (s_short, c_short), (s_long, c_long) = p50(short), p50(long)
        maps, map_cpu = [], []
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            read(app, ".")
            maps.append(time.perf_counter() - t)
            map_cpu.append(time.process_time() - c)
        rows = app.store.con.execute(
            "SELECT json_extract(metadata, '$.relpath') FROM nodes WHERE kind = 'file_chunk' "
            "AND parent_id IS NULL AND status = 'live' ORDER BY id LIMIT 40"
        ).fetchall()
        reads = []
        for (rel,) in rows:
            try:
                read(app, rel)
                t = time.perf_counter()
                read(app, rel)
                reads.append(time.perf_counter() - t)
            except Exception:
                continue
        return (
            s_short,
            s_long,
            statistics.median(maps),
            statistics.median(map_cpu),
            statistics.median(reads) * 1000 if reads else float("nan"),
            c_short,
            c_long,
        )
    finally:
        app.close()


def _counts(summary: str) -> tuple[int, str]:
    m = re.search(r"(\d+) stored", summary)
    stored = int(m.group(1)) if m else 0
    m = re.search(r"\d s\)(.*)$", summary)
    return stored, (m.group(1).strip("; ") if m else "")


def bench(name: str, work: Path, args: argparse.Namespace) -> Row:
    row = Row(name)
    tree, home = work / name, work / f"{name}-home"
    home.mkdir()
    if args.max_files is not None:
        (home / "config.json").write_text(json.dumps({"index": {"maxFiles": args.max_files}}))
    t = time.perf_counter()
    if name == "generated":
        generate(tree, args.generated)
        head = ""
    else:
        head = clone(args.mirrors / REPOS[name] / "repo", tree)
    print(f"[{name}] tree ready in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    row.files, row.mb, row.floor_s, row.floor_cpu = floor(tree, home)
    print(f"[{name}] floor {row.floor_s:.1f} s ({row.files} files)", file=sys.stderr)
    cold = run_index(tree, home)
    row.cold_s, row.cold_cpu, row.writer_cpu, row.rss_mb, row.writer_mb = (
        cold.wall,
        cold.cpu,
        cold.writer_cpu,
        cold.rss_mb,
        cold.writer_mb,
    )
    row.stored, row.not_indexed = _counts(cold.out)
    print(f"[{name}] cold {cold.wall:.1f} s: {cold.out}", file=sys.stderr)
    row.store_ratio, _live = store_ratio(home)
    row.unchanged_s = run_index(tree, home).wall
    (
        row.search_short_ms,
        row.search_long_ms,
        row.map_s,
        row.map_cpu,
        row.read_ms,
        row.search_short_cpu_ms,
        row.search_long_cpu_ms,
    ) = in_process(tree, home, args.queries)
    if name == "generated":
        row.switch_files = generated_switch(tree, args.switch_files)
    else:
        want = min(args.switch_files, row.files // 2)  # a switch, not a new tree
        target, row.switch_files = switch_target(tree, head, want)
        git("-C", str(tree), "-c", "advice.detachedHead=false", "checkout", "-q", target)
    sw = run_index(tree, home)
    row.switch_s, row.switch_cpu, row.switch_summary = sw.wall, sw.cpu, sw.out
    print(f"[{name}] switch {sw.wall:.1f} s: {sw.out}", file=sys.stderr)
    return row


def table(rows: list[Row]) -> str:
    lines = [
        "| | " + " | ".join(r.name for r in rows) + " |",
        "|---|" + "---|" * len(rows),
    ]

    def add(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    add("files listed / stored", [f"{r.files:,} / {r.stored:,}" for r in rows])
    add("sources", [f"{r.mb:.1f} MB" for r in rows])
    add("floor: read + parse, wall (CPU)", [f"{r.floor_s:.1f} s ({r.floor_cpu:.1f})" for r in rows])
    add("cold index, wall (CPU)", [f"{r.cold_s:.1f} s ({r.cold_cpu:.1f})" for r in rows])
    add("cold / floor, wall", [f"{r.cold_s / r.floor_s:.1f}x" for r in rows])
    add(
        "cold CPU / floor CPU: all processes, the writer",
        [f"{r.cold_cpu / r.floor_cpu:.1f}x, {r.writer_cpu / r.floor_cpu:.1f}x" for r in rows],
    )
    add(
        "peak RSS, all processes / writer", [f"{r.rss_mb:.0f} / {r.writer_mb:.0f} MB" for r in rows]
    )
    add("store / sources", [f"{r.store_ratio:.2f}x" for r in rows])
    add(
        "unchanged re-index (of cold)",
        [f"{r.unchanged_s:.1f} s ({r.unchanged_s / r.cold_s:.0%})" for r in rows],
    )
    add(
        "branch switch: files changed, wall (CPU)",
        [f"{r.switch_files:,}: {r.switch_s:.1f} s ({r.switch_cpu:.1f})" for r in rows],
    )
    add(
        "search p50 short / long",
        [f"{r.search_short_ms:.1f} / {r.search_long_ms:.1f} ms" for r in rows],
    )
    add(
        "search CPU p50 short / long",
        [f"{r.search_short_cpu_ms:.1f} / {r.search_long_cpu_ms:.1f} ms" for r in rows],
    )
    add("map (`read .`), wall (CPU)", [f"{r.map_s:.2f} s ({r.map_cpu:.2f})" for r in rows])
    add("cached read p50", [f"{r.read_ms:.1f} ms" for r in rows])
    add("not indexed (the run's own words)", [r.not_indexed or "-" for r in rows])
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", nargs="*", default=[*REPOS, "generated"])
    ap.add_argument("--mirrors", type=Path, default=Path(__file__).resolve().parents[2] / ".mirror")
    ap.add_argument("--generated", type=int, default=100_000, help="files of the generated tree")
    ap.add_argument("--switch-files", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--max-files", type=int, default=None, help="index.maxFiles (default: as set)")
    ap.add_argument("--work", type=Path, default=None, help="keep the trees and stores here")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ctx-index-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for name in args.repos:
            rows.append(bench(name, work, args))
            print(table(rows), file=sys.stderr)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")
    print(table(rows))
    for r in rows:
        print(f"{r.name} switch: {r.switch_summary}")


if __name__ == "__main__":
    main()
