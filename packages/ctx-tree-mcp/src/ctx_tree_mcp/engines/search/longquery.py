"""Keyword search with a long query: a pasted issue, a stack trace, a paragraph of intent
(docs/search.md#long-queries).

The store's search takes a query's first 32 words, all required first, then any of them: a
pasted issue's first 32 words are mostly its title and English. Here, instead:

1. the query's words are weighed: English stopwords and words of one or two letters are
   dropped; identifiers (``snake_case``, ``CamelCase``, dotted names, words in backticks) and
   words repeated in the query count more; each word's document frequency in the index
   (``Store.word_counts``) gives its IDF, and words the index does not hold are dropped;
2. the :data:`TERMS` best words are searched (any of them, BM25 over chunks, over far more
   matches than a short query's recency window: ``Store.search_any``);
3. chunk scores are summed per file (best chunk in full, then 1/2, 1/4 …), a file whose path
   names a query word (``autodoc`` → ``sphinx/ext/autodoc/__init__.py``) counts more, and the
   answer lists each file's best chunk in file order before any second chunk of a file.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.engines.files import roles

if TYPE_CHECKING:
    from ctx_tree_schema import Filters
    from ctx_tree_store import Store

#: A query with more words than this (after stopwords) is searched as a long query.
LONG_WORDS = 8
#: Words searched for a long query (the 20 of most weight x IDF: the next ones are mostly
#: common words, whose postings cost most and rank least).
TERMS = 20
#: Chunks ranked before aggregation per file.
CANDIDATES = 200

_STOP_TEXT = """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else etc even ever every few for from further get gets getting got had has have
    having he her here hers him his how however i if in into is it its itself just least
    less let like made make many may me might more most much must my near need needs never
    new no nor not now of off often on once one only or other our out over own per perhaps
    please put quite rather really same see seem seems she should show shows since so some
    something still such than that the their them then there these they thing things this
    those though through thus to too try trying under until up upon us use used uses using
    very via want wants was way we well were what when where whether which while who whom
    why will with within without would yet you your able actually already always another
    anyone anything around back become becomes believe currently example expected following
    given go going instead issue know look looks looking means mentioned noticed obviously
    output problem reproduce result returns running seen shown simply sure take tell think
    went work works wrong yes bug error"""
#: English words that say nothing about where code is (dropped from a long query).
STOPWORDS = frozenset(_STOP_TEXT.split())
#: A name in backticks, a dotted name, a camelCase name, a snake_case name. Each starts only
#: where a match can be leftmost (a dotted name at its word's start, past leading digits; a
#: camelCase one where its letters start; a snake_case one where its letters and digits
#: start), so a long run of letters, digits, dots or underscores is read once, not once from
#: each of its characters (quadratic: a pasted base64 blob of 16k characters took 7 s).
_IDENT = re.compile(
    r"`([^`\n]{2,80})`"
    r"|(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)+)"
    r"|(?<![A-Za-z])([A-Za-z]*[a-z][A-Z][A-Za-z0-9]*+)"
    r"|(?<![A-Za-z0-9])([A-Za-z0-9]++_[A-Za-z0-9_]++)"
    r"|(?<![A-Za-z0-9_])[0-9]++([A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)+)"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
#: A URL in a query: its host and path name another site, not the code (dropped).
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
#: An HTML comment: an issue template's instructions, which the rendered issue does not show.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
#: A line of a package listing (``pip list``, ``pip freeze``, ``conda list``): a name, a
#: version, at most two more columns (a location, a build, a channel).
_PACKAGE_LINE = re.compile(
    r"^[ \t]*[A-Za-z0-9][A-Za-z0-9_.\-\[\]]*(?:[ \t]+|==)v?\d+(?:\.\w+)+[^ \t\n]*"
    r"(?:[ \t]+[^ \t\n]+){0,2}[ \t]*$",
    re.M,
)


def _words_of(query: str) -> str:
    """The query without what says nothing about the code: URLs (another site), HTML
    comments (template instructions) and package listing lines (an environment's versions)."""
    return _PACKAGE_LINE.sub(" ", _COMMENT.sub(" ", _URL.sub(" ", query)))


def is_long(query: str) -> bool:
    """True when ``query`` has more than :data:`LONG_WORDS` words that are not stopwords."""
    count = 0
    for w in _WORD.findall(query):
        if w.lower() not in STOPWORDS:
            count += 1
            if count > LONG_WORDS:
                return True
    return False


def weighted_words(query: str) -> Counter[str]:
    """``{word: weight}`` of the query: each word (lower-cased, identifiers also split at
    ``_``, camelCase and dots) once per occurrence, identifiers' words three times."""
    from ctx_tree_store import split_identifier

    weights: Counter[str] = Counter()
    query = _words_of(query)
    for m in _IDENT.finditer(query):
        text = next(g for g in m.groups() if g)
        for piece in re.split(r"[^A-Za-z0-9_]+", text):
            if len(piece) < 3:
                continue
            weights[piece.lower()] += 2
            for part in split_identifier(piece):
                if len(part) >= 3:
                    weights[part.lower()] += 2
    for w in _WORD.findall(query):
        low = w.lower()
        if len(low) >= 3 and low not in STOPWORDS:
            weights[low] += 1
    for w in list(weights):
        if w in STOPWORDS or w.isdigit():
            del weights[w]
    return weights


def pick_terms(store: Store, query: str, count: int | None = None) -> list[str]:
    """The ``count`` most informative words of ``query`` for this store: weight x IDF, the
    words the index does not hold left out."""
    weights = weighted_words(query)
    # identifiers whole are only in the terms column when stored as such; keep the parts too
    candidates = [w for w, _ in weights.most_common(120)]
    cap = 5000
    df = store.word_counts(candidates, cap)
    scored = []
    for w in candidates:
        n = df.get(w, 0)
        if n == 0:
            continue
        idf = math.log(1 + cap / n)
        scored.append((weights[w] ** 0.5 * idf, w))
    scored.sort(reverse=True)
    return [w for _s, w in scored[: TERMS if count is None else count]]


def _path_words(relpath: str) -> set[str]:
    parts = re.split(r"[/._\-]+", relpath.lower())
    return {p for p in parts if len(p) >= 3 and p not in {"py", "init", "src", "lib"}}


#: Okapi BM25 constants, for chunks and for whole files alike.
K1 = 1.2
B = 0.75
#: Files ranked in full (chunk counts fetched, both rankings fused); the rest are left out.
SHORTLIST = 200


@dataclass(frozen=True, slots=True)
class Ranking:
    """A long query ranked over the index: ``files`` best first as ``(score, key)`` (a key
    is a file root's id, or a node's own id for what is not a file chunk), and for each key
    its matching nodes best first as ``(score, rowid, node id)``."""

    files: list[tuple[float, str]]
    chunks: dict[str, list[tuple[float, int, str]]]

    def weights(self, decay: float | None = None) -> dict[str, float]:
        """``{key: weight}``, 1.0 for the best file: each file's score relative to the best's
        (the fused scores are close together: a file's second chunk competes with the next
        files' best), or with ``decay``, ``decay ** rank`` (the budget goes to the first
        files: compose's seeds)."""
        if decay is not None:
            return {k: decay**i for i, (_s, k) in enumerate(self.files)}
        best = self.files[0][0] if self.files and self.files[0][0] > 0 else 1.0
        return {k: s / best for s, k in self.files}


#: Score factor of a chunk whose symbol the query names (``parse_args``, ``Parser.parse_args``,
#: a traceback's ``in parse_args``).
NAMED_FACTOR = 2.0
#: Weight factor, in a chunk's score, of a word that is a name the query gives.
IDENT_FACTOR = 2.0
_FRAME = re.compile(r"\bin ([A-Za-z_][A-Za-z0-9_.]*)\s*$", re.M)


#: A name called: ``parse(``, ``a.b.parse(``. It starts where its run of name characters
#: and dots starts (past leading digits and dots), so that a long run is read once.
_CALL = re.compile(r"(?<![A-Za-z0-9_.])[0-9.]*+([A-Za-z_][A-Za-z0-9_.]*+)\(")
_CODE_NAME = re.compile(r"[A-Za-z0-9]_|_[A-Za-z0-9]|[a-z][A-Z]")


def named_symbols(query: str) -> set[str]:
    """The functions, classes and methods ``query`` names, lower-cased, whole and by their
    last dotted part: identifiers that look like code (``snake_case``, ``_private``,
    ``camelCase``, ``CamelCase`` with an inner capital), names called (``parse(``) and the
    function of each traceback frame (``File "x.py", line 3, in parse``). A plain word
    (``Card``, ``comment`` of ``c.comment``) is not a name: it is the query's English."""
    out: set[str] = set()
    text = _words_of(query)
    found = [next(g for g in m.groups() if g) for m in _IDENT.finditer(text)]
    called = {m.split(".")[-1] for m in _CALL.findall(text)}
    called |= {m.split(".")[-1] for m in _FRAME.findall(text)}
    for name in [*found, *called]:
        name = name.strip().split("(", 1)[0].strip(".")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            continue
        last = name.rsplit(".", 1)[-1]
        if len(last) >= 3 and (_CODE_NAME.search(last) or last in called):
            out.add(last.lower())
            if "." in name:
                out.add(name.lower())
    return out


#: A Python traceback frame: ``File "path", line N, in func``.
_PY_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([A-Za-z_<][A-Za-z0-9_.<>]*))?')
#: A ``path:line`` mention (a pytest or JavaScript frame, a compiler or linter message), the
#: path's file name with an extension: ``src/app/views.py:42``, ``conventions.py:492: in f``.
#: It starts where a word starts (or after the slash that starts a path: ``/usr/x.py:3``),
#: never inside a run of path characters, so a long run (``a.a.a…``, ``a/a/a…``) is read
#: once, not once from each of its characters (quadratic: 40k characters took 16 s); a
#: name after a dot or a tilde inside a word is not a mention (``.eslintrc.js:3`` is not
#: ``eslintrc.js``).
_PATH_LINE = re.compile(
    r"(?<![A-Za-z0-9_.~\-])(?<![A-Za-z0-9_.~\-][/\\])"
    r"((?:[A-Za-z0-9_.~\-]+[/\\])*[A-Za-z0-9_\-][A-Za-z0-9_.\-]*\.[A-Za-z][A-Za-z0-9]{0,5}):(\d+)"
    r"(?::\d+)?(?::? in ([A-Za-z_][A-Za-z0-9_.]*))?"
)
#: A link to a repository file's line (GitHub, GitLab, Gitea: ``/blob/<ref>/path#L311``).
_BLOB_LINE = re.compile(r"/blob/[^/\s]+/([^\s#?)\]]+)#L(\d+)")


