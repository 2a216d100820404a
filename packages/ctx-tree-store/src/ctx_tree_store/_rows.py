"""Node rows as the store reads and writes them: a new node's id and the clock, the content
hash of a node's text and a ``nodes`` row (the columns of ``_sql.NODE_COLUMNS``' order) as a
:class:`~ctx_tree_schema.Node`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from ctx_tree_schema import Node, NodeKind, NodeStatus

from ._packing import read_metadata


def now_ms() -> int:
    """Current wall time in epoch milliseconds."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    """A fresh ULID string (26 Crockford base-32 chars, time-sortable), from python-ulid,
    whose default generator is strictly monotonic within the process, so ``sorted(ids)`` is
    creation order; across processes its 80 random bits keep ids unique."""
    from ulid import ULID

    return str(ULID())


def content_hash(content: str) -> str:
    """``sha256`` hex of the UTF-8 content (the ``content_hash`` column)."""
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def row_to_node(row: Sequence[Any]) -> Node:
    """A ``nodes`` row (id, parent_id, kind, source_uri, content, content_hash, status, mtime,
    created_at, updated_at, truncated, original_bytes, metadata) as a :class:`Node`."""
    return Node(
        id=row[0],
        parent_id=row[1],
        kind=NodeKind(row[2]),
        source_uri=row[3],
        content=row[4],
        content_hash=row[5],
        status=NodeStatus(row[6]),
        mtime=row[7],
        created_at=row[8],
        updated_at=row[9],
        truncated=bool(row[10]),
        original_bytes=row[11],
        metadata=read_metadata(row[2], row[1], row[3], row[12]),
    )
