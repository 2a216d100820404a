"""Plain records shared by the store and its callers: nodes, edges and search filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .kinds import EdgeKind, NodeKind, NodeStatus


@dataclass(frozen=True, slots=True)
class Node:
    """One row of the ``nodes`` table (data model seed).

    Times (``mtime``, ``created_at``, ``updated_at``) are epoch milliseconds; ``original_bytes``
    is the UTF-8 byte size of the content before truncation at ``capture.maxBytes``.
    ``metadata`` is the decoded JSON blob (per-kind keys in the data model seed).
    """

    id: str
    parent_id: str | None
    kind: NodeKind
    source_uri: str | None
    content: str
    content_hash: str
    status: NodeStatus
    mtime: int
    created_at: int
    updated_at: int
    truncated: bool
    original_bytes: int
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def lines(self) -> tuple[int, int] | None:
        """1-based inclusive line range from ``metadata["lines"]``, or None."""
        value = self.metadata.get("lines")
        if isinstance(value, list | tuple) and len(value) == 2:
            return int(value[0]), int(value[1])
        return None


@dataclass(frozen=True, slots=True)
class Edge:
    """One row of the ``edges`` table: ``src --kind--> dst`` created at epoch ms."""

    src_id: str
    dst_id: str
    kind: EdgeKind
    created_at: int


@dataclass(frozen=True, slots=True)
class Filters:
    """Search and listing filters (spec §5). Every field is optional; times are epoch ms inclusive.

    ``status`` defaults (when None) to live nodes only at the store level.
    """

    status: tuple[NodeStatus, ...] | None = None
    kind: tuple[NodeKind, ...] | None = None
    since: int | None = None
    until: int | None = None
    parent_id: str | None = None
    session_id: str | None = None

    @classmethod
    def from_mapping(cls, data: dict[str, Any] | None) -> Filters:
        """Build filters from a JSON-like mapping (spec §5 shape).

        Raises ``ValueError`` naming the key and what was expected for an unknown key,
        a wrong type, an unknown status or kind, or ``since > until``.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError('filters: expected an object like {"kind": ["file_chunk"]}')
        allowed = {"status", "kind", "since", "until", "parent_id", "session_id"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ValueError(f"filters: unknown key(s) {unknown}; allowed: {sorted(allowed)}")

        def enum_list(key: str, enum: type) -> tuple | None:
            value = data.get(key)
            if value is None:
                return None
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not value:
                raise ValueError(f"filters.{key}: expected a non-empty list of strings")
            try:
                return tuple(enum(v) for v in value)
            except ValueError:
                choices = ", ".join(e.value for e in enum)
                raise ValueError(
                    f"filters.{key}: unknown value in {value!r}; one of: {choices}"
                ) from None

        def epoch(key: str) -> int | None:
            value = data.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"filters.{key}: expected epoch milliseconds (a non-negative integer)"
                )
            return value

        def text(key: str) -> str | None:
            value = data.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"filters.{key}: expected a node id string")
            return value

        since, until = epoch("since"), epoch("until")
        if since is not None and until is not None and since > until:
            raise ValueError("filters: since is after until")
        return cls(
            status=enum_list("status", NodeStatus),
            kind=enum_list("kind", NodeKind),
            since=since,
            until=until,
            parent_id=text("parent_id"),
            session_id=text("session_id"),
        )
