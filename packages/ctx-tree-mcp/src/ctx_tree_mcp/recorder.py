"""What one session stores: its ``session`` node, created on first use, and every captured
output under it, redacted and cut at ``capture.maxBytes`` (:class:`Recorder`, ``App.recorder``;
docs/data-model.md, docs/capture.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tree_mcp.store_handle import StoreHandle

if TYPE_CHECKING:
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import Store


@dataclass
class Recorder:
    """The session ``session_key`` of the project at ``root``, stored through ``stores``.

    ``max_bytes()`` gives ``capture.maxBytes`` (UTF-8 bytes), read at each capture: the
    config loads on first use and may raise ``ConfigError`` then. Thread-safe: the session
    node is made once under a lock.
    """

    stores: StoreHandle
    root: Path
    session_key: str
    max_bytes: Callable[[], int]
    #: File roots this session already references (``filecache.reference_file``).
    referenced: set[str] = field(default_factory=set)
    _node: str | None = field(default=None, init=False)
    #: The store (and its generation) ``_node`` belongs to.
    _of: tuple[Store, int] | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def session_node_id(self) -> str:
        """Node id of this session's ``session`` node, created (and committed) on first use.

        Cached per store and generation, and never from inside an open transaction (which could
        still roll the row back): a failed write cannot leave a dangling session id behind.
        Raises what opening or writing the store raises (``StoreFull``, ``StoreGone`` …).
        """
        with self._lock:
            store = self.stores.store
            if self._node is None or self._of != (store, store.generation):
                node = store.ensure_session(self.session_key, str(self.root))
                if store.in_transaction:
                    return node
                self._node, self._of = node, (store, store.generation)
            return self._node

    def capture(
        self,
        kind: NodeKind,
        content: str,
        *,
        source_uri: str,
        metadata: Mapping[str, object],
        parent_id: str | None = None,
        pending: bool = True,
        terms: str = "",
        node_id: str = "",
        original_bytes: int | None = None,
        redacted: bool = False,
    ) -> str:
        """Store a captured output under the session (or ``parent_id``); returns its node id.

        The content, ``terms``, ``source_uri`` and every string in ``metadata`` are redacted
        first and truncated at ``capture.maxBytes`` (UTF-8 bytes) with ``truncated=1`` and
        ``original_bytes`` set (``original_bytes``: the size before the caller already cut
        it, when it did). ``pending`` leaves it for the filter walker. When a live node
        already holds the same content from the same source, its id is returned and nothing
        is written. ``redacted=True``: the caller already passed ``content`` through
        :func:`~ctx_tree_mcp.wire.redact.redact_text` (and renders its answer from that
        text), so it is not scanned twice. One transaction; raises what writing raises.
        """
        from ctx_tree_schema import NodeStatus
        from ctx_tree_store import NewNode

        from ctx_tree_mcp.wire.redact import redact_text, redact_value

        if not redacted:
            content = redact_text(content)
        terms = redact_text(terms)
        metadata = redact_value(metadata)  # note titles, grep patterns: searchable, so redacted
        source_uri = redact_text(source_uri)  # a fetched URL's query may hold a token
        raw = content.encode("utf-8", "surrogatepass")
        max_bytes = self.max_bytes()
        truncated = len(raw) > max_bytes or (original_bytes or 0) > len(raw)
        if truncated:
            content = raw[:max_bytes].decode("utf-8", "ignore")
        store = self.stores.store
        if not node_id and not truncated and (same := store.find_live(source_uri, content)):
            return same  # an identical live capture exists: answer with its id, store nothing new
        node = NewNode(
            kind=kind,
            content=content,
            parent_id=parent_id or self.session_node_id(),
            source_uri=source_uri,
            status=NodeStatus.PENDING if pending else NodeStatus.LIVE,
            metadata=metadata,
            truncated=truncated,
            original_bytes=max(len(raw), original_bytes or 0),
            terms=terms,
            id=node_id,
        )
        return self.stores.store.insert([node])[0]
