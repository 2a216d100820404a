"""Precision and recall of the reference graph against jedi (``bench/refgraph_truth.py``).

    ctx-tree index                                   # in REPO, with the same CTX_TREE_HOME
    python bench/refgraph_truth.py REPO --out truth.json       # any Python with jedi
    CTX_TREE_HOME=... uv run python bench/refgraph_accuracy.py truth.json

For each file of the truth's sample, the graph's edges out of its chunks (what each chunk's
references resolve to: ``RefGraph.callees``) are compared with jedi's:

* an edge of jedi goes from the chunk holding a name's use to the chunk holding the line of
  the definition jedi names, when that definition is a function, class or property of the
  project (a library's or a builtin's is none; one inside the same chunk is none);
* **precision**: of the graph's edges that jedi judged (jedi resolved some use of that name
  in that chunk), the share whose target is one of jedi's; an edge jedi did not judge (it
  could not tell the object's type) is counted apart;
* **recall**: the share of jedi's edges the graph has.

Also prints how many of the graph's wrong edges point at a definition with the same name as
jedi's (a same-named symbol in another scope).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

KINDS = ("function", "class", "property")


def main() -> None:
    from ctx_tree_mcp.engines.files.refgraph import RefGraph, split_ref
    from ctx_tree_store import Store, store_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("truth")
    parser.add_argument("--show", type=int, default=0, help="print this many wrong edges")
    parser.add_argument("--missed", type=int, default=0, help="print this many missed edges")
    args = parser.parse_args()
    truth = json.loads(Path(args.truth).read_text())
    repo = truth["repo"]
    store = Store.open(store_path(repo))
    graph = RefGraph(store, repo)

    def chunk_at(rel: str, line: int) -> tuple[str, str] | None:
        f = graph.file(rel)
        if f is None:
            return None
        for c in graph.chunks(f.root_id):
            lines = c.metadata.get("lines") or [0, 0]
            if lines[0] <= line <= lines[1]:
                return c.id, c.symbol
        return None

    uses_by_chunk: dict[str, dict[str, list[list]]] = defaultdict(lambda: defaultdict(list))
    truth_edges: dict[tuple[str, str], str] = {}
    for rel, line, _col, name, defs in truth["uses"]:
        src = chunk_at(rel, line)
        if src is None:
            continue
        uses_by_chunk[src[0]][name].append(defs)
        for path, dline, kind in defs:
            if path is None or kind not in KINDS or dline is None:
                continue
            dst = chunk_at(path, dline)
            if dst is not None and dst[0] != src[0]:
                truth_edges.setdefault((src[0], dst[0]), f"{rel}:{line} {name}")
    t0 = time.perf_counter()
    mine: dict[tuple[str, str], str] = {}
    n_chunks = 0
    for rel in truth["files"]:
        f = graph.file(rel)
        if f is None:
            continue
        for c in graph.chunks(f.root_id):
            n_chunks += 1
            for e in graph.callees(c):
                mine.setdefault((e.src, e.dst), e.ref)
    seconds = time.perf_counter() - t0
    right = wrong = unjudged = same_name = 0
    shown = 0
    for (src, dst), ref in mine.items():
        name = split_ref(ref)[1]
        judged = [d for defs in uses_by_chunk[src].get(name, ()) for d in defs]
        if not judged:
            unjudged += 1
            if os.environ.get("SHOW_UNJUDGED") and unjudged <= 15:
                s_, d_ = store.get(src), store.get(dst)
                print(
                    f"  unjudged: {s_.metadata.get('relpath')}:{s_.metadata.get('lines')} "
                    f"{ref!r} -> {d_.metadata.get('relpath')} {d_.metadata.get('symbol')}",
                    file=sys.stderr,
                )
            continue
        targets = set()
        for path, dline, _kind in judged:
            if path is not None and dline is not None:
                hit = chunk_at(path, dline)
                if hit is not None:
                    targets.add(hit)
        # the same symbol counts: jedi names an overload's implementation, the outline
        # its first signature; a class's member may sit in another part of the class
        symbol_of = {c: s for c, s in targets}
        d_symbol = store.get(dst).metadata.get("symbol") or ""
        base = d_symbol.split("#")[0]
        if dst in symbol_of or any(s.split("#")[0] == base and base for s in symbol_of.values()):
            right += 1
        else:
            wrong += 1
            if any(path is not None for path, _l, _k in judged):
                same_name += 1
            if shown < args.show:
                shown += 1
                s, d = store.get(src), store.get(dst)
                print(
                    f"  wrong: {s.metadata.get('relpath')}:{s.metadata.get('lines')} {ref!r} -> "
                    f"{d.metadata.get('relpath')} {d.metadata.get('symbol')}; jedi: {judged[:3]}",
                    file=sys.stderr,
                )
    found = sum(1 for e in truth_edges if e in mine)
    for (_src, dst), where in list((e, w) for e, w in truth_edges.items() if e not in mine)[
        : args.missed
    ]:
        d = store.get(dst)
        print(
            f"  missed: {where} -> {d.metadata.get('relpath')} {d.metadata.get('symbol')}",
            file=sys.stderr,
        )
    precision = right / (right + wrong) if right + wrong else 1.0
    recall = found / len(truth_edges) if truth_edges else 1.0
    print(
        json.dumps(
            {
                "repo": os.path.basename(repo),
                "files": len(truth["files"]),
                "chunks": n_chunks,
                "uses": len(truth["uses"]),
                "truth_edges": len(truth_edges),
                "graph_edges": len(mine),
                "precision": round(precision, 3),
                "right": right,
                "wrong": wrong,
                "wrong_to_other_project_definition": same_name,
                "unjudged": unjudged,
                "recall": round(recall, 3),
                "found": found,
                "seconds": round(seconds, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
