"""Plain records shared by the store and its callers: nodes, edges and search filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ._kinds import EdgeKind, NodeKind, NodeStatus


@dataclass(frozen=True, slots=True)
class Node:
    """One row of the ``nodes`` table (docs/data-model.md).

    Times (``mtime``, ``created_at``, ``updated_at``) are epoch milliseconds; ``original_bytes``
    is the UTF-8 byte size of the content before truncation at ``capture.maxBytes``.
    ``metadata`` is the decoded JSON blob (per-kind keys in docs/data-model.md).
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


_FILTER_KEYS = ("status", "kind", "since", "until", "parent_id", "session_id")


def _enum_tuple(key: str, value: Any, enum: type[StrEnum]) -> tuple[Any, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple | set | frozenset) or not value:
        raise ValueError(f"filters.{key}: expected a non-empty list of strings, got {value!r}")
    out = []
    for item in value:
        try:
            out.append(enum(item))
        except ValueError:
            choices = ", ".join(e.value for e in enum)
            raise ValueError(f"filters.{key}: unknown value {item!r}; one of: {choices}") from None
    return tuple(dict.fromkeys(out))


def _epoch(key: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(
            f"filters.{key}: expected epoch milliseconds (an integer from 0 to 2**63-1), got {value!r}"
        )
    return value


def _text(key: str, value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ValueError(f"filters.{key}: expected a non-empty id string, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Filters:
    """Search and listing filters (docs/tools.md). Every field is optional; times are epoch ms inclusive
    and apply to ``created_at``.

    ``status`` defaults (when None) to live and pending nodes at the store level. ``session_id``
    is a session node's id or the session key in its metadata (``session://<key>``); it selects
    the session node and the nodes directly under it.

    Validated on construction: ``status``/``kind`` accept enum members or their string values
    (a single one or a non-empty list) and become tuples of enum members; a wrong type, an
    unknown value or ``since > until`` raises ``ValueError`` naming the field.
    """

    status: tuple[NodeStatus, ...] | None = None
    kind: tuple[NodeKind, ...] | None = None
    since: int | None = None
    until: int | None = None
    parent_id: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", _enum_tuple("status", self.status, NodeStatus))
        object.__setattr__(self, "kind", _enum_tuple("kind", self.kind, NodeKind))
        since, until = _epoch("since", self.since), _epoch("until", self.until)
        if since is not None and until is not None and since > until:
            raise ValueError(f"filters: since ({since}) is after until ({until})")
        _text("parent_id", self.parent_id)
        _text("session_id", self.session_id)

    @classmethod
    def from_mapping(cls, data: dict[str, Any] | None) -> Filters:
        """Build filters from a JSON-like mapping (docs/tools.md shape; ``None`` means no filter).

        Raises ``ValueError`` naming the key and what was expected for an unknown key,
        a wrong type, an unknown status or kind, or ``since > until``.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError('filters: expected an object like {"kind": ["file_chunk"]}')
        unknown = sorted(set(data) - set(_FILTER_KEYS))
        if unknown:
            raise ValueError(f"filters: unknown key(s) {unknown}; allowed: {sorted(_FILTER_KEYS)}")
        return cls(**{key: data.get(key) for key in _FILTER_KEYS})
