"""Opening the SQLite file: permissions, pragmas and forward migrations."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from urllib.parse import quote

import apsw
from ctx_tree_schema import MIGRATIONS, SCHEMA_VERSION

from ._errors import SchemaTooOld, SchemaVersionError, StoreFull, StoreUnwritable, is_full

#: How long a write waits for another process's write transaction before ``BusyError``.
BUSY_TIMEOUT_MS = 30_000
#: A store larger than this is not copied into memory by :func:`snapshot`.
SNAPSHOT_MAX_BYTES = 256 * 1024 * 1024
#: Why a store directory or file cannot be made: no permission, a read-only file system, a
#: file where a directory should be (``CTX_TREE_HOME`` naming a file), a directory where the
#: store file should be.
_UNWRITABLE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EISDIR}
#: Page size of a new store file, in bytes.
PAGE_SIZE = 8192


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
    file's schema is newer than :data:`ctx_tree_schema.SCHEMA_VERSION` (nothing is written then),
    :class:`StoreUnwritable` when the directory or file cannot be created or written (read-only
    file system, another user's directory, permissions, a file in place of a directory) and :class:`StoreFull` when the disk is
    full.
    """
    try:
        return _connect(path)
    except apsw.FullError as exc:
        raise StoreFull(str(path)) from exc
    except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.PermissionsError) as exc:
        raise StoreUnwritable(str(path), str(exc)) from exc
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StoreFull(str(path)) from exc
        if exc.errno in _UNWRITABLE_ERRNOS:
            raise StoreUnwritable(str(path), str(exc.strerror or exc)) from exc
        raise


