"""Keyword search over the FTS5 index: BM25 with a recency window, the AND-then-OR fallback,
BM25 scores of given nodes and their snippets (docs/search.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctx_tree_schema import Filters, Node

from . import _sql
from ._conn import Db
from ._filters import filter_sql
from ._rows import row_to_node
from ._terms import _quote, fallback_words, match_all_query, match_query, query_words

FTS_PROBE_MAX = 64  # fts_scores: per-rowid lookups up to this many ids
FTS_SCAN_CAP = 50_000  # fts_scores: matches read at most in one pass
TERMS_WEIGHT = 2.0
#: At most this many matches (the newest, after filters) are ranked per FTS query; and a word
#: with this many matches or more is dropped from the OR step when a rarer word remains.
SEARCH_CAP = 1000
#: Words matching this many nodes or more select search candidates but do not rank them.
RANK_MAX_DOCS = 50_000


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One FTS5 hit: the node, its BM25 score (higher is better), a short snippet, and
    whether it matched every word of the query (False: only some, from the fallback).

    ``coverage``: the share of the query's words the node holds, in (0, 1]: 1.0 when it
    matched every word; for a partial match, the words of the fallback's OR it holds over all
    the query's fallback words (a word too frequent to rank, left out of that OR on a large
    store, counts as not held)."""

    node: Node
    score: float
    snippet: str
    matched_all: bool = True
    coverage: float = 1.0

    @property
    def lines(self) -> tuple[int, int] | None:
        """The node's 1-based inclusive line range (``metadata["lines"]``), or None."""
        return self.node.lines


def _low_rank(node: Node) -> bool:
    """A node the filter walker judged noise or too small (``metadata.low_rank``): kept and
    found, listed after the others of its group (docs/walkers.md, filter)."""
    return bool(node.metadata.get("low_rank"))


def search(
    db: Db,
    unrankable: set[str],
    query: str,
    limit: int = 10,
    filters: Filters | None = None,
    *,
    snippets: bool = True,
) -> list[SearchHit]:
    """Keyword search over content and ``terms`` (FTS5 BM25, ``terms`` weighted x2).

    Any string is accepted: only its words are used, each as a quoted FTS5 string, so no
    FTS5 syntax error can occur; a query with no word returns ``[]``. ``limit`` is clamped
    to 1..200. Filters as docs/tools.md; by default live and pending nodes (pruned nodes are not
    in the index at all). ``unrankable`` is the connection's memory of words found to be
    unrankable (below).

    Strategy (bounded work on large stores). Each query word is probed by walking its
    doclist newest-first: *flooding* when it matches :data:`SEARCH_CAP` nodes or more,
    *unrankable* when it matches :data:`RANK_MAX_DOCS` or more (a yes is remembered).

    1. With two or more words, every word must match first (AND; an identifier matches
       whole or as all its parts, see ``terms.match_all_query``).
    2. When that finds fewer than ``limit`` nodes, the rest come from an OR of the words
       (the ranking words below, without identifier parts that are lone digits or
       letters: ``qwertyuiop3`` does not fall back to ``3``). Those hits have
       ``matched_all=False`` and come after every AND hit, whatever their scores: each
       group is best score first, so the hits at limit k are the first k at any larger
       limit (docs/search.md).
    3. Ranking: BM25 (``terms`` column x2) over the non-flooding words; when every word
       floods, over the words that are not unrankable. FTS5's BM25 counts every node
       holding each ranked word (its IDF), which for a word in most of a million nodes
       costs more than the rest of the search; so frequent words select candidates (in
       the AND step) but do not rank them (their IDF is low anyway). When every word is
       unrankable, hits are the newest matches and ``score`` is 0.0.
    4. Each step ranks at most the :data:`SEARCH_CAP` newest matches (after filters) of
       its own expression, a recency window: the AND step its AND matches, whatever the
       number of newer nodes holding only some of the words (so on a small store every
       node with every word is ranked); the OR step the matches of the ranking words. The
       AND step runs BM25 on its window's rows only; finding them walks the ranking
       words' doclists, which BM25's IDF pass walks anyway. An AND match that holds none
       of the ranking words (an identifier found through its flooding parts) scores 0.0.

    Below the cap this is exact BM25 over all matches. Snippets are computed only for the
    returned hits; ``snippets=False`` leaves them empty (hybrid search ranks more
    candidates than it shows).
    """
    limit = max(1, min(int(limit), 200))
    if not query_words(query):
        return []
    words = fallback_words(query)
    where, args = filter_sql(db, filters, "n")
    flooding = {w for w in words if _word_at_least(db, w, SEARCH_CAP)}
    rare = [w for w in words if w not in flooding]
    rank_words = rare or [w for w in words if not _unrankable(db, unrankable, w)]
    rank_expr = " OR ".join(_quote(w) for w in rank_words) if rank_words else None
    hits: list[SearchHit] = []
    all_expr = match_all_query(query)
    if all_expr is not None:
        hits = _search(db, all_expr, rank_expr, where, args, limit, snippets)
    if len(hits) < limit:
        any_expr = rank_expr or " OR ".join(_quote(w) for w in words)
        seen = {h.node.id for h in hits}
        partial = all_expr is not None
        more = _search(
            db,
            any_expr,
            rank_expr,
            where,
            args,
            limit + len(hits),
            snippets,
            words=len(words) if partial else 0,
        )
        hits.extend(
            [replace(h, matched_all=not partial) for h in more if h.node.id not in seen][
                : limit - len(hits)
            ]
        )
    return sorted(hits, key=lambda h: (not h.matched_all, _low_rank(h.node), -h.score))


