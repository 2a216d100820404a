"""The project's store as one process holds it: opened lazily, in memory when the file cannot
be written or is damaged, and the file again once it can be (:class:`StoreHandle`, ``App.stores``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ctx_tree_store import Store, StoreFull, StoreUnwritable


log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds between tries to write a store that could not be written (:meth:`StoreHandle.check`).
STORE_RETRY_S = 2.0
#: Seconds between tries to write a store whose disk was full while its free space has not
#: grown (a quota or a file size limit, which free space does not show; :meth:`StoreHandle.full`).
FULL_RETRY_S = 10.0
#: Bytes the store's disk must gain, over what was free when it filled, for the next call to
#: try the file again at once (:meth:`StoreHandle.check`).
FREED_BYTES = 1 << 20


def free_bytes(path: Path) -> int | None:
    """Bytes an unprivileged writer may still use on the file system holding ``path`` (or
    its nearest existing parent), by ``statvfs``; None when it cannot be told."""
    for where in (path, *path.parents):
        try:
            st = os.statvfs(where)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        return st.f_bavail * st.f_frsize
    return None


def _identity(path: Path) -> tuple[int, int, int]:
    """``(device, inode, mtime ns)`` of ``path``; zeros when it is missing."""
    try:
        st = path.stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def _holds_bytes(path: Path) -> bool:
    """True when ``path`` is a file of at least one byte."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


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
    #: While not storing because the disk is full: the bytes free on it then (:func:`free_bytes`;
    #: -1 when unknown), so the first call after space is freed stores again. None otherwise.
    _free_when_full: int | None = field(default=None, init=False)

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
        from ctx_tree_store import StoreFull

        try:
            return Store.open(self.path)
        except StoreFull:
            # a store made (or opened: its -shm, a WAL recovery) on a full disk
            return self._on_full_disk(Store.open_snapshot(self.path))
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
        permissions), the process stores again. While its disk is full, try it again at once
        when :data:`FREED_BYTES` more are free on it than when it filled, else every
        :data:`FULL_RETRY_S` seconds. A fault of opening the file other than
        ``StoreUnwritable`` or ``StoreFull`` (which leave the store in memory) propagates."""
        store = self._store
        if store is not None and self._may_store_again() and self._retry_due():
            self._retry_at = time.monotonic() + STORE_RETRY_S
            self._writable_again(store)
            return
        if self._damaged is not None and _identity(self.path) != self._damaged:
            # the damaged file was deleted (ctx-tree forget) or replaced: use the file again
            log.warning("the damaged store %s is gone; opening it anew", self.path)
            self.on_swap()
            self._damaged = self.not_storing = self._unwritable = self._free_when_full = None
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
        when it cannot be written (:attr:`not_storing` says so), until the file can be written
        again (:meth:`check`). False when already not storing, read-only or not opened yet
        (the caller then reports ``exc``)."""
        from ctx_tree_store import Store

        store = self._store
        if self.readonly or self._unwritable is not None or store is None:
            return False
        self._store = self._on_full_disk(Store.open_snapshot(self.path))
        self.on_swap()
        log.warning("the store's disk is full: answering from memory (%s)", exc)
        with contextlib.suppress(Exception):
            store.close()
        return True

    def _on_full_disk(self, snapshot: tuple[Store, bool]) -> Store:
        """The in-memory ``snapshot`` (``Store.open_snapshot``) in place of the file that
        could not be made or written for want of space, with :attr:`not_storing` saying so;
        the free space now is kept to see when some is freed."""
        from ctx_tree_store import StoreUnwritable

        memory, copied = snapshot
        seen = (
            "searches see the store as it was when the disk filled"
            if copied
            else "the existing store is not searched"
            if _holds_bytes(self.path)
            else "there is no store to search"
        )
        reason = "its disk is full; free space on that disk and it is used again"
        store = self._not_storing(StoreUnwritable(str(self.path), reason), memory, seen)
        free = free_bytes(self.path)
        self._free_when_full = -1 if free is None else free
        self._retry_at = time.monotonic() + FULL_RETRY_S
        return store

    def or_memory(self, write: Callable[[], T]) -> T:
        """``write()``, and when the disk is full (``StoreFull``), ``write()`` again into the
        in-memory store :meth:`full` puts in place: for a write that must not be lost with
        the call, such as a command's output after the command ran (its answer then says
        nothing was stored). Raises what ``write`` raises otherwise."""
        from ctx_tree_store import StoreFull

        try:
            return write()
        except StoreFull as exc:
            if not self.full(exc):
                raise
            return write()

    def _may_store_again(self) -> bool:
        """True while nothing is stored for a reason that may pass (not read-only, not a
        damaged file: those wait for ``ctx-tree forget``)."""
        return self._unwritable is not None and self._damaged is None and not self.readonly

    def _retry_due(self) -> bool:
        """Whether :meth:`check` tries the file again now: its interval is over, or the disk
        that was full has :data:`FREED_BYTES` more free than when it filled."""
        if time.monotonic() >= self._retry_at:
            return True
        if self._free_when_full is None or self._free_when_full < 0:
            return False
        free = free_bytes(self.path)
        return free is not None and free >= self._free_when_full + FREED_BYTES

    def _writable_again(self, memory: Store) -> None:
        """Use the store file in place of the in-memory ``memory`` when it can be written now."""
        import apsw
        from ctx_tree_store import Store, StoreError

        try:
            fresh = Store.open(self.path)
        except (StoreError, OSError, apsw.Error):
            if self._free_when_full is not None:  # tried at this much free: wait for more
                self._free_when_full = free_bytes(self.path) or -1
            return
        log.warning("the store %s can be written again; storing again", self.path)
        self.on_swap()
        self.not_storing = self._unwritable = self._free_when_full = None
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
        store is opened first: that is what finds out; raises what opening raises). While
        nothing is stored, the file is tried again first, whatever the interval: a write the
        caller cannot do without is worth the try."""
        store = self.store  # opening it is what finds out
        if self._may_store_again():
            self._writable_again(store)
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
