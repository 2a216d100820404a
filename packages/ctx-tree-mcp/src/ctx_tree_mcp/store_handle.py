"""The project's store as one process holds it: opened lazily, in memory when the file cannot
be written or is damaged, and the file again once it can be (:class:`StoreHandle`, ``App.stores``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctx_tree_store import Store, StoreFull, StoreUnwritable


log = logging.getLogger(__name__)

#: Seconds between tries to write a store that could not be written (:meth:`StoreHandle.check`).
STORE_RETRY_S = 2.0
#: Seconds between tries to write a store whose disk was full (:meth:`StoreHandle.full`).
FULL_RETRY_S = 10.0


def _identity(path: Path) -> tuple[int, int, int]:
    """``(device, inode, mtime ns)`` of ``path``; zeros when it is missing."""
    try:
        st = path.stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def _nothing() -> None:
    """The default :attr:`StoreHandle.on_swap`: nothing to forget."""


@dataclass
class StoreHandle:
    """The store of the project at ``root`` (its file under the ctx-tree ``home``), opened on
    first use of :attr:`store`, so start-up does not pay for it; read-only when ``readonly``.

    When the file cannot be written (read-only file system, another user's directory, a full
    disk) or is damaged, a private in-memory store stands in and :attr:`not_storing` says why;
    :meth:`check` uses the file again once it can. ``on_swap`` is called whenever the store
    changes under the same handle (reopened, swapped for memory or back): what was cached from
    the old one is void (``App`` passes its view cache's ``clear``).
    """

    root: Path
    home: Path | None = None
    #: Open the store read-only (the inspector): nothing is created, migrated or written.
    readonly: bool = False
    on_swap: Callable[[], None] = _nothing
    #: One line saying nothing persists (the store is not writable), else None.
    not_storing: str | None = field(default=None, init=False)
    #: The store, once opened (:attr:`opened`); None before and after :meth:`close`.
    _store: Store | None = field(default=None, init=False)
    #: Why the file is not written while :attr:`not_storing` is set.
    _unwritable: StoreUnwritable | None = field(default=None, init=False)
    #: The damaged store file's identity while it is worked around (see :attr:`store`).
    _damaged: tuple[int, int, int] | None = field(default=None, init=False)
    #: When :meth:`check` may next try to write the store again (``time.monotonic()`` seconds).
    _retry_at: float = field(default=0.0, init=False)

    @cached_property
    def path(self) -> Path:
        """The store file of this project under the ctx-tree home (found on first use: a store
        of an older ctx-tree's location is adopted then, ``resolve_store_path``)."""
        from ctx_tree_store import resolve_store_path

        return resolve_store_path(self.root, self.home)

    @property
    def opened(self) -> bool:
        """True once :attr:`store` was opened (or :meth:`use` given one), until :meth:`close`."""
        return self._store is not None

    def use(self, store: Store) -> None:
        """Take ``store``, already open (by its owner, who closes it), as this handle's store."""
        self._store = store

    @property
    def store(self) -> Store:
        """The project's store, opened (and migrated) on first use; read-only when
        :attr:`readonly` (raises ``FileNotFoundError`` when there is none yet).

        When the store cannot be written (read-only file system, another user's directory),
        a private in-memory copy of it is used instead and :attr:`not_storing` says why:
        reads and greps still answer, searches see what the file held, nothing persists.
        """
        if self._store is None:
            self._store = self._open()
        return self._store

    def _open(self) -> Store:
        """The store opened as :attr:`store` says."""
        from ctx_tree_store import Store, StoreUnwritable

        if self.readonly:
            return Store.open_readonly(self.path)
        import apsw

        try:
            return Store.open(self.path)
        except (apsw.NotADBError, apsw.CorruptError) as exc:
            # a damaged file: reads and greps still answer, from an empty private store,
            # until `ctx-tree forget` deletes it (check then opens a new one)
            self._damaged = _identity(self.path)
            return self._not_storing(
                StoreUnwritable(
                    str(self.path),
                    f"damaged: {exc}; `ctx-tree forget` in the project deletes it, and the "
                    "next call starts a new one",
                ),
                Store.open(":memory:"),
                "the damaged store is not searched",
            )
        except StoreUnwritable as exc:
            store, copied = Store.open_snapshot(self.path)
            seen = (
                "searches see the store as it was when this process started"
                if copied
                else "the existing store is not searched"
                if self.path.exists()
                else "there is no store to search"
            )
            return self._not_storing(exc, store, seen)

    def _not_storing(self, exc: StoreUnwritable, store: Store, seen: str) -> Store:
        """``store`` (in memory) in place of the file ``exc`` says cannot be written, with
        :attr:`not_storing` saying so."""
        self.not_storing = (
            f"ctx-tree: nothing is being stored: {exc.path} cannot be written "
            f"({exc.reason}); {seen}"
        )
        self._unwritable = exc
        log.info("%s", self.not_storing)  # every answer carries the line too
        return store

    def check(self) -> None:
        """Called before each tool call: when the store file was deleted (``ctx-tree forget``)
        or replaced since it was opened, open the file now there (a new, empty store when it
        is gone) and forget what was cached from the old one (:attr:`on_swap`). While nothing
        is being stored because the store could not be written, try it again (at most every
        :data:`STORE_RETRY_S` seconds, monotonic): once it can be (a remount, fixed
        permissions), the process stores again. A fault of opening the file other than
        ``StoreUnwritable`` (which leaves the store in memory) propagates."""
        store = self._store
        if (
            store is not None
            and self._unwritable is not None
            and self._damaged is None
            and not self.readonly
            and time.monotonic() >= self._retry_at
        ):
            self._retry_at = time.monotonic() + STORE_RETRY_S
            self._writable_again(store)
            return
        if self._damaged is not None and _identity(self.path) != self._damaged:
            # the damaged file was deleted (ctx-tree forget) or replaced: use the file again
            log.warning("the damaged store %s is gone; opening it anew", self.path)
            self.on_swap()
            self._damaged = self.not_storing = self._unwritable = None
            self._store = None
            return
        if store is not None and store.replaced():
            from ctx_tree_store import StoreUnwritable

            log.warning("the store %s was deleted or replaced; opening it anew", store.path)
            self.on_swap()
            try:
                store.reopen()
            except StoreUnwritable:  # it cannot be made again here: go on without storing
                self._store = None
                self.store  # falls back to an in-memory store

    def full(self, exc: StoreFull) -> bool:
        """The store's disk is full (``exc``): go on from a private in-memory copy of it, as
        when it cannot be written (:attr:`not_storing` says so), and try the file again every
        :data:`FULL_RETRY_S` seconds (monotonic). False when already not storing, read-only or
        not opened yet (the caller then reports ``exc``)."""
        from ctx_tree_store import Store, StoreUnwritable

        store = self._store
        if self.readonly or self._unwritable is not None or store is None:
            return False
        memory, copied = Store.open_snapshot(self.path)
        seen = (
            "searches see the store as it was when the disk filled"
            if copied
            else "the existing store is not searched"
        )
        reason = "its disk is full; free space on that disk and it is used again"
        self._store = self._not_storing(StoreUnwritable(str(self.path), reason), memory, seen)
        self.on_swap()
        self._retry_at = time.monotonic() + FULL_RETRY_S
        log.warning("the store's disk is full: answering from memory (%s)", exc)
        with contextlib.suppress(Exception):
            store.close()
        return True

    def _writable_again(self, memory: Store) -> None:
        """Use the store file in place of the in-memory ``memory`` when it can be written now."""
        from ctx_tree_store import Store, StoreUnwritable

        try:
            fresh = Store.open(self.path)
        except (StoreUnwritable, OSError):
            return
        log.warning("the store %s can be written again; storing again", self.path)
        self.on_swap()
        self.not_storing = self._unwritable = None
        self._store = fresh
        with contextlib.suppress(Exception):
            memory.close()

    def answer(self, text: str) -> str:
        """``text``, plus the :attr:`not_storing` line when nothing persists."""
        if self.not_storing is None:
            return text
        return (text if text.endswith("\n") else text + "\n") + self.not_storing + "\n"

    def require_persistent(self, what: str) -> None:
        """Raise ``StoreUnwritable`` when nothing persists, saying ``what`` was not kept (the
        store is opened first: that is what finds out; raises what opening raises)."""
        self.store  # opening it is what finds out
        exc = self._unwritable
        if exc is not None:
            from ctx_tree_store import StoreUnwritable

            raise StoreUnwritable(exc.path, f"{exc.reason}; {what} was not saved")

    def close(self) -> None:
        """Close the store if it was opened; the next use of :attr:`store` opens it again.
        Raises what ``Store.close`` raises (the store is then still held)."""
        if self._store is not None:
            self._store.close()
            self._store = None
