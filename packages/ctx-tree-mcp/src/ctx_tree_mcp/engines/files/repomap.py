"""``ctx_tree_read`` of a directory: a ranked map of its files within the budget (docs/tools.md,
"Directory map").

The files are those the store holds live under the directory and still on disk (the project
index keeps them; before it has run, up to :data:`LOAD_MAX` files of the directory are read as
a read would).
Each file's definitions come from its tree-sitter outline (the file root's ``symbols``). A
file refers to another when its code names one of the other's definitions (an identifier of
four characters or more; a name defined in several files counts for each a share). Files are
ranked by PageRank over that graph, as aider's repository map does, times their role's factor
(docs/search.md, "Source first": tests, docs, fixtures, translations, generated and vendored
files after source); within a file, its definitions by how many other files name them. A data
file's keys and a document's headings are no definitions. The map lists, best file first, each file with
its top definitions and their signature lines, until the budget is spent, and ends with a
manifest saying how many files it left out and the call that shows more.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.engines.files.refgraph import distinctive

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Protocol

    from ctx_tree_mcp.engines.files.filecache import FileParts
    from ctx_tree_mcp.policy.paths import PathPolicy, ResolvedPath

    class MapParts(FileParts, Protocol):
        """What a directory's map uses of the caller's ``App``: what a read does (it may read the
        directory's files), the project root and its path policy."""

        @property
        def root(self) -> Path:
            """The project root (``App.root``)."""

        @property
        def policy(self) -> PathPolicy:
            """The root's path policy (``App.policy``)."""


#: Files ranked at most (the rest are counted, not ranked): the map stays within a second
#: of CPU on a 38k-file tree (docs/benchmarks.md).
FILES_MAX = 2000
#: Files read for a map when the store holds none under the directory.
LOAD_MAX = 300
#: Definitions shown per file at most.
SYMBOLS_PER_FILE = 6
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_COMMON_TEXT = (
    "self init main name args kwargs value data test tests setup none true false type list dict "
    "__init__ __main__ __name__ __all__ __repr__ __str__ __eq__ __call__ __enter__ __exit__"
)
#: Names too common to tell which file a reference means.
_COMMON = frozenset(_COMMON_TEXT.split())


#: A name defined in more files than this is not counted as a reference.
MAX_DEFINERS = 3
#: Outline kinds that define nothing code refers to: data files' keys, documents' headings.
NOT_DEFINITIONS = frozenset({"key", "section", "heading", "window"})


def _weight(name: str) -> float:
    return 3.0 if distinctive(name) else 1.0


def _stored_files(app: MapParts, directory: ResolvedPath) -> tuple[list[tuple[str, Any]], int]:
    """``(files, total)``: the live stored files under ``directory`` (``(uri, root)``), at
    most :data:`FILES_MAX` of them, the most useful first as the index orders them (source
    before docs, before vendored or generated files; shallow paths first), and how many the
    store holds there."""
    from ctx_tree_mcp.engines.files.indexer import usefulness
    from ctx_tree_mcp.policy.names import file_uri, uri_path

    prefix = file_uri(directory.absolute) + "/"
    ids = app.store.live_roots_under(prefix)
    cut = len(prefix)
    every = sorted(ids, key=lambda u: (usefulness(u[cut:]), u.count("/"), u))
    # a file deleted since it was stored is left out (no index or walker run since: the CLI
    # runs neither), so the map names no path a read then says does not exist
    uris = [u for u in every[:FILES_MAX] if os.path.isfile(uri_path(u))]
    roots = app.store.get_many([ids[u] for u in uris])
    out = [(u, roots[ids[u]]) for u in uris if ids[u] in roots]
    return out, len(every)


def _load_some(app: MapParts, directory: ResolvedPath) -> int:
    """Read up to :data:`LOAD_MAX` files of ``directory`` into the store (as reads); returns
    how many more it holds (left for the index)."""
    from ctx_tree_mcp.engines.files.filecache import load
    from ctx_tree_mcp.engines.files.indexer import list_files

    rel = "" if directory.relative == "." else directory.relative.rstrip("/") + "/"
    listing = list_files(app.root, app.policy, app.config)
    names = [f[0] for f in listing.files if f[0].startswith(rel)]
    for name in names[:LOAD_MAX]:
        try:
            resolved, st = app.policy.resolve_file(name)
            load(app, resolved, st)
        except Exception:  # binary, unreadable: left out of the map
            continue
    return max(0, len(names) - LOAD_MAX)


def pagerank(
    edges: dict[str, dict[str, float]], nodes: list[str], rounds: int = 30
) -> dict[str, float]:
    """PageRank (damping 0.85) of ``nodes`` over weighted ``edges[src][dst]``; sums to 1."""
    n = len(nodes)
    if not n:
        return {}
    rank = dict.fromkeys(nodes, 1.0 / n)
    out_weight = {s: sum(d.values()) for s, d in edges.items()}
    for _ in range(rounds):
        dangling = sum(rank[v] for v in nodes if not out_weight.get(v))
        nxt = dict.fromkeys(nodes, (0.15 + 0.85 * dangling) / n)
        for src, dsts in edges.items():
            total = out_weight[src]
            if not total:
                continue
            share = 0.85 * rank[src] / total
            for dst, w in dsts.items():
                nxt[dst] += share * w
        rank = nxt
    return rank


def map_answer(app: MapParts, directory: ResolvedPath, budget: int) -> str:
    """The map of ``directory`` within ``budget`` tokens (see the module's doc)."""
    from ctx_tree_compose import estimate_tokens

    from ctx_tree_mcp.answers.render import plural
    from ctx_tree_mcp.answers.surface import call
    from ctx_tree_mcp.engines.files.indexer import not_indexed

    files, total = _stored_files(app, directory)
    loaded, left_to_index = not files, 0
    if loaded:
        left_to_index = _load_some(app, directory)
        files, total = _stored_files(app, directory)
    shown_dir = directory.relative
    if not files:
        return (
            f"map of {shown_dir}/: no text files stored under it yet\n"
            "-- ctx-tree: nothing to map (the project index stores files in the background; "
            "`ctx-tree index` now)\n"
        )
    # definitions: name -> files defining it; per file its identifiers and symbol rows
    defined: dict[str, set[str]] = defaultdict(set)
    methods: set[str] = set()  # names defined as a method somewhere
    symbols: dict[str, list[list[Any]]] = {}
    idents: dict[str, set[str]] = {}
    lines_of: dict[str, dict[int, str]] = {}
    meta_of: dict[str, dict[str, Any]] = {}
    texts = app.store.file_texts([root.id for _uri, root in files])
    for _uri, root in files:
        rel = str(root.metadata.get("relpath", _uri))
        meta_of[rel] = root.metadata
        # a data file's keys, a document's headings: no definition another file refers to
        rows = [
            r
            for r in root.metadata.get("symbols", ())
            if len(r) >= 5 and r[1] not in NOT_DEFINITIONS
        ]
        symbols[rel] = rows
        for name, *_rest in rows:
            short = str(name).rsplit(".", 1)[-1]
            if len(short) >= 4 and short.lower() not in _COMMON:
                defined[short].add(rel)
                if "." in str(name):
                    methods.add(short)
        body = texts.get(root.id, "")
        idents[rel] = set(_IDENT.findall(body))
        lines = body.split("\n")
        lines_of[rel] = {
            n: lines[n - 1].strip() for r in rows if 0 < (n := int(r[3])) <= len(lines)
        }
    edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    referrers: dict[tuple[str, str], int] = defaultdict(int)
    # A name defined in many files says little about which one is meant; a method name
    # (called through any object) counts only when one file defines it and it is distinctive.
    telling = {
        name: _weight(name)
        for name, owners in defined.items()
        if len(owners) <= MAX_DEFINERS
        and (name not in methods or (len(owners) == 1 and distinctive(name)))
    }
    for rel, words in idents.items():
        for name in words & telling.keys():
            owners = defined[name] - {rel}
            if not owners:
                continue
            for owner in owners:
                edges[rel][owner] += telling[name] / len(defined[name])
                referrers[(owner, name)] += 1
    from ctx_tree_mcp.engines.files import roles

    names = list(idents)
    rank = pagerank(edges, names)
    # source before tests, docs, fixtures, translations, generated and vendored files
    rank = {r: v * roles.factor(r) for r, v in rank.items()}
    order = sorted(names, key=lambda r: (-rank.get(r, 0.0), r))
    of = (
        f"{len(order):,} of {plural(total, 'file')} (source first)"
        if total > FILES_MAX
        else plural(len(order), "file")
    )
    head = (
        f"map of {shown_dir}/: {of}, ranked by how much the rest of the code "
        "refers to them (PageRank over references to their definitions)\n"
    )
    reserve = 90
    used = estimate_tokens(head) + reserve
    blocks: list[str] = []
    for rel in order:
        meta = meta_of[rel]
        rows = symbols[rel]
        ranked = sorted(
            rows,
            key=lambda r: (-referrers.get((rel, str(r[0]).rsplit(".", 1)[-1]), 0), int(r[2])),
        )[:SYMBOLS_PER_FILE]
        ranked.sort(key=lambda r: int(r[2]))
        text = [
            f"{rel} ({meta.get('lang') or 'text'}, {plural(int(meta.get('total_lines', 0)), 'line')})"
        ]
        for name, kind, _start, def_line, _end in ranked:
            sig = lines_of[rel].get(int(def_line), "")[:110]
            refs = referrers.get((rel, str(name).rsplit(".", 1)[-1]), 0)
            ref_text = f"  [{refs} file{'s' if refs != 1 else ''}]" if refs else ""
            text.append(f"  {def_line}: {sig or f'{kind} {name}'}{ref_text}")
        if len(rows) > len(ranked):
            text.append(
                f"  … {len(rows) - len(ranked)} more definition{'s' if len(rows) - len(ranked) != 1 else ''}"
            )
        block = "\n".join(text) + "\n"
        cost = estimate_tokens(block)
        if used + cost > budget:
            break
        blocks.append(block)
        used += cost
    left = len(order) - len(blocks)
    if left:
        wider = min(50_000, max(budget * 2, budget + 1000))
        path = "." if shown_dir == "." else shown_dir
        manifest = (
            f"-- ctx-tree: map: {len(blocks)} of {plural(len(order), 'file')} shown, best first; "
            f"{left} left out for the budget\n"
            f"next: {call('ctx_tree_read', path=path, budget_tokens=wider)}\n"
        )
    else:
        manifest = (
            f"-- ctx-tree: map: all {len(order)} files shown\n"
            if len(order) != 1
            else "-- ctx-tree: map: the one file shown\n"
        )
    # only the files read so far, or the first LOAD_MAX of the directory
    if (not loaded or left_to_index) and (hint := not_indexed(app.store)):
        manifest += f"-- ctx-tree: {hint}\n"
    return head + "".join(blocks) + manifest