@dataclass(frozen=True, slots=True)
class Location:
    """A place the query points at: a path as written (any prefix: a site-packages or CI
    path), a 1-based line, the function a traceback frame names (or None), and whether it
    is a Python traceback frame (``File "…", line N``: most recent call last)."""

    path: str
    line: int
    function: str | None
    frame: bool = False


def locations(query: str) -> list[Location]:
    """The file locations ``query`` names, in query order: Python traceback frames
    (``File "x.py", line 3, in f``), ``path:line`` mentions (pytest and JavaScript frames,
    compiler and linter messages; ``: in f`` after one names its function) and links to a
    repository file's line (``…/blob/<ref>/path#L311``). The line is the writer's version of
    the file: near, not exact, in another version."""
    out: list[tuple[int, Location]] = []
    taken: list[tuple[int, int]] = []
    for pattern in (_PY_FRAME, _BLOB_LINE, _PATH_LINE):
        for m in pattern.finditer(query):
            if any(a <= m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            func = m.group(3) if pattern is not _BLOB_LINE else None
            if func is not None and func.startswith("<"):
                func = None  # <module>, <lambda>: no symbol of that name
            path = m.group(1).replace("\\", "/")
            loc = Location(path, int(m.group(2)), func, pattern is _PY_FRAME)
            out.append((m.start(), loc))
    out.sort(key=lambda t: t[0])
    return [loc for _i, loc in out]


def _path_match(mention: str, relpath: str) -> int:
    """How many trailing path components ``mention`` and ``relpath`` share (0 when the file
    names differ)."""
    a = [p for p in mention.lower().split("/") if p not in ("", ".")]
    b = relpath.lower().split("/")
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _symbol_key(symbol: str) -> tuple[str, str]:
    """A chunk's symbol as :func:`named_symbols` gives names: whole (a part's ``#2`` cut
    off) and by its last dotted part, lower-cased."""
    base, sep, tail = symbol.rpartition("#")
    base = (base if sep and tail.isdigit() else symbol).lower()
    return base, base.rpartition(".")[2]


#: Chunks (best first) whose callees share their score.
REFERRERS = 10
#: Share of a chunk's score each of its callees that matches the query too gains.
REFERENCE_SHARE = 0.5


def _follow_references(
    store: Store, chunk_score: dict[int, float], docs: dict[int, tuple[Any, ...]]
) -> None:
    """In place: each matching chunk that one of the :data:`REFERRERS` best chunks uses
    (a call, a name it imports: docs/search.md, "References between symbols") gains
    :data:`REFERENCE_SHARE` of that chunk's score. A query describes behaviour; the code
    that has it is often what the best match calls."""
    from ctx_tree_mcp.engines.files.refgraph import RefGraph, project_root

    best = sorted(chunk_score, key=lambda r: -chunk_score[r])[:REFERRERS]
    nodes = store.get_many([docs[r][0] for r in best])
    root = next((p for n in nodes.values() if (p := project_root(n)) is not None), None)
    if root is None:
        return
    rowid_of = {docs[r][0]: r for r in chunk_score}
    graph = RefGraph(store, root)
    gains: dict[int, float] = defaultdict(float)
    for r in best:
        node = nodes.get(docs[r][0])
        chunk = graph.chunk(node) if node is not None else None
        if chunk is None:
            continue
        for edge in graph.callees(chunk):
            callee = rowid_of.get(edge.dst)
            if callee is not None and callee != r:
                gains[callee] = max(gains[callee], REFERENCE_SHARE * chunk_score[r])
    for callee, gain in gains.items():
        chunk_score[callee] += gain


def _name_shares(store: Store, query: str, symbols: set[str]) -> dict[str, float]:
    """``{symbol: share}``: the share of the words of each symbol's own name (its last
    dotted part; ``get_outdated_files`` → get, outdated, files) that the query holds, as the
    index stems them (``outdated`` and ``outdate`` are one word). A query describes what it
    looks for in the words the code names it by."""
    words = store.index_words
    wanted = set(words(query))
    out: dict[str, float] = {}
    for symbol in symbols:
        name = _symbol_key(symbol)[1]
        parts = [w for w in words(name.replace("_", " ")) if len(w) > 2]
        if parts:
            held = sum(1 for w in parts if w in wanted)
            if held:
                out[symbol] = held / len(parts)
    return out


def _bm25(tf: float, length: float, avg: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(avg, 1e-9)))


