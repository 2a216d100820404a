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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tree_schema import Filters

    from .app import App

#: A query with more words than this (after stopwords) is searched as a long query.
LONG_WORDS = 12
#: Words searched for a long query.
TERMS = 30
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
_IDENT = re.compile(
    r"`([^`\n]{2,80})`|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)"
    r"|([A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Za-z0-9]+_[A-Za-z0-9_]+)"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


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


def pick_terms(app: App, query: str, count: int = TERMS) -> list[str]:
    """The ``count`` most informative words of ``query`` for this store: weight x IDF, the
    words the index does not hold left out."""
    weights = weighted_words(query)
    # identifiers whole are only in the terms column when stored as such; keep the parts too
    candidates = [w for w, _ in weights.most_common(120)]
    cap = 5000
    df = app.store.word_counts(candidates, cap)
    scored = []
    for w in candidates:
        n = df.get(w, 0)
        if n == 0:
            continue
        idf = math.log(1 + cap / n)
        scored.append((weights[w] ** 0.5 * idf, w))
    scored.sort(reverse=True)
    return [w for _s, w in scored[:count]]


def _path_words(relpath: str) -> set[str]:
    parts = re.split(r"[/._\-]+", relpath.lower())
    return {p for p in parts if len(p) >= 3 and p not in {"py", "init", "src", "lib"}}


def search(app: App, query: str, limit: int, filters: Filters) -> list[Any]:
    """The hits of a long ``query`` (see the module's doc), at most ``limit``, as
    ``ctx_tree_store.SearchHit`` with ``matched_all=False`` and the file's score."""
    from ctx_tree_store import split_identifier

    terms = pick_terms(app, query)
    if not terms:
        return []
    hits = app.store.search_any(terms, limit=CANDIDATES, filters=filters)
    if not hits:
        return []
    qwords = set(weighted_words(query))
    for w in list(qwords):
        qwords.update(p.lower() for p in split_identifier(w))
    groups: dict[str, list[Any]] = defaultdict(list)
    for h in hits:
        meta = h.node.metadata
        key = meta.get("relpath") if h.node.kind.value == "file_chunk" else None
        groups[key or h.node.id].append(h)
    scored: list[tuple[float, str]] = []
    for key, group in groups.items():
        group.sort(key=lambda h: -h.score)
        total = sum(h.score * 0.5**i for i, h in enumerate(group[:4]))
        if group[0].node.kind.value == "file_chunk":
            named = len(_path_words(key) & qwords)
            total *= 1 + 0.35 * min(named, 3)
        scored.append((total, key))
    scored.sort(key=lambda t: -t[0])
    out: list[Any] = []
    floor = math.inf
    for depth in range(4):  # each file's best chunk before any file's second one
        for total, key in scored:
            group = groups[key]
            if depth < len(group):
                floor = min(floor, total * 0.5**depth)  # scores never rise down the list
                out.append(_with(group[depth], floor))
            if len(out) >= limit:
                return out
    return out


def _with(hit: Any, score: float) -> Any:
    snippet = hit.snippet or " ".join(hit.node.content.split())[:160]
    return replace(hit, score=round(score, 4), snippet=snippet, matched_all=False)
