"""The store as compose's :class:`~ctx_tree_compose.GraphSource`.

ctx-tree-mcp is the one package that depends on both the store and compose, so the adapter
lives here: it reads node sizes, adjacency and BM25 scores through the store's public API
and hands compose its own :class:`~ctx_tree_compose.NodeInfo` records.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctx_tree_compose import NodeInfo, tokens_for_chars
from ctx_tree_store import Store

#: Chunks checked for a compose seed's callers (the newest that hold the name): a packed
#: answer shows a few callers, and a name every module holds would cost a lookup each.
CALLER_CANDIDATES = 300


class StoreGraph:
    """Adapts a :class:`~ctx_tree_store.Store` to compose's ``GraphSource``.

    ``neighbors`` follows the spine (parent and children) and edges in both directions, and
    with a project ``root``, for the first ``reference_rings`` rings a walk asks about (the
    seeds' ring first), a symbol chunk's callees and callers (``engines.files.refgraph``):
    what a symbol uses and what uses it come one hop from it, as its file does. ``info``
    sizes each node from its content length (never fetching the content) with
    :func:`ctx_tree_compose.tokens_for_chars`; ``fts_rank`` gives BM25 scores, higher is
    better. ``newlines[id]`` and ``chars[id]`` keep each sized node's newline and character
    counts for renderers.
    """

    def __init__(self, store: Store, root: str | None = None, reference_rings: int = 1) -> None:
        self.store = store
        self.root = root
        self.reference_rings = reference_rings
        self.newlines: dict[str, int] = {}
        self.chars: dict[str, int] = {}

    def neighbors(self, node_ids: Sequence[str]) -> dict[str, list[str]]:
        """Adjacent ids of each id (see ``GraphSource.neighbors``)."""
        adjacent = self.store.adjacent_many(node_ids)
        out = {nid: [other for other, _via in adjacent.get(nid, ())] for nid in node_ids}
        if self.root is not None and self.reference_rings > 0:
            from ctx_tree_mcp.engines.files.refgraph import RefGraph, reference_neighbors

            self.reference_rings -= 1
            graph = RefGraph(self.store, self.root)
            nodes = self.store.get_many(node_ids)
            for nid, node in nodes.items():
                found = reference_neighbors(graph, node, CALLER_CANDIDATES)
                out[nid] += [other for other, _via in found]
        return out

    def info(self, node_ids: Sequence[str]) -> dict[str, NodeInfo]:
        """``NodeInfo`` of each stored id; unknown ids are absent."""
        out: dict[str, NodeInfo] = {}
        for nid, size in self.store.sizes(node_ids).items():
            self.newlines[nid] = size.newlines
            self.chars[nid] = size.chars
            out[nid] = NodeInfo(nid, tokens_for_chars(size.chars), size.updated_at, size.status)
        return out

    def fts_rank(self, query: str, node_ids: Sequence[str]) -> dict[str, float]:
        """BM25 score of each matching id for ``query``, higher is better."""
        return self.store.fts_scores(query, node_ids)
