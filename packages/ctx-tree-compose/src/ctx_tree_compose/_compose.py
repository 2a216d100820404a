"""The compose algorithm of docs/tools.md: BFS from seeds, score, pack greedily into a budget."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields

from ._graph import GraphSource, NodeInfo

#: Deepest BFS compose accepts (docs/tools.md: graph walks cap depth at 5).
MAX_DEPTH = 5
#: The first node that does not fit whole is cut to the remaining budget only when at
#: least this many tokens remain; a shorter slice is rarely worth its header.
MIN_TRUNCATE_TOKENS = 16


@dataclass(frozen=True, slots=True)
class Weights:
    """Relevance weights: ``dist·1/(1+d) + recency·decay + query·q`` (docs/tools.md defaults).

    ``query`` only counts when compose is given a query; without one its share is simply
    absent — the other weights are NOT renormalised, so scores then top out at
    ``dist + recency`` (0.9 with the defaults).

    Raises:
        ValueError: a weight is negative, not finite or not a number (the message names
            the field), or all three are zero.
    """

    dist: float = 0.6
    recency: float = 0.3
    query: float = 0.1

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise ValueError(
                    f"Weights.{field.name} must be a finite number >= 0, got {value!r}"
                )
        if self.dist == 0 and self.recency == 0 and self.query == 0:
            raise ValueError("Weights.dist, Weights.recency and Weights.query are all zero")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node reached by the BFS, scored. ``dist`` is hops from the nearest seed (seeds
    are 0; ``depth + 1`` for nodes seen just past the cap); ``tokens`` is its full size."""

    id: str
    dist: int
    score: float
    tokens: int
    status: str


@dataclass(frozen=True, slots=True)
class Included:
    """A node packed whole; ``tokens`` is its size in tokens (all of it is kept)."""

    id: str
    score: float
    tokens: int


@dataclass(frozen=True, slots=True)
class Truncated:
    """The one node cut to fit: render at most ``kept_tokens`` of its ``total_tokens``
    (e.g. with ``fit_lines(content, kept_tokens)``)."""

    id: str
    score: float
    kept_tokens: int
    total_tokens: int


@dataclass(frozen=True, slots=True)
class Dropped:
    """A candidate left out. ``reason`` is ``"budget"`` (did not fit), ``"status"``
    (status not in ``include_statuses``) or ``"depth"`` (one hop past the depth cap);
    ``tokens`` is its full size."""

    id: str
    score: float
    tokens: int
    reason: str


@dataclass(frozen=True, slots=True)
class ComposePlan:
    """What compose decided; content is fetched and rendered by the caller.

    Attributes:
        included: nodes packed whole, in packing order (non-increasing score).
        truncated: at most one node cut to the remaining budget, or None.
        dropped: the rest, in descending score (ties: distance, then id).
        budget_tokens: the budget asked for, in tokens.
        used_tokens: tokens spent: ``sum(i.tokens for i in included)`` plus
            ``truncated.kept_tokens`` plus the per-node overhead charged for those nodes
            (0 unless ``overhead_tokens`` was given). Always ``<= budget_tokens``.
        capped: True when ``max_candidates`` stopped the BFS, so some reachable nodes
            were never considered (and appear nowhere in the plan).
    """

    included: tuple[Included, ...]
    truncated: Truncated | None
    dropped: tuple[Dropped, ...]
    budget_tokens: int
    used_tokens: int
    capped: bool = False


class ComposeError(Exception):
    """Base class of every error ``ctx_tree_compose`` raises."""


