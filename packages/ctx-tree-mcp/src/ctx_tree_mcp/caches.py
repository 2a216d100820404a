"""What one App keeps between calls to skip work, each part for the engine that reads it: the
file views served last (:class:`ViewCache`, ``App.views``, the file cache's) and the vector
backlog counts (:class:`BacklogCache`, ``App.backlogs``, semantic search's).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from typing import Protocol

    from ctx_tree_schema import Node

    class Rooted(Protocol):
        """What :class:`ViewCache` needs of a view: its file root node (``root.id``)."""

        @property
        def root(self) -> Node:
            """The view's file root node."""


V = TypeVar("V", bound="Rooted")


@dataclass
class ViewCache:
    """The file views served last, by file root node id (a view never changes under its id),
    so the next read of an unchanged file skips the store (docs/data-model.md, "Cache
    behavior"). Holds at most ``size`` views, the least recently used dropped first; the
    App clears it whenever its store is swapped. A view is an
    ``engines.files.filecache.FileView``."""

    size: int = 64
    _views: OrderedDict[str, Rooted] = field(default_factory=OrderedDict)

    def remember(self, view: V) -> V:
        """Keep ``view`` for the next cached read of its file; returns it."""
        self._views[view.root.id] = view
        while len(self._views) > self.size:
            self._views.popitem(last=False)
        return view

    def recall(self, root_id: str) -> Rooted | None:
        """The view kept for the file root ``root_id``, or None."""
        view = self._views.get(root_id)
        if view is not None:
            self._views.move_to_end(root_id)
        return view

    def clear(self) -> None:
        """Forget every view (the store they came from was swapped)."""
        self._views.clear()


#: How long a backlog count (two index scans, ~10 ms at 100k nodes) is reused, in seconds.
BACKLOG_TTL_S = 10.0


class BacklogCache:
    """About how many nodes lack a vector of each embedding model, as semantic search's note
    gives it (docs/search.md): counted at most every ``ttl_s`` seconds per model (the note is
    a hint, not an inventory)."""

    def __init__(self, ttl_s: float = BACKLOG_TTL_S) -> None:
        self.ttl_s = ttl_s
        self._counts: dict[str, tuple[float, int]] = {}

    def get(self, model: str, count: Callable[[], int]) -> int:
        """The backlog of ``model``: the one counted less than ``ttl_s`` ago, else ``count()``
        (kept for the next call)."""
        now = time.monotonic()
        cached = self._counts.get(model)
        if cached is None or now - cached[0] > self.ttl_s:
            cached = (now, count())
            self._counts[model] = cached
        return cached[1]
