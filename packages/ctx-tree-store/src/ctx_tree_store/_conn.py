"""The connection the store's parts stand on: one apsw connection, the re-entrant lock that
serialises its use across threads, write transactions and reads.

``Store`` holds one :class:`Db` and hands it to each of its parts (``_nodes``, ``_files``,
``_graph``, ``_fts``, ``_postings``, ``_upkeep``, ``_usage``, ``_vectors``, ``_browse``), which
are plain functions over it and never import ``Store``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import apsw

from ._db import file_identity
from ._errors import StoreFull, StoreGone, is_full


class Db:
    """One store connection: ``con`` (replaced by :meth:`swap` when the store reopens),
    ``path`` (``":memory:"`` for a store without a file), ``lock``, :meth:`transaction`
    (one write transaction, the store's fault mapping) and :meth:`query` (rows under the
    lock). Also notes the ids of nodes written while not :attr:`persistent`
    (:meth:`written`, :meth:`in_file`)."""

    def __init__(self, con: apsw.Connection, path: str) -> None:
        self.con = con
        self.path = path
        self.lock = threading.RLock()
        self._depth = 0
        self._identity = file_identity(path) if path != ":memory:" else None
        #: Ids of the nodes this process wrote while not :attr:`persistent` (see :meth:`in_file`).
        self._in_memory_only: set[str] = set()

    @property
    def persistent(self) -> bool:
        """True when writes reach a file (False for ``:memory:`` and snapshots)."""
        return self.path != ":memory:"

    def in_file(self, node_id: str) -> bool:
        """True when a later process can find ``node_id`` in the store file: always for a
        :attr:`persistent` store; in memory or in a snapshot, unless this process wrote it."""
        return self.persistent or node_id not in self._in_memory_only

    def written(self, ids: Iterable[str]) -> None:
        """Note the ids of nodes just written, when they are not written to a file."""
        if not self.persistent:
            self._in_memory_only.update(ids)

    def replaced(self) -> bool:
        """True when the store file was deleted or replaced (another inode) since it was
        opened; a ``stat``, about a microsecond. Always False in memory."""
        return self._identity is not None and file_identity(self.path) != self._identity

    def swap(self, con: apsw.Connection) -> None:
        """Use ``con``, just opened on the file now at :attr:`path` (the store reopened)."""
        with self.lock:
            self.con = con
            self._identity = file_identity(self.path)

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`transaction` (on any thread holding the lock)."""
        return self._depth > 0

    @contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``); nested calls become savepoints.

        An exception rolls everything back and propagates; SQLite's ``SQLITE_FULL``, and a
        disk I/O error from a full disk, a file size limit or a disk quota, become
        :class:`StoreFull`. Raises :class:`StoreGone` when the store file was deleted or
        replaced, checked before the write starts and again after it commits: a write into a
        deleted file never counts as done.
        """
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    with self.con:
                        yield self.con
                finally:
                    self._depth -= 1
                return
            if self.replaced():
                raise StoreGone(self.path, during_write=False)
            self.con.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.con
                self._depth = 0
                self.con.execute("COMMIT")
            except BaseException as exc:
                self._depth = 0
                full = is_full(exc, self.con)  # before ROLLBACK resets the error number
                if self.con.in_transaction:  # SQLite may have rolled back already
                    self.con.execute("ROLLBACK")
                if full:
                    raise StoreFull(self.path) from exc
                raise
            if self.replaced():
                raise StoreGone(self.path, during_write=True)

    def query(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of ``sql``, under the lock."""
        with self.lock:
            return self.con.execute(sql, args).fetchall()


class Connected(Protocol):
    """Anything holding a store's :class:`Db` (a ``Store``): what the read-only pages of
    ``browse`` take."""

    @property
    def db(self) -> Db:
        """The store's connection."""
        ...