class UnknownSeedError(ComposeError, KeyError):
    """Seed ids the graph source does not know. ``ids`` lists them in the order given."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids: tuple[str, ...] = tuple(ids)
        super().__init__(f"unknown seed ids: {', '.join(self.ids)}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def compose(
    source: GraphSource,
    seed_ids: Sequence[str],
    *,
    budget_tokens: int,
    depth: int = 2,
    query: str | None = None,
    weights: Weights | None = None,
    now_ms: int | None = None,
    half_life_ms: int = 3_600_000,
    include_statuses: Collection[str] = ("live",),
    overhead_tokens: Callable[[str], int] | None = None,
    max_candidates: int = 2000,
) -> ComposePlan:
    """Choose which nodes around ``seed_ids`` fit in ``budget_tokens`` (docs/tools.md).

    1. BFS from the seeds (distance 0) over ``source.neighbors`` up to ``depth`` hops.
       Nodes one hop past the cap are reported as dropped ``"depth"`` (not expanded).
       The walk passes through nodes of any status; unknown neighbor ids are skipped.
       Each new ring is visited in id order, and at most ``max_candidates`` nodes are
       considered in all (seeds always are); ``plan.capped`` says the cap was hit.
    2. Score = ``w.dist/(1+dist) + w.recency·0.5**(age/half_life_ms) + w.query·q``, with
       ``age = max(0, now_ms - updated_at)`` and ``q`` = the node's ``fts_rank`` divided
       by the best rank among candidates (0 without a match, a query, or a positive
       rank). With no query (or a blank one) ``w.query`` adds nothing and the other
       weights are not renormalised.
    3. Candidates whose status is not in ``include_statuses`` are dropped ``"status"``,
       seeds included.
    4. The rest are packed by descending score (ties: smaller distance, then id). A node
       fits whole if ``used + tokens + overhead(id) <= budget_tokens``. The first node
       that does not fit whole is cut to what remains after its overhead, if at least
       ``MIN_TRUNCATE_TOKENS`` (16) remain; packing then goes on, fitting smaller nodes
       whole. Everything else is dropped ``"budget"``.

    Args:
        source: where nodes, adjacency and full-text ranks come from.
        seed_ids: start nodes (duplicates ignored); must not be empty or a bare ``str``.
        budget_tokens: tokens available, > 0.
        depth: BFS hops, 0..5 (default 2).
        query: optional full-text query; blank means none.
        weights: relevance weights (default ``Weights()``: 0.6/0.3/0.1).
        now_ms: "now" in epoch ms for recency (default: the wall clock).
        half_life_ms: recency half-life in ms, > 0 (default 3,600,000 = 1 hour: a node
            updated an hour ago gets half the recency of one updated now).
        include_statuses: statuses that may be packed (default ``("live",)``).
        overhead_tokens: tokens charged per packed node on top of its content (e.g. a
            header line), given its id; default 0.
        max_candidates: most nodes the BFS considers, >= 1 (default 2000).

    Returns:
        A :class:`ComposePlan` in which every candidate appears exactly once.

    Raises:
        UnknownSeedError: a seed id is absent from ``source.info`` (a ``KeyError``).
        ValueError: ``budget_tokens`` <= 0, ``depth`` outside 0..5, ``half_life_ms`` <= 0,
            ``max_candidates`` < 1, ``seed_ids`` empty, or ``overhead_tokens`` returned
            a negative number.
        TypeError: ``seed_ids`` or ``include_statuses`` is a bare ``str``.
    """
    _check_int("budget_tokens", budget_tokens, low=1)
    _check_int("depth", depth, low=0, high=MAX_DEPTH)
    _check_int("half_life_ms", half_life_ms, low=1)
    _check_int("max_candidates", max_candidates, low=1)
    if isinstance(seed_ids, str):
        raise TypeError("seed_ids must be a sequence of ids, not a str")
    if isinstance(include_statuses, str):
        raise TypeError("include_statuses must be a collection of statuses, not a str")
    seeds = list(dict.fromkeys(seed_ids))
    if not seeds:
        raise ValueError("seed_ids must not be empty")
    weights = weights if weights is not None else Weights()
    now = int(time.time() * 1000) if now_ms is None else now_ms

    infos, dist, capped = _walk(source, seeds, depth, max_candidates)
    candidates = _score(source, infos, dist, query, weights, now, half_life_ms)
    return _pack(
        candidates,
        budget_tokens=budget_tokens,
        depth=depth,
        include_statuses=frozenset(include_statuses),
        overhead_tokens=overhead_tokens,
        capped=capped,
    )


def _check_int(name: str, value: object, *, low: int, high: int | None = None) -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
    if ok and high is not None:
        ok = value <= high  # type: ignore[operator]
    if not ok:
        wanted = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an int {wanted}, got {value!r}")


def _walk(
    source: GraphSource, seeds: list[str], depth: int, max_candidates: int
) -> tuple[dict[str, NodeInfo], dict[str, int], bool]:
    """BFS ring by ring. Returns (info by id, distance by id, capped)."""
    seed_info = source.info(seeds)
    missing = [s for s in seeds if s not in seed_info]
    if missing:
        raise UnknownSeedError(missing)
    infos: dict[str, NodeInfo] = {s: seed_info[s] for s in seeds}
    dist: dict[str, int] = dict.fromkeys(seeds, 0)
    unknown: set[str] = set()
    frontier = seeds
    capped = False
    # ring depth+1 is discovered (to report it as dropped "depth") but never expanded
    for ring_dist in range(1, depth + 2):
        adjacency = source.neighbors(frontier)
        found: set[str] = set()
        for node_id in frontier:
            found.update(adjacency.get(node_id, ()))
        ring = sorted(m for m in found if m not in dist and m not in unknown)
        room = max(max_candidates - len(dist), 0)  # seeds alone may exceed the cap
        if len(ring) > room:
            ring = ring[:room]
            capped = True
        if not ring:
            break
        ring_info = source.info(ring)
        frontier = []
        for node_id in ring:
            node = ring_info.get(node_id)
            if node is None:
                unknown.add(node_id)
                continue
            infos[node_id] = node
            dist[node_id] = ring_dist
            frontier.append(node_id)
        if capped or not frontier:
            break
    return infos, dist, capped


def _score(
    source: GraphSource,
    infos: dict[str, NodeInfo],
    dist: dict[str, int],
    query: str | None,
    weights: Weights,
    now: int,
    half_life_ms: int,
) -> list[Candidate]:
    """Score every candidate and sort into packing order."""
    ranks: dict[str, float] = {}
    if query is not None and query.strip() and weights.query > 0:
        raw = source.fts_rank(query, list(infos))
        ranks = {i: r for i, r in raw.items() if i in infos and math.isfinite(r) and r > 0}
    best = max(ranks.values(), default=0.0)
    w_dist, w_recency, w_query = weights.dist, weights.recency, weights.query
    candidates = []
    for node_id, node in infos.items():
        d = dist[node_id]
        age = max(0, now - node.updated_at)
        score = w_dist / (1 + d) + w_recency * 0.5 ** (age / half_life_ms)
        if best > 0:
            score += w_query * (ranks.get(node_id, 0.0) / best)
        candidates.append(Candidate(node_id, d, score, node.tokens, node.status))
    candidates.sort(key=lambda c: (-c.score, c.dist, c.id))
    return candidates


def _pack(
    candidates: list[Candidate],
    *,
    budget_tokens: int,
    depth: int,
    include_statuses: frozenset[str],
    overhead_tokens: Callable[[str], int] | None,
    capped: bool,
) -> ComposePlan:
    """Greedy pack of candidates already in packing order."""
    included: list[Included] = []
    truncated: Truncated | None = None
    dropped: list[Dropped] = []
    used = 0
    tried_truncation = False
    for c in candidates:
        if c.dist > depth:
            dropped.append(Dropped(c.id, c.score, c.tokens, "depth"))
            continue
        if c.status not in include_statuses:
            dropped.append(Dropped(c.id, c.score, c.tokens, "status"))
            continue
        overhead = 0 if overhead_tokens is None else overhead_tokens(c.id)
        if overhead < 0:
            raise ValueError(f"overhead_tokens({c.id!r}) returned {overhead}, must be >= 0")
        if used + c.tokens + overhead <= budget_tokens:
            included.append(Included(c.id, c.score, c.tokens))
            used += c.tokens + overhead
            continue
        if not tried_truncation:
            tried_truncation = True
            room = budget_tokens - used - overhead
            if room >= MIN_TRUNCATE_TOKENS:
                truncated = Truncated(c.id, c.score, room, c.tokens)
                used += room + overhead
                continue
        dropped.append(Dropped(c.id, c.score, c.tokens, "budget"))
    return ComposePlan(tuple(included), truncated, tuple(dropped), budget_tokens, used, capped)