#: BM25's length normalization when a file's chunks are ranked against each other: weaker
#: than across the index (0.75), since a change is about as likely on any line, so a larger
#: chunk is likelier to hold it, and a three-line class header should not lead its file on
#: the density of one word.
IN_FILE_B = 0.25
#: Files (best first) whose chunks are put in their in-file order; the rest keep their
#: index-wide order (no answer of at most 100 hits, nor compose's 50 seeds, reaches them).
IN_FILE_FILES = 60


def _in_file_order(
    group: list[tuple[float, int, str]],
    in_file: dict[int, list[tuple[str, float]]],
    is_named: set[int],
    chunk_count: int,
) -> list[tuple[float, int, str]]:
    """A file's matching chunks ranked against each other, best first, as
    ``(score, rowid, node id)``: each term's BM25 (:data:`IN_FILE_B`) times its IDF in the
    index times its IDF among the file's ``chunk_count`` chunks, relative to a term held by
    one chunk (so a word every chunk of the file holds, the module's own theme, tells them
    nothing), the chunks whose symbol the query names :data:`NAMED_FACTOR`."""
    n = max(chunk_count, len(group))
    df: Counter[str] = Counter(w for _s, r, _id in group for w, _x in in_file.get(r, ()))
    one = math.log(1 + (n + 0.5) / 1.5)
    local = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) / one for w, d in df.items()}
    out = []
    for _score, rowid, nid in group:
        score = sum(x * local[w] for w, x in in_file.get(rowid, ()))
        out.append((score * (NAMED_FACTOR if rowid in is_named else 1.0), rowid, nid))
    out.sort(reverse=True)
    return out


