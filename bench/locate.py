"""Localization bench wrapper: the shared locate harness, plus compose with no seeds.

The harness (``locate.py`` of the localization bench, given by ``--harness``) composes only
from the top five search hits. This wrapper runs it unchanged and, in the same MCP session,
also calls ``ctx_tree_compose(query=<issue>, budget_tokens=B)`` with no seeds, for each budget,
and records its gold-line coverage (``ctx_compose_seedless``) beside the harness's figures.

    uv run python bench/locate.py run --harness DIR/locate.py --mirrors MIRRORS \\
        --ctx-tree . --tasks DIR/tasks-public.jsonl --out /tmp/locate.jsonl [--keep-work]
    uv run python bench/locate.py report --harness DIR/locate.py --results /tmp/locate.jsonl

``report`` prints one table: search HitFile@1/5/10, MRR, HitRegion@10, BM25 over files, compose
coverage seeded and seedless, and the search call's latency (median, seconds).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def load_harness(path: str) -> Any:
    """Import the shared harness module from ``path`` (its ``replay`` sibling on sys.path)."""
    spec = importlib.util.spec_from_file_location("locate_harness", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--harness {path}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["locate_harness"] = mod
    spec.loader.exec_module(mod)
    return mod


def patch(h: Any) -> None:
    """Make the harness's sessions also compose with no seeds, and record the coverage."""
    sessions: list[Any] = []
    base = h.MCP

    class SeedlessMCP(base):  # type: ignore[misc, valid-type]
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **kw)
            self.first_query: str | None = None
            self.seedless: dict[int, tuple[bool, str, float]] = {}
            sessions.append(self)

        def call(self, name: str, arguments: dict) -> tuple[bool, str]:
            if name == "ctx_tree_search" and self.first_query is None:
                self.first_query = arguments["query"]
            return super().call(name, arguments)

        def close(self) -> None:
            if self.first_query is not None:
                for budget in h.BUDGETS:
                    t = time.monotonic()
                    err, text = base.call(
                        self,
                        "ctx_tree_compose",
                        {"query": self.first_query, "budget_tokens": budget},
                    )
                    self.seedless[budget] = (err, text, time.monotonic() - t)
            super().close()

    h.MCP = SeedlessMCP
    run_task = h.run_task

    def wrapped(task: dict, args: Any, count: Any) -> dict:
        sessions.clear()
        row = run_task(task, args, count)
        gold = h.gold_lines(task)
        row["ctx_compose_seedless"] = {}
        for budget, (err, text, secs) in (sessions[0].seedless if sessions else {}).items():
            shown = h.shown_lines(text) if not err else set()
            row["ctx_compose_seedless"][str(budget)] = {
                "coverage": round(h.coverage(shown, gold), 4),
                "lines_shown": len(shown),
                "tokens": count(text),
                "seconds": round(secs, 3),
                "error": text[:300] if err else None,
            }
        return row

    h.run_task = wrapped


def _pct(xs: list[float]) -> str:
    return f"{100 * sum(xs) / len(xs):.0f}%" if xs else "-"


def report(paths: list[str]) -> str:
    cols = []
    for p in paths:
        rows = [json.loads(x) for x in Path(p).read_text().splitlines() if x.strip()]
        cols.append((Path(p).stem, [r for r in rows if "failed" not in r]))
    out = ["| | " + " | ".join(f"{n} ({len(rs)})" for n, rs in cols) + " |"]
    out.append("|---" * (len(cols) + 1) + "|")

    def line(label: str, fn: Any) -> None:
        out.append(f"| {label} | " + " | ".join(fn(rs) for _, rs in cols) + " |")

    for k in ("hit@1", "hit@5", "hit@10"):
        line(f"search HitFile{k[3:]}", lambda rs, k=k: _pct([r["ctx_search"][k] for r in rs]))
    line("search MRR@10", lambda rs: f"{statistics.mean(r['ctx_search']['rr@10'] for r in rs):.2f}")
    line("search HitRegion@10", lambda rs: _pct([r["ctx_search"]["region@10"] for r in rs]))
    for k in ("hit@1", "hit@5", "hit@10"):
        line(f"BM25 files HitFile{k[3:]}", lambda rs, k=k: _pct([r["bm25"][k] for r in rs]))
    for b in ("4000", "8000"):
        line(
            f"compose {b}, top-5 seeds: coverage",
            lambda rs, b=b: _pct([r["ctx_compose"][b]["coverage"] for r in rs]),
        )
        line(
            f"compose {b}, no seeds: coverage",
            lambda rs, b=b: _pct(
                [r.get("ctx_compose_seedless", {}).get(b, {}).get("coverage", 0.0) for r in rs]
            ),
        )
        line(
            f"cat BM25 top files, same tokens as compose {b}",
            lambda rs, b=b: _pct([r["bm25_cat"][b]["coverage"] for r in rs]),
        )
    line(
        "search seconds (median)",
        lambda rs: f"{statistics.median(r['search_s'] for r in rs):.3f}",
    )
    line(
        "compose 8000 no seeds, seconds (median)",
        lambda rs: (
            f"{statistics.median(r.get('ctx_compose_seedless', {}).get('8000', {}).get('seconds', 0) for r in rs):.3f}"
        ),
    )
    return "\n".join(out)


