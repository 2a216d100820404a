"""Helpers of the walkers tests (a uniquely named module: ``conftest`` is ambiguous when
several test directories run together)."""

from __future__ import annotations

from typing import Any

from ctx_tree_schema import Config, NodeKind, NodeStatus, merge_config
from ctx_tree_store import NewNode, Store
from ctx_tree_walkers.testing import T0
from ctx_tree_walkers.testing import ManualClock as Timeline

__all__ = ["T0", "Timeline", "add_pending", "make_config", "status_of"]


def make_config(**sections: dict[str, Any]) -> Config:
    """Defaults with the given sections (partial dicts) layered on."""
    return merge_config(("test", sections))


def add_pending(store: Store, content: str, *, source: str | None = None, **meta: Any) -> str:
    return store.insert(
        [
            NewNode(
                NodeKind.TOOL_OUTPUT,
                content,
                source_uri=source,
                status=NodeStatus.PENDING,
                metadata=meta,
            )
        ]
    )[0]


def status_of(store: Store, node_id: str) -> str | None:
    node = store.get(node_id)
    return None if node is None else node.status.value
