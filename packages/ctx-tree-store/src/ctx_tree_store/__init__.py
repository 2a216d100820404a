"""ctx-tree's SQLite store: nodes, edges, FTS5 BM25 and vector search, spine and edge walks.

Open one with ``Store.open(store_path(workspace))``. Everything public is in ``__all__``;
other modules are private. ``query_words`` and ``split_identifier`` are how the store splits a
query and an identifier into the words it searches, for callers that rank text the same way
(``ctx_tree_read`` by query); building FTS5 expressions and index terms stays inside.
"""

from . import _browse as browse
from ._browse import NodeRow
from ._catalog import StoreInfo, describe, forget, list_stores, project_stores
from ._db import disk_bytes
from ._errors import (
    IllegalTransition,
    NodeNotFound,
    SchemaTooOld,
    SchemaVersionError,
    StoreError,
    StoreFull,
    StoreGone,
    StoreUnwritable,
    is_busy,
)
from ._filerows import FileRows, file_rows
from ._files import FileTree
from ._filters import DEFAULT_STATUSES
from ._fts import SearchHit
from ._graph import MAX_DEPTH, Neighbor, NodeSize
from ._location import (
    STORE_FILE,
    ctx_tree_home,
    project_dir,
    project_hash,
    resolve_store_path,
    store_path,
)
from ._nodes import NewNode
from ._postings import Postings
from ._rows import content_hash, new_id, now_ms
from ._store import Store
from ._symbols import SymbolChunk, symbol_of
from ._terms import query_words, split_identifier
from ._vectors import DimensionMismatch, InvalidVector, VectorHit, VectorUnavailable, unusable

__all__ = [
    "DEFAULT_STATUSES",
    "MAX_DEPTH",
    "STORE_FILE",
    "DimensionMismatch",
    "FileRows",
    "FileTree",
    "IllegalTransition",
    "InvalidVector",
    "Neighbor",
    "NewNode",
    "NodeNotFound",
    "NodeRow",
    "NodeSize",
    "Postings",
    "SchemaTooOld",
    "SchemaVersionError",
    "SearchHit",
    "Store",
    "StoreError",
    "StoreFull",
    "StoreGone",
    "StoreInfo",
    "StoreUnwritable",
    "SymbolChunk",
    "VectorHit",
    "VectorUnavailable",
    "__version__",
    "browse",
    "content_hash",
    "ctx_tree_home",
    "describe",
    "disk_bytes",
    "file_rows",
    "forget",
    "is_busy",
    "list_stores",
    "new_id",
    "now_ms",
    "project_dir",
    "project_hash",
    "project_stores",
    "query_words",
    "resolve_store_path",
    "split_identifier",
    "store_path",
    "symbol_of",
    "unusable",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-store")