def _idf(df: int, total: int) -> float:
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def rank(store: Store, query: str, filters: Filters) -> Ranking:
    """Rank files and their chunks for a long ``query`` (docs/search.md#long-queries).

    Terms: :func:`pick_terms`, each weighted by the square root of its query weight.
    Chunks: Okapi BM25 over the index's nodes. Files: Okapi BM25 over whole files (a file's
    term counts summed over its chunks, its length its chunk count) and the chunk aggregation
    (best chunk, then 1/2, 1/4, 1/8 of the next three), each divided by its best file's and
    averaged (a convex fusion: a file's score in (0, 1] says by how much the best leads); a
    file whose path names a query word is raised (x1.35 per word, up to three); a file that
    is not source counts its role's factor (:mod:`.roles`: tests and docs 0.5, translations
    0.1 …) unless the query asks for that kind of file; a file the query locates
    :data:`LOCATION_FILE_FACTOR`. A chunk whose symbol the query names
    (:func:`named_symbols`) counts :data:`NAMED_FACTOR`; one whose symbol's own name the
    query describes (:func:`_name_shares`: the share of its words the query holds) up to
    that much, in proportion. A ranked file's chunks are ordered by
    :func:`_in_file_order`, the chunks at the query's :func:`locations` first; its root (the
    outline) is left out when any other chunk matches."""
    from ctx_tree_store import split_identifier

    terms = pick_terms(store, query)
    if not terms:
        return Ranking([], {})
    weights = weighted_words(query)
    post = store.postings(terms, filters)
    if not post.docs:
        return Ranking([], {})
    qw = {w: weights[w] ** 0.5 for w in post.tf}
    avg = max(sum(d[3] for d in post.docs.values()) / len(post.docs), 1e-9)
    chunk_score: dict[int, float] = defaultdict(float)
    key_of: dict[int, str] = {}
    rel_len: dict[int, float] = {}  # a chunk's length over the mean
    for rowid, (nid, parent, kind, size, _symbol) in post.docs.items():
        key_of[rowid] = parent if kind == "file_chunk" and parent else nid
        rel_len[rowid] = size / avg
    # BM25 inlined (this loop runs once per posting, tens of thousands on a large store)
    norm = {r: K1 * (1 - B + B * x) for r, x in rel_len.items()}
    file_tf: dict[str, dict[str, float]] = defaultdict(dict)
    named = named_symbols(query)
    term_weight: dict[str, float] = {}
    for w, counts in post.tf.items():
        # a chunk is found by the names the query gives more than by its English
        g = term_weight[w] = (
            qw[w] * (IDENT_FACTOR if w in named else 1.0) * _idf(len(counts), post.total)
        )
        for rowid, n in counts.items():
            chunk_score[rowid] += g * n * (K1 + 1) / (n + norm[rowid])
            per = file_tf[key_of[rowid]]
            per[w] = per.get(w, 0.0) + n
    is_named: set[int] = set()
    for rowid, score in chunk_score.items() if named else ():
        symbol = post.docs[rowid][4]
        if symbol:
            whole, last = _symbol_key(symbol)
            if whole in named or last in named:
                chunk_score[rowid] = score * NAMED_FACTOR
                is_named.add(rowid)
    described = _name_shares(store, query, {str(post.docs[r][4] or "") for r in chunk_score} - {""})
    for rowid, score in chunk_score.items():
        share = described.get(post.docs[rowid][4] or "", 0.0)
        if share and rowid not in is_named:
            chunk_score[rowid] = score * (1 + (NAMED_FACTOR - 1) * share)
    _follow_references(store, chunk_score, post.docs)
    chunks: dict[str, list[tuple[float, int, str]]] = defaultdict(list)
    for rowid, score in chunk_score.items():
        chunks[key_of[rowid]].append((score, rowid, post.docs[rowid][0]))
    for group in chunks.values():
        group.sort(reverse=True)
    aggregate = {
        k: sum(s * 0.5**i for i, (s, _r, _id) in enumerate(g[:4])) for k, g in chunks.items()
    }
    short = sorted(aggregate, key=lambda k: -aggregate[k])[:SHORTLIST]
    # a file's length: its chunk count (files are chunked to bounded sizes)
    lengths = store.child_counts(short)
    flen = {k: max(1, lengths.get(k, 0)) for k in short}
    favg = sum(flen.values()) / len(flen)
    files_total = len(file_tf)  # the files holding any term: N of the files' IDF
    fdf: Counter[str] = Counter(w for per in file_tf.values() for w in per)
    fscore = {
        k: sum(
            qw[w] * _idf(fdf[w], files_total) * _bm25(n, flen[k], favg)
            for w, n in file_tf[k].items()
        )
        for k in short
    }
    # convex fusion: each ranking normalized by its best, so a file far ahead stays ahead
    fbest = max(fscore.values()) or 1.0
    abest = aggregate[short[0]] or 1.0
    fused = {k: (fscore[k] / fbest + aggregate[k] / abest) / 2 for k in short}
    qwords = set(weights)
    for w in list(qwords):
        qwords.update(p.lower() for p in split_identifier(w))
    nodes = store.get_many(short)
    wanted = roles.asked(query)
    for k in short:
        node = nodes.get(k)
        rel = node.metadata.get("relpath") if node is not None else None
        if rel:
            fused[k] *= 1 + 0.35 * min(len(_path_words(rel) & qwords), 3)
            fused[k] *= roles.factor(rel, wanted)
        if node is not None and node.kind.value == "file_chunk":
            # a file is shown by its chunks; its root (the outline) only when nothing else
            group = chunks[k]
            body = [c for c in group if c[2] != k]
            chunks[k] = body or group
    # the first files' chunks in their in-file order (the answer and compose's seeds are
    # drawn from them); each term's share of a chunk's in-file score, before the file's IDF
    first = sorted(short, key=lambda k: -fused[k])[:IN_FILE_FILES]
    rows = {r for k in first for _s, r, _id in chunks[k]}
    in_file: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for w, counts in post.tf.items():
        g = term_weight[w]
        for rowid in rows & counts.keys():
            n = counts[rowid]
            tfn = n * (K1 + 1) / (n + K1 * (1 - IN_FILE_B + IN_FILE_B * rel_len[rowid]))
            in_file[rowid].append((w, g * tfn))
    for k in first:
        chunks[k] = _in_file_order(chunks[k], in_file, is_named, flen[k])
    if locs := locations(query):
        _place(store, locs, short, nodes, chunks, fused)
    files = sorted(((s, k) for k, s in fused.items()), key=lambda t: -t[0])
    return Ranking(files, dict(chunks))


