"""How hybrid search fuses its rankings into one list (docs/search.md#hybrid).

Two rules, chosen by ``search.fusion``:

* ``convex`` (the default): a convex combination of normalized scores, with equal weights.
  Every candidate is scored on all three signals, so one missing from a list is not ranked
  as if it were last of all. For a candidate ``n`` of the pool (BM25's candidates and the
  vectors'):

  - lexical: ``bm25(n) / max bm25 × coverage(n)``: its BM25 score over the best one (BM25 has
    no fixed maximum; its minimum is 0, no match), times the share of the query's words it
    holds (1.0 for every word; the *coordination factor* of classic Lucene scoring), so a
    partial match high in BM25 through one rare word does not outrank the nodes holding all
    of them;
  - vector: ``(sim(n) - min sim) / (max sim - min sim)`` over the pool (min-max: cosine
    similarities of one model crowd into a narrow band, e.g. 0.80-0.94 for e5, so only
    their spread tells), 0 for a node with no vector yet;
  - symbol: its symbol-field BM25 (:mod:`.symbol_rank`) over the best one, 0 without.

  ``score(n) = lexical + vector + symbol``, in [0, 3].
  Bruch, Gai and Ingber, *An Analysis of Fusion Functions for Hybrid Retrieval* (ACM TOIS
  2023), found this kind of fusion better than RRF and robust to its weights; on our
  measured set it places the target first more often than RRF does, with the same weights
  untuned (docs/benchmarks.md#semantic-and-hybrid-search).
* ``rrf``: Reciprocal Rank Fusion, ``score(n) = Σ 1 / (search.rrfK + rank)`` over the rankings
  that hold ``n`` (ranks from 1): only ranks count, not by how much one candidate leads.

Both are pure functions of their inputs; ties keep the pool's order (BM25's first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(rankings: Sequence[Sequence[str]], k: int) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: ``[(id, score)]`` best first; ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, node_id in enumerate(ranking, 1):
            scores[node_id] = scores.get(node_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def convex(
    pool: Sequence[str],
    bm25: Mapping[str, float],
    coverage: Mapping[str, float],
    similarity: Mapping[str, float],
    symbol: Mapping[str, float],
) -> list[tuple[str, float]]:
    """The module's convex combination: ``[(id, score)]`` for every id of ``pool``, best
    first, score in [0, 3]. ``bm25``: BM25 scores (higher is better; absent: no match);
    ``coverage``: share of the query's words held, in [0, 1] (absent: 1.0); ``similarity``:
    cosine similarities (absent: no vector); ``symbol``: symbol-field BM25 scores (absent: 0)."""
    top_bm25 = max((bm25.get(i, 0.0) for i in pool), default=0.0)
    top_symbol = max((symbol.get(i, 0.0) for i in pool), default=0.0)
    sims = [similarity[i] for i in pool if i in similarity]
    low, high = (min(sims), max(sims)) if sims else (0.0, 0.0)
    spread = high - low

    def score(node_id: str) -> float:
        total = 0.0
        if top_bm25 > 0:
            total += max(bm25.get(node_id, 0.0), 0.0) / top_bm25 * coverage.get(node_id, 1.0)
        if spread > 0 and node_id in similarity:
            total += (similarity[node_id] - low) / spread
        if top_symbol > 0:
            total += symbol.get(node_id, 0.0) / top_symbol
        return total

    scored = [(node_id, score(node_id)) for node_id in dict.fromkeys(pool)]
    return sorted(scored, key=lambda item: -item[1])