def query_of(h: Any, task: dict, mirrors: Path) -> str:
    """The task's query as the harness builds it (the issue's first characters)."""
    src = task["source"]
    traj = json.loads(
        h._git(
            h.replay.mirror(mirrors, src["repo"], False), "show", f"{src['commit']}:{src['path']}"
        )
    )
    return h.issue_text(h.first_user(traj))[: h.QUERY_CHARS]


def inproc(h: Any, args: Any) -> None:
    """Search and seedless compose in this process over the stores a ``run --keep-work`` left
    under ``--work`` (no indexing): a quick loop for ranking changes. BM25 figures come from
    the ``--results`` rows of that run."""
    import re

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.tools.compose import compose
    from ctx_tree_mcp.tools.search import search

    count, _ = h.replay.make_counter()
    base = {}
    if args.results:
        for x in Path(args.results).read_text().splitlines():
            r = json.loads(x)
            base[r["instance_id"]] = r
    tasks = [json.loads(x) for x in Path(args.tasks).read_text().splitlines() if x.strip()]
    rows = []
    for task in tasks:
        if args.only and not re.search(args.only, task["instance_id"]):
            continue
        work = Path(args.work) / task["instance_id"]
        if not (work / "home").is_dir():
            continue
        query = query_of(h, task, Path(args.mirrors))
        app = App(work / "tree", home=work / "home")
        gold_files = {g["path"] for g in task["gold"]}
        t = time.perf_counter()
        text = search(app, query, limit=10)
        secs = time.perf_counter() - t
        m = h.search_metrics(h.parse_hits(text), task, gold_files)
        row = {"instance_id": task["instance_id"], "ctx_search": m, "search_s": secs}
        cov = {}
        for b in args.budgets:
            t = time.perf_counter()
            try:
                ctext = compose(app, query=query, budget_tokens=b)
            except Exception as exc:
                ctext = f"error: {exc}"
            shown = h.shown_lines(ctext)
            cov[str(b)] = {
                "coverage": h.coverage(shown, h.gold_lines(task)),
                "seconds": time.perf_counter() - t,
                "tokens": count(ctext),
            }
        row["ctx_compose_seedless"] = cov
        b0 = base.get(task["instance_id"], {})
        for k in ("bm25", "ctx_compose", "bm25_cat"):
            if k in b0:
                row[k] = b0[k]
        app.close()
        rows.append(row)
        print(
            f"{task['instance_id']:32} @1/5/10 {m['hit@1']}/{m['hit@5']}/{m['hit@10']} "
            f"region {m['region@10']} compose "
            + " ".join(f"{v['coverage']:.2f}" for v in cov.values())
            + f" ({secs * 1000:.0f} ms)",
            flush=True,
        )
    n = len(rows)

    def pct(xs):
        return f"{100 * sum(xs) / max(1, len(xs)):.0f}%"

    print(
        f"n={n} search @1/5/10 "
        + "/".join(pct([r["ctx_search"][k] for r in rows]) for k in ("hit@1", "hit@5", "hit@10"))
        + f" region {pct([r['ctx_search']['region@10'] for r in rows])}"
        + " compose "
        + " ".join(
            f"{b}:{pct([r['ctx_compose_seedless'][str(b)]['coverage'] for r in rows])}"
            for b in args.budgets
        )
        + f" search p50 {statistics.median(r['search_s'] for r in rows) * 1000:.0f} ms"
    )
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run", help="the harness's run, plus compose with no seeds")
    r.add_argument("--harness", required=True, help="the bench's locate.py")
    q = sub.add_parser("report", help="one table of one or more results files")
    q.add_argument("--harness", required=False)
    q.add_argument("--results", nargs="+", required=True)
    i = sub.add_parser("inproc", help="search and seedless compose over kept stores, in process")
    i.add_argument("--harness", required=True)
    i.add_argument("--mirrors", required=True)
    i.add_argument("--tasks", required=True)
    i.add_argument("--work", required=True, help="the --work of a run with --keep-work")
    i.add_argument("--results", help="that run's results (BM25 and seeded compose figures)")
    i.add_argument("--only")
    i.add_argument("--out")
    i.add_argument("--budgets", type=int, nargs="+", default=[8000])
    args, rest = p.parse_known_args()
    if args.verb == "inproc":
        inproc(load_harness(args.harness), args)
        return
    if args.verb == "report":
        print(report(args.results))
        return
    h = load_harness(args.harness)
    patch(h)
    sys.argv = [args.harness, "run", *rest]
    h.main()


if __name__ == "__main__":
    main()