#: Score factor of a chunk at a location the query names (a traceback frame, ``path:line``,
#: a link to a file's line): such a chunk comes first in its file.
LOCATION_FACTOR = 3.0
#: Further factor of the innermost Python traceback frame's chunk ("most recent call last":
#: the last frame the query shows that resolves to a stored file), where the error was raised.
INNERMOST_FACTOR = 2.0
#: Score factor of a file the query locates (once, however many locations it holds).
LOCATION_FILE_FACTOR = 1.5
#: A location whose path matches more stored files than this equally well (``__init__.py``)
#: is left out: it does not say which.
LOCATION_MAX_FILES = 3


def _place(
    store: Store,
    locs: list[Location],
    keys: list[str],
    nodes: dict[str, Any],
    chunks: dict[str, list[tuple[float, int, str]]],
    fused: dict[str, float],
) -> None:
    """Raise the files and chunks at the query's :func:`locations`, in place: each location
    resolves to the ranked files whose path shares the most trailing components with its
    path (the file name at least; at most :data:`LOCATION_MAX_FILES` such files), and in each
    to the chunk of the function its frame names (the part holding the line when the
    function is split), else to the chunk holding the line. That chunk's score becomes at
    least its file's best, times :data:`LOCATION_FACTOR` (:data:`INNERMOST_FACTOR` more for
    the innermost Python frame); its file's score counts :data:`LOCATION_FILE_FACTOR`."""
    rel = {
        k: nodes[k].metadata.get("relpath")
        for k in keys
        if k in nodes and nodes[k].kind.value == "file_chunk"
    }
    kids: dict[str, list[Any]] = {}
    factor: dict[tuple[str, str], float] = {}
    innermost: tuple[str, str] | None = None
    for loc in locs:
        best, found = 0, []
        for k, r in rel.items():
            n = _path_match(loc.path, r) if r else 0
            if n > best:
                best, found = n, [k]
            elif n and n == best:
                found.append(k)
        if not best or len(found) > LOCATION_MAX_FILES:
            continue
        for k in found:
            if k not in kids:
                kids[k] = [c for c in store.children(k) if c.lines]
            at = [c for c in kids[k] if c.lines[0] <= loc.line <= c.lines[1]]
            named = []
            if loc.function:
                want = loc.function.rsplit(".", 1)[-1].lower()
                named = [
                    c
                    for c in kids[k]
                    if _symbol_key(str(c.metadata.get("symbol") or ""))[1] == want
                ]
            pick = [c for c in named if c in at] or named[:1] or at[:1]
            for c in pick:
                factor[(k, c.id)] = LOCATION_FACTOR
                if loc.frame:
                    innermost = (k, c.id)
    if innermost is not None:
        factor[innermost] = LOCATION_FACTOR * INNERMOST_FACTOR
    tops = {k: (chunks[k][0][0] if chunks.get(k) else 1.0) for k, _n in factor}
    for (k, nid), f in factor.items():
        group = chunks.setdefault(k, [])
        own = next((t for t in group if t[2] == nid), None)
        score = f * (tops[k] + (own[0] if own else 0.0)) / 2
        rest = [t for t in group if t[2] != nid]
        chunks[k] = sorted([*rest, (score, own[1] if own else -1, nid)], reverse=True)
    for k in {k for k, _n in factor}:
        fused[k] *= LOCATION_FILE_FACTOR


