"""The store's exceptions: one root, :class:`StoreError`, for every error the store raises."""

from __future__ import annotations

import errno


class StoreError(Exception):
    """Base class of the store's errors."""


class NodeNotFound(StoreError, KeyError):
    """A node id that is not in the store. ``args[0]`` is the id."""

    def __str__(self) -> str:
        return f"no node with id {self.args[0]!r}"


class IllegalTransition(StoreError, ValueError):
    """A status change the docs/data-model.md state machine does not allow; nothing was changed."""


class SchemaVersionError(StoreError, RuntimeError):
    """The store was written by a newer ctx-tree than this one (its ``user_version`` is higher).

    ``found`` is the file's schema version, ``supported`` this code's
    (:data:`ctx_tree_schema.SCHEMA_VERSION`).
    """

    def __init__(self, where: str, found: int, supported: int) -> None:
        super().__init__(
            f"{where}: store schema version {found} is newer than this ctx-tree supports "
            f"({supported}); upgrade ctx-tree or point CTX_TREE_HOME elsewhere"
        )
        self.found = found
        self.supported = supported


class StoreFull(StoreError):
    """No room to write the store: its file system is full (``SQLITE_FULL``, ``ENOSPC``), or
    the process's file size limit or the user's disk quota is reached (``EFBIG``, ``EDQUOT``).

    The write was rolled back whole; the store and the process stay usable, and the same call
    works again once space is freed. ``path`` is the store file.
    """

    def __init__(self, path: str) -> None:
        super().__init__(
            f"disk full: the store {path} could not be written, so nothing from this call was "
            "stored; free space on that disk and call again"
        )
        self.path = path


class StoreGone(StoreError):
    """The store file was deleted or replaced (another inode) while this process had it open.

    Raised before a write transaction starts (nothing was written) or after it committed into
    the deleted file (the write did not persist). ``Store.reopen`` opens (or creates) the file
    now at ``path``. ``persisted`` is always False.
    """

    def __init__(self, path: str, *, during_write: bool) -> None:
        what = (
            "while this call wrote to it, so that write did not persist"
            if during_write
            else "since it was opened, so nothing was written"
        )
        super().__init__(
            f"the store {path} was deleted or replaced {what}; call again to use a new store"
        )
        self.path = path
        self.persisted = False


class StoreUnwritable(StoreError):
    """The store cannot be created or written: a read-only file system, a directory owned by
    another user, missing permissions. ``reason`` is the operating system's or SQLite's words.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"the store {path} cannot be written ({reason})")
        self.path = path
        self.reason = reason


class SchemaTooOld(StoreError, RuntimeError):
    """A read-only open found a store written by an older ctx-tree: it cannot be migrated
    without writing. ``found`` and ``supported`` as in :class:`SchemaVersionError`."""

    def __init__(self, where: str, found: int, supported: int) -> None:
        super().__init__(
            f"{where}: store schema version {found} is older than this ctx-tree's ({supported}) "
            "and a read-only open cannot upgrade it; run any ctx-tree command on the project "
            "once (e.g. `ctx-tree stats`), then retry"
        )
        self.found = found
        self.supported = supported


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite's "database is locked" (``BusyError`` or ``LockedError``):
    another connection held the write lock past the busy timeout, and the same call may work
    a moment later."""
    import apsw

    return isinstance(exc, apsw.BusyError | apsw.LockedError)


#: The system errors a write past the disk's space, the process's file size limit
#: (``RLIMIT_FSIZE``) or the user's disk quota ends with.
_FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def is_full(exc: BaseException, con: object) -> bool:
    """True when ``exc``, raised by ``con`` (an ``apsw.Connection``), means no room to write:
    ``SQLITE_FULL``, or a disk I/O error whose system error is :data:`_FULL_ERRNOS` (SQLite
    reports EFBIG and EDQUOT that way). The exceptions ``exc`` was raised while handling
    count too: a write that fails inside a savepoint rolls the whole transaction back, and
    releasing the savepoint then raises "no such savepoint" over the disk error."""
    import apsw

    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, apsw.FullError):
            return True
        if isinstance(seen, apsw.IOError) and getattr(con, "system_errno", 0) in _FULL_ERRNOS:
            return True
        seen = seen.__cause__ or seen.__context__
    return False
