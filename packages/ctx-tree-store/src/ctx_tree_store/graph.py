"""The store side of ctx-tree-compose's ``GraphSource`` protocol (structural; no import of it).

``neighbors`` follows the spine (parent and children) and edges in both directions;
``info`` returns objects with ``id``, ``tokens``, ``updated_at`` (epoch ms) and ``status``;
``fts_rank`` returns BM25 scores, higher is better.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import _sql
from .store import Store


@dataclass(frozen=True, slots=True)
class GraphNode:
    """What compose needs of a node: size in tokens (by the caller's estimator), epoch-ms age, status."""

    id: str
    tokens: int
    updated_at: int
    status: str


class StoreGraph:
    """Adapts a :class:`Store` to compose's ``GraphSource``.

    ``tokens_for_chars`` turns a content length (characters) into tokens with the caller's
    estimator (ctx-tree passes ``ctx_tree_compose.tokens_for_chars``); contents are never
    fetched for sizing. ``newlines[id]`` keeps each sized node's line count for renderers.
    """

    def __init__(self, store: Store, tokens_for_chars: Callable[[int], int]) -> None:
        self.store = store
        self.tokens_for_chars = tokens_for_chars
        self.newlines: dict[str, int] = {}

    def neighbors(self, node_ids: Sequence[str]) -> dict[str, list[str]]:
        adjacent = self.store.adjacent_many(node_ids)
        return {nid: [other for other, _via in adjacent.get(nid, ())] for nid in node_ids}

    def info(self, node_ids: Sequence[str]) -> dict[str, GraphNode]:
        out: dict[str, GraphNode] = {}
        ids = list(node_ids)
        for i in range(0, len(ids), 500):
            batch = ids[i : i + 500]
            sql = _sql.NODE_STATS.format(marks=",".join("?" * len(batch)))
            for nid, chars, lines, updated, status in self.store._query(sql, batch):
                self.newlines[nid] = lines
                out[nid] = GraphNode(nid, self.tokens_for_chars(chars), updated, status)
        return out

    def fts_rank(self, query: str, node_ids: Sequence[str]) -> dict[str, float]:
        return self.store.fts_scores(query, node_ids)


__all__ = ["GraphNode", "StoreGraph"]
