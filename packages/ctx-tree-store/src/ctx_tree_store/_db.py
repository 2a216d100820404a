"""Opening the SQLite file: permissions, pragmas and forward migrations."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import apsw
from ctx_tree_schema import MIGRATIONS, SCHEMA_VERSION

from ._errors import SchemaVersionError

#: How long a write waits for another process's write transaction before ``BusyError``.
BUSY_TIMEOUT_MS = 30_000


def _make_private_dir(directory: Path) -> None:
    """Create ``directory`` (and missing parents) 0700 whatever the umask; chmod it 0700."""
    missing: list[Path] = []
    for candidate in (directory, *directory.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for candidate in reversed(missing):
        try:
            candidate.mkdir(mode=0o700)
        except FileExistsError:  # another process made it first
            continue
        os.chmod(candidate, 0o700)
    os.chmod(directory, 0o700)


def _secure_files(path: Path) -> None:
    _make_private_dir(path.parent)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        os.fchmod(fd, 0o600)  # SQLite gives -wal and -shm the mode of the database file
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        candidate = Path(str(path) + suffix)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(candidate, 0o600)


def connect(path: Path | str) -> apsw.Connection:
    """Open (creating if needed) and migrate the store at ``path``.

    The directory is made 0700 and ``store.db``/``-wal``/``-shm`` 0600 whatever the umask.
    ``":memory:"`` opens a private in-memory store. Raises :class:`SchemaVersionError` when the
    file's schema is newer than :data:`ctx_tree_schema.SCHEMA_VERSION` (nothing is written then).
    """
    memory = str(path) == ":memory:"
    if not memory:
        path = Path(path)
        _secure_files(path)
    con = apsw.Connection(str(path))
    try:
        con.set_busy_timeout(BUSY_TIMEOUT_MS)
        version = con.execute("PRAGMA user_version").get
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(str(path), version, SCHEMA_VERSION)
        if version == 0:
            # Must precede the first page write (journal_mode=WAL writes the header): lets the
            # pruner hand space back with incremental_vacuum instead of a rowid-renumbering VACUUM.
            con.execute("PRAGMA auto_vacuum = INCREMENTAL")
        con.execute("PRAGMA foreign_keys = ON")
        if not memory:
            con.execute("PRAGMA journal_mode = WAL").get
            con.execute("PRAGMA synchronous = NORMAL")
        _migrate(con, str(path))
        if not memory:
            _secure_files(Path(path))
    except BaseException:
        con.close()
        raise
    return con


def _migrate(con: apsw.Connection, where: str) -> None:
    """Apply every migration newer than the file's ``user_version`` in one transaction."""
    if con.execute("PRAGMA user_version").get == SCHEMA_VERSION:
        return
    con.execute("BEGIN IMMEDIATE")
    try:
        version = con.execute("PRAGMA user_version").get  # another process may have won
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(where, version, SCHEMA_VERSION)
        for migration in MIGRATIONS:
            if migration.version > version:
                con.execute(migration.sql)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
