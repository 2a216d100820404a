"""ctx-tree's SQLite store: nodes, edges, FTS5 BM25 search, spine and edge walks.

Open one with ``Store.open(store_path(workspace))``. Everything public is in ``__all__``.
"""

from ._db import SchemaVersionError
from .graph import GraphNode, StoreGraph
from .location import ctx_tree_home, project_hash, store_path
from .store import (
    DEFAULT_STATUSES,
    IllegalTransition,
    Neighbor,
    NewNode,
    NodeNotFound,
    SearchHit,
    Store,
    StoreError,
    content_hash,
    new_id,
    now_ms,
)
from .terms import index_terms, match_all_query, match_query, query_words, split_identifier

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_STATUSES",
    "GraphNode",
    "IllegalTransition",
    "Neighbor",
    "NewNode",
    "NodeNotFound",
    "SchemaVersionError",
    "SearchHit",
    "Store",
    "StoreError",
    "StoreGraph",
    "content_hash",
    "ctx_tree_home",
    "index_terms",
    "match_all_query",
    "match_query",
    "new_id",
    "now_ms",
    "project_hash",
    "query_words",
    "split_identifier",
    "store_path",
]