def snapshot(path: Path | str, max_bytes: int = SNAPSHOT_MAX_BYTES) -> tuple[apsw.Connection, bool]:
    """A private in-memory store holding a copy of the store file at ``path``, migrated, for a
    process that cannot write the file; or an empty one when the file is missing, unreadable
    or larger than ``max_bytes``. Returns ``(connection, copied)``. The file is read with
    :func:`open_without_writing`.
    Raises :class:`SchemaVersionError` for a copy newer than this code.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        return _connect(":memory:"), False
    if size > max_bytes:
        return _connect(":memory:"), False
    try:
        source = open_without_writing(path)
    except apsw.Error:
        return _connect(":memory:"), False
    # A backup into memory needs the source's page size (stores made before PAGE_SIZE keep 4 KB).
    con = apsw.Connection(":memory:")
    try:
        con.execute(f"PRAGMA page_size = {int(source.execute('PRAGMA page_size').get)}")
        with con.backup("main", source, "main") as copy:
            copy.step(-1)
    except apsw.Error:
        con.close()
        return _connect(":memory:"), False
    finally:
        source.close()
    version = con.execute("PRAGMA user_version").get
    if version > SCHEMA_VERSION:
        con.close()
        raise SchemaVersionError(str(path), version, SCHEMA_VERSION)
    con.execute("PRAGMA foreign_keys = ON")
    _register_functions(con)
    _migrate(con, str(path))
    return con, True


def open_without_writing(path: Path | str, *, live: bool = False) -> apsw.Connection:
    """A read-only connection to the store file ``path`` that writes nothing, not even a
    ``-wal`` or ``-shm`` file: a store with no WAL file (closed cleanly) is opened
    ``immutable``; one in use is read through its WAL (``mode=ro``), else ``immutable``.

    ``live=True`` (a reader that must see later commits, e.g. the inspector) always reads
    through the WAL (``mode=ro``): SQLite then creates the empty ``-wal`` and ``-shm`` files a
    WAL reader needs when no writer left them, with the database file's permissions; the
    database itself is still never written. Raises ``apsw.Error`` when it cannot be read as
    a database."""
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    in_use = live or os.path.exists(str(path) + "-wal")
    error: apsw.Error | None = None
    queries = ("mode=ro",) if live else ("mode=ro", "immutable=1") if in_use else ("immutable=1",)
    for query in queries:
        try:
            con = apsw.Connection(f"file:{quote(str(path))}?{query}", flags=flags)
        except apsw.Error as exc:
            error = exc
            continue
        try:
            con.execute("SELECT count(*) FROM sqlite_master").get
        except apsw.Error as exc:
            con.close()
            error = exc
            continue
        return con
    assert error is not None
    raise error


def file_identity(path: str) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path``, or None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def disk_bytes(path: Path | str) -> int:
    """Bytes on disk of the store file ``path`` and its WAL (what committed writes take before a
    checkpoint folds them in); 0 for a file that is missing or is no regular file."""
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            st = os.stat(str(path) + suffix)
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
    return total


def _connect(path: Path | str) -> apsw.Connection:
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
            # Chunk rows of 0.5-3 KB leave a quarter of 4 KB pages empty; 8 KB pages hold them
            # tighter (docs/data-model.md). A store made before keeps its page size. (Before
            # auto_vacuum: setting that first fixes the page size.)
            con.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            con.execute("PRAGMA auto_vacuum = INCREMENTAL")
        con.execute("PRAGMA foreign_keys = ON")
        _register_functions(con)
        if not memory:
            con.execute("PRAGMA journal_mode = WAL").get
            con.execute("PRAGMA synchronous = NORMAL")
        _migrate(con, str(path))
        if not memory:
            _secure_files(Path(path))
    except BaseException as exc:
        # opening an existing store may write (its -shm, a WAL recovery): a full disk then
        # shows as a disk I/O error whose system error says so
        full = not memory and is_full(exc, con)
        con.close()
        if full:
            raise StoreFull(str(path)) from exc
        raise
    return con


def _register_functions(con: apsw.Connection) -> None:
    """SQL functions the migrations may call: ``ctx_cjk_terms(text)`` (the CJK search terms
    of ``text``, see ``terms.cjk_terms``); and those of :func:`_register_readers`."""
    from ._terms import cjk_terms

    def ctx_cjk_terms(*args: apsw.SQLiteValue) -> str:
        return cjk_terms(args[0])

    con.create_scalar_function("ctx_cjk_terms", ctx_cjk_terms, 1, deterministic=True)
    _register_readers(con)


def _register_readers(con: apsw.Connection) -> None:
    """What every connection needs to read the store: ``ctx_text(content)`` and
    ``ctx_len(content)`` (a packed chunk's text and length in characters, ``_packing``; the
    FTS5 index reads its rows through ``ctx_text``), ``ctx_meta(metadata, source_uri)`` (a
    row's metadata as JSON text, packed or not), and the FTS5 function of
    :func:`_register_fts5`."""
    from ._packing import content_length, metadata_json, unpack_content

    def ctx_text(*args: apsw.SQLiteValue) -> apsw.SQLiteValue:
        return unpack_content(args[0])

    def ctx_len(*args: apsw.SQLiteValue) -> apsw.SQLiteValue:
        return content_length(args[0])

    def ctx_meta(*args: apsw.SQLiteValue) -> apsw.SQLiteValue:
        return metadata_json(args[0], args[1])  # type: ignore[arg-type]

    con.create_scalar_function("ctx_text", ctx_text, 1, deterministic=True)
    con.create_scalar_function("ctx_meta", ctx_meta, 2, deterministic=True)
    con.create_scalar_function("ctx_len", ctx_len, 1, deterministic=True)
    _register_fts5(con)


def _words_held(api: apsw.FTS5ExtensionApi, *args: apsw.SQLiteValue) -> int:
    return sum(1 for phrase in range(api.phrase_count) if api.phrase_columns(phrase))


def _register_fts5(con: apsw.Connection) -> None:
    """FTS5 auxiliary function ``ctx_words_held(fts)``: how many phrases of the MATCH
    expression (a search's quoted words) the current row holds, in any column. Searches
    select it for the rows they return only (a Python call per row, about a microsecond)."""
    con.register_fts5_function("ctx_words_held", _words_held)


def connect_readonly(path: Path | str) -> apsw.Connection:
    """Open the existing store at ``path`` read-only and live (:func:`open_without_writing`
    with ``live=True``, plus ``query_only``), seeing other processes' commits: nothing is
    created, migrated or written, permissions are left alone.

    A live reader needs room for the WAL's shared-memory file: where there is none (a full
    disk, ``-shm`` missing on a full file system) the file is read as it is instead
    (:func:`open_without_writing`, not live).

    Raises ``FileNotFoundError`` when there is no store file, :class:`SchemaVersionError` for a
    newer schema, :class:`SchemaTooOld` for an older one, ``apsw.Error`` when it cannot be
    read as a database.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no store at {path}: nothing was captured for this project yet")
    try:
        con = open_without_writing(path, live=True)
    except apsw.IOError:
        con = open_without_writing(path)
    try:
        con.set_busy_timeout(BUSY_TIMEOUT_MS)
        con.execute("PRAGMA query_only = ON")
        _register_readers(con)
        version = con.execute("PRAGMA user_version").get
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(str(path), version, SCHEMA_VERSION)
        if version < SCHEMA_VERSION:
            raise SchemaTooOld(str(path), version, SCHEMA_VERSION)
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