def search_any(
    db: Db,
    words: Sequence[str],
    limit: int = 200,
    filters: Filters | None = None,
    *,
    window: int = 50_000,
) -> list[SearchHit]:
    """Nodes holding any of ``words`` (each a quoted FTS5 string), BM25-ranked (``terms``
    x2) over the ``window`` newest matches after filters, not :data:`SEARCH_CAP`: for a
    long query's chosen words, whose OR matches much of a store (an indexed project's
    oldest files are its first indexed, not its least relevant). No snippets;
    ``matched_all`` False. ``limit`` is clamped to 1..1000."""
    if not words:
        return []
    limit = max(1, min(int(limit), 1000))
    where, args = filter_sql(db, filters, "n")
    expr = " OR ".join(_quote(w) for w in words)
    hits = _search(db, expr, expr, where, args, limit, False, cap=max(1, window))
    return [replace(h, matched_all=False) for h in hits]


def _word_at_least(db: Db, word: str, count: int) -> bool:
    return bool(db.query(_sql.WORD_AT_LEAST, (_quote(word), count - 1)))


def _unrankable(db: Db, known: set[str], word: str) -> bool:
    """Whether ``word`` matches :data:`RANK_MAX_DOCS` nodes or more. A yes is remembered in
    ``known`` (counts only shrink by pruning); a no is cheap to re-check."""
    if word in known:
        return True
    if _word_at_least(db, word, RANK_MAX_DOCS):
        if len(known) >= 10_000:
            known.clear()
        known.add(word)
        return True
    return False


