"""The graph-source protocol compose walks, and a small in-memory implementation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """What compose needs to know of a node.

    Attributes:
        id: the node id (in ctx-tree a ULID; any string elsewhere).
        tokens: ``estimate_tokens`` of the node's rendered content, in tokens (>= 0).
        updated_at: last update, epoch milliseconds.
        status: ``"live"``, ``"stale"``, ``"superseded"``, ``"pruned"`` or ``"pending"``
            (not checked here: other projects may use their own vocabulary).

    Raises:
        ValueError: ``tokens`` is negative.
    """

    id: str
    tokens: int
    updated_at: int
    status: str

    def __post_init__(self) -> None:
        if self.tokens < 0:
            raise ValueError(f"NodeInfo.tokens must be >= 0, got {self.tokens} for {self.id!r}")


@runtime_checkable
class GraphSource(Protocol):
    """What compose reads from a store. All methods take a batch of ids.

    compose calls ``neighbors`` once per BFS ring (the whole frontier at once), ``info``
    once per ring for the newly discovered ids, and ``fts_rank`` at most once.
    """

    def neighbors(self, node_ids: Sequence[str]) -> Mapping[str, Sequence[str]]:
        """Adjacent ids of each id: spine parent, spine children, and lateral edges in both
        directions. Ids with no neighbors may be absent or map to an empty sequence."""
        ...

    def info(self, node_ids: Sequence[str]) -> Mapping[str, NodeInfo]:
        """``NodeInfo`` of each known id; unknown ids are absent from the result."""
        ...

    def fts_rank(self, query: str, node_ids: Sequence[str]) -> Mapping[str, float]:
        """Raw full-text score of each id against ``query``, HIGHER is better (a SQLite
        store passes ``-bm25()``). Ids that do not match are absent."""
        ...


class DictGraph:
    """An in-memory :class:`GraphSource`: a spine (one optional parent per node) plus
    undirected lateral edges, with a toy full-text rank.

    >>> g = DictGraph()
    >>> g.add(NodeInfo("s", tokens=10, updated_at=0, status="live"))
    >>> g.add(NodeInfo("f", tokens=90, updated_at=0, status="live"), parent="s", text="def main")
    >>> g.neighbors(["s"])
    {'s': ['f']}

    ``fts_rank`` scores a node by how many times the query's whitespace-separated terms
    occur in its ``text`` (case-insensitive substring count); it is a stand-in for BM25,
    good enough for tests and demos.
    """

    __slots__ = ("_adjacent", "_info", "_text")

    def __init__(self) -> None:
        self._info: dict[str, NodeInfo] = {}
        self._text: dict[str, str] = {}
        # id -> ordered set of adjacent ids (dict keys keep insertion order)
        self._adjacent: dict[str, dict[str, None]] = {}

    def add(self, info: NodeInfo, *, parent: str | None = None, text: str = "") -> None:
        """Add a node, optionally under an existing ``parent`` (its spine parent).

        Raises:
            ValueError: a node with ``info.id`` was already added.
            KeyError: ``parent`` was not added before.
        """
        if info.id in self._info:
            raise ValueError(f"node {info.id!r} already added")
        if parent is not None and parent not in self._info:
            raise KeyError(f"parent {parent!r} of {info.id!r} not added")
        self._info[info.id] = info
        self._text[info.id] = text.lower()
        self._adjacent[info.id] = {}
        if parent is not None:
            self._adjacent[info.id][parent] = None
            self._adjacent[parent][info.id] = None

    def link(self, a: str, b: str) -> None:
        """Add a lateral edge between two added nodes (walked in both directions; adding
        it twice, or a self-loop, changes nothing).

        Raises:
            KeyError: ``a`` or ``b`` was not added.
        """
        for node_id in (a, b):
            if node_id not in self._info:
                raise KeyError(f"node {node_id!r} not added")
        if a != b:
            self._adjacent[a][b] = None
            self._adjacent[b][a] = None

    def __len__(self) -> int:
        return len(self._info)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._info

    def neighbors(self, node_ids: Sequence[str]) -> dict[str, list[str]]:
        """See :meth:`GraphSource.neighbors`; unknown ids are absent."""
        adjacent = self._adjacent
        return {i: list(adjacent[i]) for i in node_ids if i in adjacent}

    def info(self, node_ids: Sequence[str]) -> dict[str, NodeInfo]:
        """See :meth:`GraphSource.info`."""
        known = self._info
        return {i: known[i] for i in node_ids if i in known}

    def fts_rank(self, query: str, node_ids: Sequence[str]) -> dict[str, float]:
        """See :meth:`GraphSource.fts_rank`; score = total occurrences of query terms."""
        terms = query.lower().split()
        ranks: dict[str, float] = {}
        if not terms:
            return ranks
        for node_id in node_ids:
            text = self._text.get(node_id)
            if text:
                hits = sum(text.count(term) for term in terms)
                if hits:
                    ranks[node_id] = float(hits)
        return ranks
