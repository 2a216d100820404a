"""Benchmark ctx-tree-chunk.

    uv run python bench/chunk.py            # corpus at $CTX_EVAL_CORPUS or /tmp/ctx-eval-corpus
    uv run python bench/chunk.py --repeat 3

Prints lines/second per language over the eval corpus (stdlib .py files when the corpus
is absent), and the median time to chunk a 2,000-line Python file (first 2,000 lines of
the stdlib's argparse.py; median of 7 after one warm-up run), and the share of the chunking
time spent on doc summaries (the same summaries recomputed over the same inputs in the same
run).  Wall-clock and process CPU time are both shown: on a shared, loaded machine CPU time
is the steadier figure.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import time
from collections import defaultdict
from pathlib import Path

from ctx_tree_chunk import ChunkError, chunk_bytes, detect_language

CORPUS = Path(os.environ.get("CTX_EVAL_CORPUS", "/tmp/ctx-eval-corpus"))
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def corpus_files() -> tuple[str, list[Path]]:
    if CORPUS.is_dir():
        files = [p for p in CORPUS.rglob("*") if p.is_file() and ".downloads" not in p.parts]
        return f"eval corpus {CORPUS}", sorted(files)
    files = sorted(p for p in STDLIB.glob("*.py"))
    return f"stdlib {STDLIB} (top-level .py)", files


def throughput(files: list[Path], repeat: int) -> dict[str, tuple[int, int, float, float]]:
    data = []
    for p in files:
        lang = detect_language(str(p))
        if lang is None:
            continue
        data.append((lang, p.name, p.read_bytes()))
    for _lang, name, raw in data:  # warm-up: load every grammar once
        with contextlib.suppress(ChunkError):
            chunk_bytes(raw, path=name)
    stats: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])
    for _ in range(repeat):
        for lang, name, raw in data:
            t = time.perf_counter()
            c = time.process_time()
            try:
                cf = chunk_bytes(raw, path=name)
            except ChunkError:
                continue
            s = stats[lang]
            s[3] += time.process_time() - c
            s[2] += time.perf_counter() - t
            s[0] += 1
            s[1] += cf.total_lines
    return {
        k: (int(v[0] / repeat), int(v[1] / repeat), v[2] / repeat, v[3] / repeat)
        for k, v in stats.items()
    }


def python_2000() -> tuple[float, list[float], int, float, float]:
    lines = (STDLIB / "argparse.py").read_bytes().splitlines(keepends=True)[:2000]
    raw = b"".join(lines)
    chunk_bytes(raw, path="argparse.py")  # warm-up (grammar + query compile)
    times = []
    cpu = []
    parse = []
    from tree_sitter_language_pack import get_parser

    parser = get_parser("python")
    for _ in range(7):
        t = time.perf_counter()
        c = time.process_time()
        cf = chunk_bytes(raw, path="argparse.py")
        cpu.append(time.process_time() - c)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        parser.parse(raw)
        parse.append(time.perf_counter() - t)
    return (
        statistics.median(times),
        times,
        len(cf.chunks),
        statistics.median(parse),
        statistics.median(cpu),
    )


def doc_share(files: list[Path], repeat: int) -> dict[str, tuple[int, float, float]]:
    """Per language: symbols summarised, best CPU seconds of one chunking pass, and of
    recomputing that pass's doc summaries from the same docstrings and comments."""
    from ctx_tree_chunk import _code

    seen: dict[str, list[tuple[object, str | list[str]]]] = defaultdict(list)
    originals = (_code.comment_summary, _code.docstring_summary)
    by_lang: dict[str, list[tuple[str, bytes]]] = defaultdict(list)
    for p in files:
        lang = detect_language(str(p))
        if lang in ("python", "typescript", "tsx", "go", "rust", "java", "c", "cpp"):
            by_lang[lang].append((p.name, p.read_bytes()))
    out = {}
    for lang, data in sorted(by_lang.items()):
        calls = seen[lang]
        _code.comment_summary = lambda x, c=calls: (c.append((originals[0], x)), originals[0](x))[1]
        _code.docstring_summary = lambda x, c=calls: (c.append((originals[1], x)), originals[1](x))[
            1
        ]
        try:
            for name, raw in data:
                with contextlib.suppress(ChunkError):
                    chunk_bytes(raw, path=name)
        finally:
            _code.comment_summary, _code.docstring_summary = originals
        chunking = summaries = float("inf")
        for _ in range(repeat):
            c = time.process_time()
            for name, raw in data:
                with contextlib.suppress(ChunkError):
                    chunk_bytes(raw, path=name)
            chunking = min(chunking, time.process_time() - c)
            c = time.process_time()
            for fn, arg in calls:
                fn(arg)  # type: ignore[operator]
            summaries = min(summaries, time.process_time() - c)
        out[lang] = (len(calls), chunking, summaries)
    return out


def import_ms(module: str, pre: str = "") -> float:
    code = (
        f"import time{', ' + pre if pre else ''}; t=time.perf_counter(); import {module}; "
        "print(time.perf_counter()-t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(7)
    ]
    return statistics.median(runs) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="passes over the corpus (mean)")
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus")
    stdlib = "dataclasses, re, typing, math, itertools, importlib"
    print(
        f"import ctx_tree_chunk: {import_ms('ctx_tree_chunk'):.1f} ms; "
        f"after its stdlib deps ({stdlib}): {import_ms('ctx_tree_chunk', stdlib):.1f} ms; "
        f"dataclasses alone: {import_ms('dataclasses'):.1f} ms (medians of 7, fresh interpreters)"
    )
    med, times, n, parse, cpu = python_2000()
    print(
        f"2,000-line Python file: median {med * 1000:.1f} ms wall, {cpu * 1000:.1f} ms CPU "
        f"(wall min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}; {n} chunks); "
        f"tree-sitter parse alone: median {parse * 1000:.1f} ms wall"
    )
    source, files = corpus_files()
    print(f"throughput over {source}, mean of {args.repeat} passes:")
    print(
        f"  {'language':<12}{'files':>7}{'lines':>9}{'wall s':>9}{'lines/s':>10}"
        f"{'CPU s':>8}{'lines/CPU s':>13}"
    )
    for lang, (nf, nl, secs, cpu_s) in sorted(throughput(files, args.repeat).items()):
        print(
            f"  {lang:<12}{nf:>7}{nl:>9}{secs:>9.3f}{nl / secs if secs else 0:>10,.0f}"
            f"{cpu_s:>8.3f}{nl / cpu_s if cpu_s else 0:>13,.0f}"
        )
    print(f"doc summaries, share of chunking CPU time (best of {args.repeat}, same inputs):")
    for lang, (n, chunking, summaries) in doc_share(files, args.repeat).items():
        print(
            f"  {lang:<12}{n:>6} symbols  {summaries * 1000:6.1f} ms of {chunking * 1000:7.1f} ms"
            f"  ({100 * summaries / chunking if chunking else 0:.1f}%)"
        )


if __name__ == "__main__":
    main()