def _search(
    db: Db,
    expr: str,
    rank_expr: str | None,
    where: str,
    args: list[Any],
    limit: int,
    snippets: bool = True,
    words: int = 0,
    cap: int | None = None,
) -> list[SearchHit]:
    """Hits for the FTS expression ``expr`` (``rank_expr`` itself, or an AND of the words),
    ranked by BM25 of ``rank_expr`` (newest first when None), among the
    :data:`SEARCH_CAP` newest matches of ``expr`` after filters. A match of ``expr`` that
    holds none of ``rank_expr``'s words scores 0.0 (after the scored ones, newest first).
    ``words``: the query's word count, for a partial match's ``coverage`` (the share of
    them it holds, of ``expr``'s); 0 gives every hit 1.0."""
    with db.lock:
        if rank_expr is None:
            ranked = db.query(_sql.SEARCH_NEWEST.format(where=where), [expr, *args, limit])
        elif expr == rank_expr:
            floor = db.query(
                _sql.SEARCH_FLOOR.format(where=where),
                [expr, *args, (cap or SEARCH_CAP) - 1],
            )
            low = floor[0][0] if floor else -(2**63)
            scored = db.query(
                _sql.SEARCH_RANK.format(where=where, terms_weight=TERMS_WEIGHT),
                [rank_expr, *args, low],
            )
            scored.sort(key=lambda r: -r[1])
            ranked = scored[:limit]
        else:
            # An AND: its own newest matches are the window (so a node holding every word
            # is never crowded out by newer partial matches), ranked by the ranking words.
            sql = _sql.SEARCH_NEWEST.format(where=where)
            window = [r[0] for r in db.query(sql, [expr, *args, SEARCH_CAP])]
            scores: dict[int, float] = {}
            if window:
                sql = _sql.SEARCH_RANK_AMONG.format(terms_weight=TERMS_WEIGHT)
                bounds = [window[-1], window[0], json.dumps(window)]
                scores.update(db.query(sql, [rank_expr, *bounds]))
            ranked = sorted(((r, scores.get(r, 0.0)) for r in window), key=lambda r: -r[1])
            ranked = ranked[:limit]
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = {
            r[0]: r
            for r in db.con.execute(
                _sql.SEARCH_ROWS.format(
                    marks=marks, snippet=_sql.SEARCH_SNIPPET if snippets else "''"
                ),
                [expr, *(r[0] for r in ranked)],
            )
        }
    return [
        SearchHit(
            row_to_node(rows[rowid][1:14]),
            float(score),
            rows[rowid][14] or "",
            coverage=min(1.0, rows[rowid][15] / words) if words else 1.0,
        )
        for rowid, score in ranked
        if rowid in rows
    ]


def fts_scores(db: Db, query: str, node_ids: Sequence[str]) -> dict[str, float]:
    """BM25 scores (higher is better) of the given nodes for ``query``; non-matching ids absent.

    Up to :data:`FTS_PROBE_MAX` ids are scored one rowid lookup each (~0.25 ms); more are
    scored in one pass over the query's matches, read in rowid order and stopped after
    :data:`FTS_SCAN_CAP` matches (on huge stores a candidate past the cap scores 0).
    """
    expr = match_query(query)
    if expr is None or not node_ids:
        return {}
    rowids: dict[int, str] = {}
    ids = list(dict.fromkeys(node_ids))
    for batch, marks in _sql.in_batches(ids):
        sql = _sql.NODE_ROWIDS.format(marks=marks)
        rowids.update((r, nid) for nid, r in db.query(sql, batch))
    out: dict[str, float] = {}
    with db.lock:
        if len(rowids) <= FTS_PROBE_MAX:
            for rowid, nid in rowids.items():
                score = db.con.execute(_sql.FTS_SCORE_ROWID, (expr, rowid)).get
                if isinstance(score, int | float):
                    out[nid] = float(score)
            return out
        for seen, (rowid, score) in enumerate(db.con.execute(_sql.FTS_SCORES_ALL, (expr,)), 1):
            found = rowids.get(rowid)
            if found is not None:
                out[found] = float(score)
                if len(out) == len(rowids):
                    break
            if seen >= FTS_SCAN_CAP:
                break
    return out


def snippets(db: Db, query: str, node_ids: Sequence[str]) -> dict[str, str]:
    """``{id: snippet}`` of the given nodes that hold a word of ``query``: the words in
    context as keyword search shows them (FTS5 ``snippet()``, about 16 tokens). For hits
    ranked by other means (semantic and hybrid search) that should still show why they
    match. At most 100 ids; nodes holding none of the words are absent."""
    expr = match_query(query)
    ids = list(dict.fromkeys(node_ids))[:100]
    if expr is None or not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rowids = [r[1] for r in db.query(_sql.NODE_ROWIDS.format(marks=marks), ids)]
    if not rowids:
        return {}
    sql = _sql.SNIPPETS.format(marks=",".join("?" * len(rowids)))
    return {r[0]: r[1] or "" for r in db.query(sql, [expr, *rowids])}