#: Chunks of one file a long query's answer may list.
PER_FILE = 4
#: Each further chunk of a file counts this much less than the one before it in the answer
#: (diminishing returns: the file is already shown; another file's best may be new).
FURTHER_CHUNK = 0.8


def search(store: Store, query: str, limit: int, filters: Filters) -> list[Any]:
    """The hits of a long ``query`` (see :func:`rank`), at most ``limit``, as
    ``ctx_tree_store.SearchHit`` with ``matched_all=False``: the chunks of the ranked files
    (at most :data:`PER_FILE` each), each scored by its file's score times its
    own relative to its file's best chunk and :data:`FURTHER_CHUNK` per chunk of the file
    before it, best first. A file's best chunk scores its file's score (relative to the best
    file's), so a file's second chunk is listed above another file's best when its share of
    its file's best, times 0.8, beats that file's share of the best file: a file far ahead of
    the rest shows more of its chunks."""
    ranking = rank(store, query, filters)
    picked: list[tuple[float, str]] = []
    weights = ranking.weights()
    for _total, key in ranking.files:  # all of them: the hits at k are the first k at any limit
        group = ranking.chunks[key]
        top = group[0][0] or 1.0
        picked.extend(
            (weights[key] * score / top * FURTHER_CHUNK**i, nid)
            for i, (score, _r, nid) in enumerate(group[:PER_FILE])
        )
    picked.sort(key=lambda t: -t[0])
    picked = picked[:limit]
    nodes = store.get_many([nid for _s, nid in picked])
    out: list[Any] = []
    from ctx_tree_store import SearchHit

    for score, nid in picked:
        node = nodes.get(nid)
        if node is None:
            continue
        out.append(_with(SearchHit(node, score, ""), score))
    return out


def _with(hit: Any, score: float) -> Any:
    snippet = hit.snippet or " ".join(hit.node.content.split())[:160]
    return replace(hit, score=round(score, 4), snippet=snippet, matched_all=False)
