"""Opening the SQLite file: permissions, pragmas and forward migrations."""

from __future__ import annotations

import os
from pathlib import Path

import apsw
from ctx_tree_schema import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 10_000


class SchemaVersionError(RuntimeError):
    """The store was written by a newer ctx-tree than this one (its ``user_version`` is higher)."""


def _secure_files(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(str(path) + suffix)
        if candidate.exists():
            os.chmod(candidate, 0o600)


def connect(path: Path | str) -> apsw.Connection:
    """Open (creating if needed) and migrate the store at ``path``.

    The directory is made 0700 and ``store.db``/``-wal``/``-shm`` 0600 whatever the umask.
    ``":memory:"`` opens a private in-memory store. Raises :class:`SchemaVersionError` when the
    file's schema is newer than :data:`ctx_tree_schema.SCHEMA_VERSION`.
    """
    memory = str(path) == ":memory:"
    if not memory:
        path = Path(path)
        _secure_files(path)
    con = apsw.Connection(str(path))
    con.set_busy_timeout(BUSY_TIMEOUT_MS)
    con.execute("PRAGMA foreign_keys = ON")
    if not memory:
        con.execute("PRAGMA journal_mode = WAL").get
        con.execute("PRAGMA synchronous = NORMAL")
    _migrate(con, str(path))
    if not memory:
        _secure_files(Path(path))
    return con


def _migrate(con: apsw.Connection, where: str) -> None:
    version = con.execute("PRAGMA user_version").get
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where}: store schema version {version} is newer than this ctx-tree supports "
            f"({SCHEMA_VERSION}); upgrade ctx-tree or point CTX_TREE_HOME elsewhere"
        )
    if version == 0:
        # Must precede the first table; lets the pruner reclaim space without VACUUM.
        con.execute("PRAGMA auto_vacuum = INCREMENTAL")
    con.execute("BEGIN IMMEDIATE")
    try:
        version = con.execute("PRAGMA user_version").get  # another process may have won
        for migration in MIGRATIONS:
            if migration.version > version:
                con.execute(migration.sql)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
