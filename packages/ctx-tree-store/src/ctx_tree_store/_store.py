"""The store: one SQLite file per project holding nodes, edges and the FTS5 index.

All times are epoch milliseconds. Every write is one ``BEGIN IMMEDIATE`` transaction (a crash
mid-way leaves the store as it was); reads never wait for writers (WAL). A ``Store`` may be
shared by threads: a re-entrant lock serialises its use of the one apsw connection.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import apsw
from ctx_tree_schema import (
    FTS_TOKENIZE,
    EdgeKind,
    Filters,
    Node,
    NodeKind,
    NodeStatus,
    SessionMeta,
    can_transition,
)

from . import _sql, _vectors
from ._db import connect, connect_readonly, disk_bytes, file_identity, snapshot
from ._errors import (
    IllegalTransition,
    NodeNotFound,
    StoreError,
    StoreFull,
    StoreGone,
    is_full,
)
from ._packing import (
    hash_value,
    metadata_value,
    pack_content,
    unpack_metadata,
)
from ._rows import content_hash, row_to_node
from ._terms import (
    _quote,
    fallback_words,
    index_terms,
    match_all_query,
    match_query,
    query_words,
    split_identifier,
)

#: Statuses a search or listing returns when the caller gives none.
DEFAULT_STATUSES: tuple[NodeStatus, ...] = (NodeStatus.LIVE, NodeStatus.PENDING)
#: Deepest walk :meth:`Store.neighbors` takes (hops); the neighbors tool's range.
MAX_DEPTH = 5
FTS_PROBE_MAX = 64  # fts_scores: per-rowid lookups up to this many ids
FTS_SCAN_CAP = 50_000  # fts_scores: matches read at most in one pass
TERMS_WEIGHT = 2.0
_IDENT_RUN = re.compile(r"\w+")
#: At most this many matches (the newest, after filters) are ranked per FTS query; and a word
#: with this many matches or more is dropped from the OR step when a rarer word remains.
SEARCH_CAP = 1000
#: Store.postings keeps a word held by up to this many nodes whatever its share of them.
POSTINGS_MIN_CAP = 1000
#: Words matching this many nodes or more select search candidates but do not rank them.
RANK_MAX_DOCS = 50_000


def now_ms() -> int:
    """Current wall time in epoch milliseconds."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    """A fresh ULID string (26 Crockford base-32 chars, time-sortable), from python-ulid,
    whose default generator is strictly monotonic within the process, so ``sorted(ids)`` is
    creation order; across processes its 80 random bits keep ids unique."""
    from ulid import ULID

    return str(ULID())


@dataclass(slots=True)
class NewNode:
    """A node to insert. ``id`` and times are filled in by :meth:`Store.insert` when left empty.

    ``terms`` are extra search words (symbol, path); identifier parts of ``content`` are added.
    """

    kind: NodeKind
    content: str
    parent_id: str | None = None
    source_uri: str | None = None
    status: NodeStatus = NodeStatus.LIVE
    mtime: int = 0
    metadata: Mapping[str, object] = field(default_factory=dict)
    truncated: bool = False
    original_bytes: int | None = None
    terms: str = ""
    id: str = ""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One FTS5 hit: the node, its BM25 score (higher is better), a short snippet, and
    whether it matched every word of the query (False: only some, from the fallback).

    ``coverage``: the share of the query's words the node holds, in (0, 1]: 1.0 when it
    matched every word; for a partial match, the words of the fallback's OR it holds over all
    the query's fallback words (a word too frequent to rank, left out of that OR on a large
    store, counts as not held)."""

    node: Node
    score: float
    snippet: str
    matched_all: bool = True
    coverage: float = 1.0

    @property
    def lines(self) -> tuple[int, int] | None:
        """The node's 1-based inclusive line range (``metadata["lines"]``), or None."""
        return self.node.lines


@dataclass(frozen=True, slots=True)
class Postings:
    """What :meth:`Store.postings` found: ``tf[word][rowid]`` (weighted counts), ``docs[rowid]``
    ``(node_id, parent_id, kind, length in index tokens, symbol or None)`` and ``total``
    indexed nodes."""

    tf: dict[str, dict[int, float]]
    docs: dict[int, tuple[str, str | None, str, int, str | None]]
    total: int


def _docsize(blob: bytes | None) -> int:
    """Sum of the per-column token counts of an FTS5 ``docsize`` record (varints)."""
    if not blob:
        return 0
    total = value = shift = 0
    for b in blob:
        value |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
            continue
        total += value
        value = shift = 0
    return total


@dataclass(frozen=True, slots=True)
class FileTree:
    """A stored file version (:meth:`Store.capture_file`): its root, its live chunks in line
    order, whether this call inserted it (False: an identical version was already live), and
    the roots of the older versions it superseded."""

    root: Node
    chunks: tuple[Node, ...]
    created: bool
    superseded: tuple[str, ...] = ()


class NodeSize(NamedTuple):
    """How big, how old and in which state a node is, read without its content."""

    chars: int
    """Content length in characters (``len(content)``)."""
    newlines: int
    """Newline characters in the content (its line count less one, for text without a
    final newline)."""
    updated_at: int
    """Last update, epoch milliseconds."""
    status: str
    """``live``, ``stale``, ``superseded``, ``pruned`` or ``pending``."""


@dataclass(frozen=True, slots=True)
class Neighbor:
    """A node reached by :meth:`Store.neighbors` at ``depth`` hops via ``via``
    (``parent``, ``child`` or ``<edge kind>:out`` / ``<edge kind>:in``)."""

    node: Node
    depth: int
    via: str


def _low_rank(node: Node) -> bool:
    """A node the filter walker judged noise or too small (``metadata.low_rank``): kept and
    found, listed after the others of its group (docs/walkers.md, filter)."""
    return bool(node.metadata.get("low_rank"))


class Store:
    """A project's store. Open with :meth:`Store.open`; close with :meth:`close` (or ``with``)."""

    def __init__(self, con: apsw.Connection, path: str, *, copied_from: str | None = None) -> None:
        self.con = con
        self.path = path
        #: For a store opened with :meth:`open_snapshot`: the file it copied (or tried to).
        self.copied_from = copied_from
        #: Incremented by :meth:`reopen`: node ids cached under an older generation are void.
        self.generation = 0
        self._identity = file_identity(path) if path != ":memory:" else None
        self._lock = threading.RLock()
        self._depth = 0
        self._unrankable_words: set[str] = set()
        #: Whether ``con`` has the temp ``fts5vocab`` table :meth:`postings` reads.
        self._vocab_ready = False
        #: sqlite-vec's state in ``con`` (loaded on the first vector call; ``_vectors``).
        self._vec = _vectors.Extension()
        #: The index's FTS5 tokenizer on ``con`` (:meth:`index_words`), made on first use.
        self._tokenizer: Any = None
        #: The second, read-only connection of :meth:`reader`, opened on first use.
        self._reader: Store | None = None
        #: Ids of the nodes this process wrote while not :attr:`persistent` (see :meth:`in_file`).
        self._in_memory_only: set[str] = set()

    # -- lifecycle -----------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path | str) -> Store:
        """Open or create the store file at ``path`` (``":memory:"`` for a private one).

        Raises ``SchemaVersionError`` for a store newer than this code, ``StoreUnwritable``
        when it cannot be created or written, ``StoreFull`` when the disk is full.
        """
        return cls(connect(path), str(path))

    @classmethod
    def open_snapshot(cls, path: Path | str) -> tuple[Store, bool]:
        """A private in-memory store holding a copy of the file at ``path`` (for a process that
        cannot write it): searches see what it held, writes last as long as the process.
        Returns ``(store, copied)``; ``copied`` is False when the copy started empty (no file,
        unreadable, or too large). The file is never written."""
        con, copied = snapshot(path)
        return cls(con, ":memory:", copied_from=str(path)), copied

    @property
    def persistent(self) -> bool:
        """True when writes reach a file (False for ``:memory:`` and snapshots)."""
        return self.path != ":memory:"

    def in_file(self, node_id: str) -> bool:
        """True when a later process can find ``node_id`` in the store file: always for a
        :attr:`persistent` store; in memory or in a snapshot, unless this process wrote it."""
        return self.persistent or node_id not in self._in_memory_only

    def _written(self, ids: Iterable[str]) -> None:
        """Note the ids of nodes just written, when they are not written to a file."""
        if not self.persistent:
            self._in_memory_only.update(ids)

    def replaced(self) -> bool:
        """True when the store file was deleted or replaced (another inode) since it was
        opened; a ``stat``, about a microsecond. Always False in memory."""
        return self._identity is not None and file_identity(self.path) != self._identity

    def reopen(self) -> None:
        """Close the connection and open (creating if needed) the file now at :attr:`path`;
        bumps :attr:`generation`. Raises like :meth:`open`."""
        with self._lock:
            if self._depth:
                raise RuntimeError("reopen inside a transaction")
            with contextlib.suppress(apsw.Error):
                self.con.close()
            self.con = connect(self.path)
            self._identity = file_identity(self.path)
            self.generation += 1
            self._unrankable_words.clear()
            self._vocab_ready = False
            self._vec.loaded = False  # a new connection: sqlite-vec is loaded again on demand
            self._tokenizer = None
            self._close_reader()

    @classmethod
    def open_readonly(cls, path: Path | str) -> Store:
        """Open an existing store read-only (for the inspector): every write raises
        ``apsw.ReadOnlyError``. Raises ``FileNotFoundError`` when there is no store,
        ``SchemaVersionError`` / ``SchemaTooOld`` when its schema is not this code's."""
        return cls(connect_readonly(path), str(path))

    def close(self) -> None:
        """Close the connection (a store is also a context manager that closes on exit)."""
        with self._lock:
            self._close_reader()
            self.con.close()

    def reader(self) -> Store | None:
        """A second, read-only connection to this store's file, for a read that runs in another
        thread beside one on this connection: hybrid search scans the vectors there while BM25
        runs here (SQLite works without holding the GIL, so the two overlap;
        docs/search.md#how-the-vector-search-runs). It sees every commit, opens on first use,
        and closes with :meth:`close` (anew after :meth:`reopen`). None for a store without a
        file of its own (in memory, a snapshot copy) or when the file cannot be opened so."""
        if self.path == ":memory:" or self.copied_from is not None:
            return None
        with self._lock:
            if self._reader is None:
                try:
                    self._reader = Store.open_readonly(self.path)
                except (OSError, apsw.Error, StoreError):
                    return None
            return self._reader

    def _close_reader(self) -> None:
        if self._reader is not None:
            with contextlib.suppress(apsw.Error):
                self._reader.close()
            self._reader = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        with self._lock:
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

    def _query(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.con.execute(sql, args).fetchall()

    # -- writes --------------------------------------------------------------------------
    def insert(
        self, nodes: Iterable[NewNode], edges: Iterable[tuple[str, str, EdgeKind]] = ()
    ) -> list[str]:
        """Insert nodes (in order, so a parent may precede its children) and then edges
        ``(src_id, dst_id, kind)``, all in one transaction. Returns the node ids.

        Rows are prepared (hash, JSON, search terms) before the write lock is taken and written
        with multi-row ``INSERT`` statements: FTS5 flushes its pending index data at each
        statement savepoint, so one statement per row would write one tiny segment per node.

        Raises ``apsw.ConstraintError`` for a bad status, a duplicate id or a dangling edge, and
        ``ValueError`` for an unknown kind; nothing is written then.
        """
        ts = now_ms()
        ids: list[str] = []
        values: list[Any] = []
        for n in nodes:
            node_id = n.id or new_id()
            encoded = n.content.encode("utf-8", "surrogatepass")
            kind = NodeKind(n.kind).value
            values += (
                node_id,
                n.parent_id,
                kind,
                n.source_uri,
                pack_content(kind, n.content, encoded),
                hash_value(kind, n.parent_id, hashlib.sha256(encoded)),
                NodeStatus(n.status).value,
                n.mtime,
                ts,
                ts,
                int(n.truncated),
                n.original_bytes if n.original_bytes is not None else len(encoded),
                metadata_value(kind, n.parent_id, n.source_uri, n.metadata),
                index_terms(n.content, n.terms),
            )
            ids.append(node_id)
        edge_rows = [(src, dst, EdgeKind(kind).value, ts) for src, dst, kind in edges]
        width = _sql.INSERT_NODE_WIDTH
        step = _sql.INSERT_NODE_ROWS * width
        with self.transaction() as con:
            for start in range(0, len(values), step):
                part = values[start : start + step]
                con.execute(_sql.insert_nodes(len(part) // width), part)
            for row in edge_rows:
                con.execute(_sql.INSERT_EDGE, row)
        self._written(ids)
        return ids

    def add_edges(self, edges: Iterable[tuple[str, str, EdgeKind]]) -> None:
        """Insert edges ``(src_id, dst_id, kind)`` in one transaction; duplicates are ignored."""
        self.insert((), edges)

    def set_status(
        self, node_ids: Iterable[str], status: NodeStatus, *, at: int | None = None
    ) -> int:
        """Move nodes to ``status`` in one transaction; returns how many changed.

        A node already in ``status`` is left alone. Raises :class:`NodeNotFound` for an unknown id
        and :class:`IllegalTransition` for a change docs/data-model.md forbids; then nothing changes.
        """
        status = NodeStatus(status)
        ts = at if at is not None else now_ms()
        changed = 0
        with self.transaction() as con:
            for node_id in node_ids:
                old = con.execute(_sql.GET_STATUS, (node_id,)).get
                if old is None:
                    raise NodeNotFound(node_id)
                if old == status:
                    continue
                if not can_transition(old, status):
                    raise IllegalTransition(
                        f"node {node_id}: {old} → {status} is not allowed (docs/data-model.md)"
                    )
                con.execute(_sql.SET_STATUS, (status.value, ts, node_id))
                changed += 1
        return changed

    def supersede(self, new_id_: str, old_ids: str | Iterable[str]) -> None:
        """Write ``new --supersedes--> old`` and mark ``old`` superseded, for one old id or
        several, in one transaction (docs/data-model.md).

        Raises :class:`NodeNotFound` for an unknown id, :class:`IllegalTransition` when an old
        node cannot become superseded (docs/data-model.md) or is the new node itself; nothing changes then.
        """
        old_ids = [old_ids] if isinstance(old_ids, str) else list(old_ids)
        with self.transaction():
            if self.get(new_id_) is None:
                raise NodeNotFound(new_id_)
            if new_id_ in old_ids:
                raise IllegalTransition(f"node {new_id_} cannot supersede itself")
            self.set_status(old_ids, NodeStatus.SUPERSEDED)
            self.add_edges((new_id_, old, EdgeKind.SUPERSEDES) for old in old_ids)

    def capture_file(
        self,
        root: NewNode,
        chunks: Sequence[NewNode],
        *,
        referenced_by: str | None = None,
    ) -> FileTree:
        """Store one version of a file as a tree, in one transaction: the file status machine.

        ``root`` is the file root (``source_uri`` the file's URI, no ``parent_id``, an ``id``
        set, ``metadata["file_sha256"]`` and ``metadata["size"]`` naming the version);
        ``chunks`` have ``parent_id = root.id``. Under the write lock:

        * when the newest live or stale root for ``root.source_uri`` is the same version, it is
          kept (made live again, with its chunks, if stale) and nothing is inserted;
        * otherwise ``root`` and ``chunks`` are inserted live;
        * every other live or stale root for that URI, and its chunks, become ``superseded``,
          with a ``supersedes`` edge from the kept root to each old root;
        * ``referenced_by`` (a session node id) gets a ``references`` edge to the kept root.

        So any number of processes capturing the same file at once leave exactly one live tree
        per file (docs/data-model.md, "Cache behavior"). Raises ``ValueError`` for a root
        without an id, ``apsw.ConstraintError`` for an unknown ``referenced_by``.
        """
        if not root.id or root.parent_id is not None or not root.source_uri:
            raise ValueError("capture_file: the root needs an id, a source_uri and no parent_id")
        version = (root.metadata.get("file_sha256"), root.metadata.get("size"))
        with self.transaction() as con:
            current = [
                row_to_node(r) for r in con.execute(_sql.FILE_ROOTS_BY_SOURCE, (root.source_uri,))
            ]
            ts = now_ms()
            newest = current[0] if current else None
            if (
                newest is not None
                and (
                    newest.metadata.get("file_sha256"),
                    newest.metadata.get("size"),
                )
                == version
            ):
                keep_id, created = newest.id, False
                con.execute(_sql.REVIVE_TREE, (ts, keep_id, keep_id))
            else:
                keep_id, created = self.insert([root, *chunks])[0], True
            older = tuple(n.id for n in current if n.id != keep_id)
            for old in older:
                con.execute(_sql.SUPERSEDE_TREE, (ts, old, old))
            edges = [(keep_id, old, EdgeKind.SUPERSEDES) for old in older]
            if referenced_by is not None:
                edges.append((referenced_by, keep_id, EdgeKind.REFERENCES))
            self.insert((), edges)
            kept = row_to_node(con.execute(_sql.GET_NODE, (keep_id,)).fetchall()[0])
            live = tuple(row_to_node(r) for r in con.execute(_sql.LIVE_CHILDREN, (keep_id,)))
        return FileTree(kept, live, created, older)

    def capture_files(
        self,
        trees: Sequence[tuple[NewNode, Sequence[NewNode]]],
        *,
        referenced_by: str | None = None,
    ) -> list[tuple[str, bool]]:
        """:meth:`capture_file` for many files in **one** transaction (the project index,
        docs/index.md): each ``(root, chunks)`` follows the same status machine, and the new
        trees are written with one multi-row insert, so FTS5 flushes one segment per batch,
        not one per file. Returns ``(kept root id, created)`` per tree, in order; no rows are
        read back. Raises like :meth:`capture_file`; on an error nothing of the batch is
        written.
        """
        for root, _chunks in trees:
            if not root.id or root.parent_id is not None or not root.source_uri:
                raise ValueError("capture_files: a root needs an id, a source_uri and no parent_id")
        out: list[tuple[str, bool]] = []
        with self.transaction() as con:
            ts = now_ms()
            fresh: list[NewNode] = []
            edges: list[tuple[str, str, EdgeKind]] = []
            olders: list[tuple[str, ...]] = []
            for root, chunks in trees:
                version = (root.metadata.get("file_sha256"), root.metadata.get("size"))
                current = con.execute(_sql.FILE_VERSIONS_BY_SOURCE, (root.source_uri,)).fetchall()
                newest = current[0] if current else None
                if newest is not None and (newest[1], newest[2]) == version:
                    keep_id, created = str(newest[0]), False
                    con.execute(_sql.REVIVE_TREE, (ts, keep_id, keep_id))
                else:
                    keep_id, created = str(root.id), True
                    fresh += (root, *chunks)
                older = tuple(str(r[0]) for r in current if r[0] != keep_id)
                olders.append(older)
                edges += [(keep_id, old, EdgeKind.SUPERSEDES) for old in older]
                if referenced_by is not None:
                    edges.append((referenced_by, keep_id, EdgeKind.REFERENCES))
                out.append((keep_id, created))
            for older in olders:
                for old in older:
                    con.execute(_sql.SUPERSEDE_TREE, (ts, old, old))
            self.insert(fresh, edges)
        return out

    def file_versions(self, uri_prefix: str) -> dict[str, tuple[int, int, str]]:
        """``{source_uri: (mtime epoch ms, size bytes, sha256)}`` of the newest live file root
        of every file whose URI starts with ``uri_prefix`` (one query, no content read): what
        an incremental index compares a file's ``stat`` with (docs/index.md)."""
        rows = self._query(_sql.LIVE_FILE_VERSIONS, (uri_prefix, uri_prefix + "\uffff"))
        out: dict[str, tuple[int, int, str]] = {}
        for uri, mtime, size, sha in rows:
            out.setdefault(uri, (int(mtime), int(size or -1), str(sha or "")))
        return out

    def stale_file(self, source_uri: str) -> int:
        """Mark every live root for ``source_uri`` and its live chunks ``stale`` (the file is
        gone), in one transaction; returns how many nodes changed."""
        with self.transaction() as con:
            ts = now_ms()
            changed = 0
            for row in con.execute(_sql.FILE_ROOTS_BY_SOURCE, (source_uri,)).fetchall():
                con.execute(_sql.STALE_TREE, (ts, row[0], row[0]))
                changed += con.changes()
        return changed

    def drop(self, node_ids: Iterable[str]) -> int:
        """Delete ``pending`` nodes (the filter walker's drop). Raises :class:`IllegalTransition`
        for a node that is not pending. Returns how many were deleted."""
        count = 0
        with self.transaction() as con:
            for node_id in node_ids:
                old = con.execute(_sql.GET_STATUS, (node_id,)).get
                if old is None:
                    continue
                if old != NodeStatus.PENDING:
                    raise IllegalTransition(
                        f"node {node_id}: only pending nodes can be dropped, not {old}"
                    )
                con.execute(_sql.DELETE_NODE, (node_id,))
                count += 1
        return count

    def delete(self, node_ids: Iterable[str]) -> int:
        """Delete pruned nodes for good (their edges go with them). Returns the count."""
        count = 0
        with self.transaction() as con:
            for node_id in node_ids:
                if con.execute(_sql.GET_STATUS, (node_id,)).get == NodeStatus.PRUNED:
                    con.execute(_sql.DELETE_NODE, (node_id,))
                    count += 1
        return count

    def bump(self, **counters: int) -> None:
        """Add to named usage counters (e.g. ``tokens_served=120``)."""
        with self.transaction() as con:
            for name, value in counters.items():
                con.execute(_sql.BUMP_COUNTER, (name, int(value)))

    def record_usage(self, usage: dict[tuple[str, str], int], *, at: int | None = None) -> None:
        """Add ``{(tool, counter name): value}`` to the usage counters, in one transaction: the
        totals (:meth:`counters`) and the rows of the UTC day of ``at`` (epoch ms, default now)
        per tool (``usage_daily``, read by the inspector's savings view)."""
        if not usage:
            return
        day = time.strftime("%Y-%m-%d", time.gmtime((at if at is not None else now_ms()) / 1000))
        totals: dict[str, int] = {}
        for (_tool, name), value in usage.items():
            totals[name] = totals.get(name, 0) + int(value)
        with self.transaction() as con:
            for name, value in totals.items():
                con.execute(_sql.BUMP_COUNTER, (name, value))
            for (tool, name), value in usage.items():
                con.execute(_sql.BUMP_USAGE_DAILY, (day, tool, name, int(value)))

    def record_walker_run(
        self,
        walker: str,
        started_at: int,
        finished_at: int,
        summary: str,
        changes: dict[str, int],
        *,
        keep: int = 2000,
    ) -> None:
        """Append a walker run to ``walker_runs`` with what it changed (``changes``, e.g.
        ``{"promoted": 3}``) and the node counts by status after it; only the last ``keep``
        runs are kept. The count is read before the (short) write transaction."""
        counts = dict(self._query(_sql.STATUS_COUNTS))
        row = (
            walker,
            started_at,
            finished_at,
            summary,
            json.dumps(changes, separators=(",", ":")),
            json.dumps(counts, separators=(",", ":")),
        )
        with self.transaction() as con:
            con.execute(_sql.INSERT_WALKER_RUN, row)
            con.execute(_sql.TRIM_WALKER_RUNS, (keep,))

    # -- reads ---------------------------------------------------------------------------
    def get(self, node_id: str) -> Node | None:
        """The node with this id, or None."""
        rows = self._query(_sql.GET_NODE, (node_id,))
        return row_to_node(rows[0]) if rows else None

    def require(self, node_id: str) -> Node:
        """Like :meth:`get` but raises :class:`NodeNotFound`."""
        node = self.get(node_id)
        if node is None:
            raise NodeNotFound(node_id)
        return node

    def children(self, node_id: str) -> list[Node]:
        """Direct spine children of a node, oldest first."""
        return [row_to_node(r) for r in self._query(_sql.CHILDREN, (node_id,))]

    def latest_by_source(self, source_uri: str) -> Node | None:
        """The newest pending/live/stale node with this ``source_uri`` (the dedup key), or None.
        A chunk's URI (``file://<path>#<fragment>``) is looked up among the chunks of that
        file's roots (chunks are not in the URI index: docs/data-model.md)."""
        rows = self._query(_sql.LATEST_BY_SOURCE, (source_uri,))
        if not rows and source_uri.startswith("file://") and "#" in source_uri:
            path = source_uri.rpartition("#")[0]
            rows = self._query(_sql.LATEST_CHUNK_BY_SOURCE, (path, source_uri))
        return row_to_node(rows[0]) if rows else None

    def superseded_roots(self, source_uri: str, limit: int = 20) -> list[Node]:
        """Superseded root nodes (no parent) of ``source_uri``, newest first: earlier stored
        versions of a file, kept until the pruner removes them."""
        return [row_to_node(r) for r in self._query(_sql.SUPERSEDED_ROOTS, (source_uri, limit))]

    def restore_version(self, old_root_id: str, replaced_root_id: str | None, *, mtime: int) -> str:
        """Store a live copy of an earlier version of a file (root ``old_root_id`` and its
        children, under new ids, content and search terms as stored) with ``mtime`` (epoch
        ms), and supersede ``replaced_root_id`` and its live or stale children (edge
        new → replaced). For a file whose edit was reverted: its content is searchable again
        with no re-read. One transaction; returns the new root's id.

        Raises :class:`NodeNotFound` for an unknown ``old_root_id``.
        """
        ts = now_ms()
        with self.transaction() as con:
            if self.get(old_root_id) is None:
                raise NodeNotFound(old_root_id)
            made = [new_id()]
            root = made[0]
            con.execute(_sql.COPY_NODE, (root, None, mtime, ts, ts, old_root_id))
            for child in con.execute(_sql.SUPERSEDED_CHILD_IDS, (old_root_id,)).fetchall():
                made.append(new_id())
                con.execute(_sql.COPY_NODE, (made[-1], root, mtime, ts, ts, child[0]))
            if replaced_root_id is not None:
                con.execute(_sql.SUPERSEDE_TREE, (ts, replaced_root_id, replaced_root_id))
                self.add_edges([(root, replaced_root_id, EdgeKind.SUPERSEDES)])
        self._written(made)
        return root

    def path_to_root(self, node_id: str) -> list[Node]:
        """The spine from ``node_id`` up to its tree root, the node first.

        Cycle-safe: stops at a node already visited. Raises :class:`NodeNotFound`.
        """
        out: list[Node] = []
        seen: set[str] = set()
        current: str | None = node_id
        while current is not None and current not in seen:
            node = self.get(current)
            if node is None:
                if not out:
                    raise NodeNotFound(node_id)
                break
            seen.add(current)
            out.append(node)
            current = node.parent_id
        return out

    def get_many(self, node_ids: Sequence[str]) -> dict[str, Node]:
        """``{id: node}`` for the ids that exist (batched ``IN`` queries)."""
        out: dict[str, Node] = {}
        ids = list(dict.fromkeys(node_ids))
        for batch, marks in _sql.in_batches(ids):
            sql = _sql.GET_NODES.format(marks=marks)
            out.update((r[0], row_to_node(r)) for r in self._query(sql, batch))
        return out

    def adjacent(
        self,
        node_id: str,
        edge_kinds: Sequence[EdgeKind] | None = None,
        direction: str = "both",
        *,
        spine: bool = True,
    ) -> list[tuple[str, str]]:
        """Ids one hop away as ``(id, via)``: spine parent and children, then edges.

        ``direction`` is ``out``, ``in`` or ``both`` (for edges; the spine is always both ways).
        ``edge_kinds`` limits the edges followed (None: all); ``spine=False`` skips the spine.
        """
        return self.adjacent_many([node_id], edge_kinds, direction, spine=spine)[node_id]

    def adjacent_many(
        self,
        node_ids: Sequence[str],
        edge_kinds: Sequence[EdgeKind] | None = None,
        direction: str = "both",
        *,
        spine: bool = True,
    ) -> dict[str, list[tuple[str, str]]]:
        """:meth:`adjacent` for many ids at once (a few batched queries per :data:`_sql.IN_BATCH` ids)."""
        if direction not in ("in", "out", "both"):
            raise ValueError(f"direction must be 'in', 'out' or 'both', got {direction!r}")
        kinds = {EdgeKind(k).value for k in edge_kinds} if edge_kinds else None
        ids = list(dict.fromkeys(node_ids))
        parents: dict[str, str] = {}
        children: dict[str, list[str]] = {}
        outs: dict[str, list[tuple[str, str]]] = {}
        ins: dict[str, list[tuple[str, str]]] = {}
        for batch, marks in _sql.in_batches(ids):
            if spine:
                for nid, parent in self._query(_sql.PARENT_IDS.format(marks=marks), batch):
                    if parent is not None:
                        parents[nid] = parent
                for parent, nid in self._query(_sql.CHILD_IDS_MANY.format(marks=marks), batch):
                    children.setdefault(parent, []).append(nid)
            if direction in ("out", "both"):
                for src, dst, kind in self._query(_sql.EDGES_OUT_MANY.format(marks=marks), batch):
                    if kinds is None or kind in kinds:
                        outs.setdefault(src, []).append((dst, f"{kind}:out"))
            if direction in ("in", "both"):
                for dst, src, kind in self._query(_sql.EDGES_IN_MANY.format(marks=marks), batch):
                    if kinds is None or kind in kinds:
                        ins.setdefault(dst, []).append((src, f"{kind}:in"))
        out: dict[str, list[tuple[str, str]]] = {}
        for nid in ids:
            found: list[tuple[str, str]] = []
            if nid in parents:
                found.append((parents[nid], "parent"))
            found.extend((c, "child") for c in children.get(nid, ()))
            found.extend(outs.get(nid, ()))
            found.extend(ins.get(nid, ()))
            out[nid] = found
        return out

    def neighbors(
        self,
        node_id: str,
        depth: int = 1,
        edge_kinds: Sequence[EdgeKind] | None = None,
        direction: str = "both",
        limit: int = 1000,
        *,
        spine: bool = True,
    ) -> list[Neighbor]:
        """Breadth-first walk over the spine and edges up to ``depth`` hops (1..5), nearest first,
        at most ``limit`` nodes, the start node excluded; each node once, at its nearest depth.

        The spine (parent and children) is followed both ways unless ``spine=False``;
        ``edge_kinds`` limits the edges followed (None: all), ``direction`` their way (``out``:
        src → dst, ``in``: dst → src, ``both``). Cycles are harmless (visited nodes are skipped).

        Raises :class:`NodeNotFound` for an unknown start and ``ValueError`` for a depth outside
        1..5 or an unknown direction.
        """
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be an integer between 1 and {MAX_DEPTH}, got {depth!r}")
        if direction not in ("in", "out", "both"):
            raise ValueError(f"direction must be 'in', 'out' or 'both', got {direction!r}")
        self.require(node_id)
        seen = {node_id}
        frontier = [node_id]
        found: list[Neighbor] = []
        for hop in range(1, depth + 1):
            adjacency = self.adjacent_many(frontier, edge_kinds, direction, spine=spine)
            step: list[tuple[str, str]] = []
            for current in frontier:
                for other, via in adjacency[current]:
                    if other not in seen:
                        seen.add(other)
                        step.append((other, via))
            step = step[: limit - len(found)]
            nodes = self.get_many([other for other, _via in step])
            found.extend(Neighbor(nodes[o], hop, via) for o, via in step if o in nodes)
            frontier = [o for o, _via in step if o in nodes]
            if len(found) >= limit or not frontier:
                break
        return found

    def _filter_sql(self, filters: Filters | None, alias: str = "") -> tuple[str, list[Any]]:
        f = filters or Filters()
        p = f"{alias}." if alias else ""
        where: list[str] = []
        args: list[Any] = []
        statuses = f.status or DEFAULT_STATUSES
        where.append(f"{p}status IN ({','.join('?' * len(statuses))})")
        args.extend(s.value for s in statuses)
        if f.kind:
            where.append(f"{p}kind IN ({','.join('?' * len(f.kind))})")
            args.extend(k.value for k in f.kind)
        if f.since is not None:
            where.append(f"{p}created_at >= ?")
            args.append(f.since)
        if f.until is not None:
            where.append(f"{p}created_at <= ?")
            args.append(f.until)
        if f.parent_id:
            where.append(f"{p}parent_id = ?")
            args.append(f.parent_id)
        if f.session_id:
            # The session node itself, and the nodes hanging directly under it.
            session = self._session_node_id(f.session_id)
            where.append(f"({p}parent_id = ? OR {p}id = ?)")
            args.extend([session, session])
        return "".join(" AND " + w for w in where), args

    def _session_node_id(self, value: str) -> str:
        """A session node id given its id or its session key (``session://<key>``)."""
        rows = self._query(_sql.SESSION_ID_BY_URI, (f"session://{value}",))
        return rows[0][0] if rows else value

    def search(
        self,
        query: str,
        limit: int = 10,
        filters: Filters | None = None,
        *,
        snippets: bool = True,
    ) -> list[SearchHit]:
        """Keyword search over content and ``terms`` (FTS5 BM25, ``terms`` weighted x2).

        Any string is accepted: only its words are used, each as a quoted FTS5 string, so no
        FTS5 syntax error can occur; a query with no word returns ``[]``. ``limit`` is clamped
        to 1..200. Filters as docs/tools.md; by default live and pending nodes (pruned nodes are not
        in the index at all).

        Strategy (bounded work on large stores). Each query word is probed by walking its
        doclist newest-first: *flooding* when it matches :data:`SEARCH_CAP` nodes or more,
        *unrankable* when it matches :data:`RANK_MAX_DOCS` or more (a yes is remembered).

        1. With two or more words, every word must match first (AND; an identifier matches
           whole or as all its parts, see ``terms.match_all_query``).
        2. When that finds fewer than ``limit`` nodes, the rest come from an OR of the words
           (the ranking words below, without identifier parts that are lone digits or
           letters: ``qwertyuiop3`` does not fall back to ``3``). Those hits have
           ``matched_all=False`` and come after every AND hit, whatever their scores: each
           group is best score first, so the hits at limit k are the first k at any larger
           limit (docs/search.md).
        3. Ranking: BM25 (``terms`` column x2) over the non-flooding words; when every word
           floods, over the words that are not unrankable. FTS5's BM25 counts every node
           holding each ranked word (its IDF), which for a word in most of a million nodes
           costs more than the rest of the search; so frequent words select candidates (in
           the AND step) but do not rank them (their IDF is low anyway). When every word is
           unrankable, hits are the newest matches and ``score`` is 0.0.
        4. Each step ranks at most the :data:`SEARCH_CAP` newest matches (after filters) of
           its own expression, a recency window: the AND step its AND matches, whatever the
           number of newer nodes holding only some of the words (so on a small store every
           node with every word is ranked); the OR step the matches of the ranking words. The
           AND step runs BM25 on its window's rows only; finding them walks the ranking
           words' doclists, which BM25's IDF pass walks anyway. An AND match that holds none
           of the ranking words (an identifier found through its flooding parts) scores 0.0.

        Below the cap this is exact BM25 over all matches. Snippets are computed only for the
        returned hits; ``snippets=False`` leaves them empty (hybrid search ranks more
        candidates than it shows).
        """
        limit = max(1, min(int(limit), 200))
        if not query_words(query):
            return []
        words = fallback_words(query)
        where, args = self._filter_sql(filters, "n")
        flooding = {w for w in words if self._word_at_least(w, SEARCH_CAP)}
        rare = [w for w in words if w not in flooding]
        rank_words = rare or [w for w in words if not self._unrankable(w)]
        rank_expr = " OR ".join(_quote(w) for w in rank_words) if rank_words else None
        hits: list[SearchHit] = []
        all_expr = match_all_query(query)
        if all_expr is not None:
            hits = self._search(all_expr, rank_expr, where, args, limit, snippets)
        if len(hits) < limit:
            any_expr = rank_expr or " OR ".join(_quote(w) for w in words)
            seen = {h.node.id for h in hits}
            partial = all_expr is not None
            more = self._search(
                any_expr,
                rank_expr,
                where,
                args,
                limit + len(hits),
                snippets,
                words=len(words) if partial else 0,
            )
            hits.extend(
                [replace(h, matched_all=not partial) for h in more if h.node.id not in seen][
                    : limit - len(hits)
                ]
            )
        return sorted(hits, key=lambda h: (not h.matched_all, _low_rank(h.node), -h.score))

    def search_any(
        self,
        words: Sequence[str],
        limit: int = 200,
        filters: Filters | None = None,
        *,
        window: int = 50_000,
    ) -> list[SearchHit]:
        """Nodes holding any of ``words`` (each a quoted FTS5 string), BM25-ranked (``terms``
        x2) over the ``window`` newest matches after filters, not :data:`SEARCH_CAP`: for a
        long query's chosen words, whose OR matches much of a store (an indexed project's
        oldest files are its first indexed, not its least relevant). No snippets;
        ``matched_all`` False. ``limit`` is clamped to 1..1000."""
        if not words:
            return []
        limit = max(1, min(int(limit), 1000))
        where, args = self._filter_sql(filters, "n")
        expr = " OR ".join(_quote(w) for w in words)
        hits = self._search(expr, expr, where, args, limit, False, cap=max(1, window))
        return [replace(h, matched_all=False) for h in hits]

    def postings(
        self,
        words: Sequence[str],
        filters: Filters | None = None,
        *,
        max_share: float = 0.25,
    ) -> Postings:
        """Per-word term frequencies of ``words`` in the keyword index, for ranking a long
        query outside FTS5's ``bm25()`` (docs/search.md#long-queries): each word is stemmed
        as the index stems it (``porter unicode61``; a word of several tokens, such as
        ``_format_float``, counts 1 in each node holding them as a phrase), and its occurrences are read from an ``fts5vocab`` instance
        table on this connection's ``temp`` schema (nothing is written to the store).

        ``tf[word][rowid]`` is the word's count in the node's content plus
        ``TERMS_WEIGHT`` times its count in the ``terms`` column. Only nodes passing
        ``filters`` (default: live and pending) are kept; ``docs[rowid]`` gives their
        ``(node_id, parent_id, kind, length, symbol)``: the length in index tokens of both
        columns, the symbol a file chunk's metadata names (None for others).
        A word held by more than ``max_share`` of the indexed nodes (and more than
        :data:`POSTINGS_MIN_CAP`) is left out: its IDF is near zero and its doclist the longest. ``total`` is the count of indexed nodes."""
        import apsw

        with self._lock:
            if not self._vocab_ready:
                self.con.execute(_sql.FTS_VOCAB_TEMP)
                self._vocab_ready = True
            tokenizer = self._tokenizer
            if tokenizer is None:
                name, *targs = FTS_TOKENIZE.split()
                tokenizer = self._tokenizer = self.con.fts5_tokenizer(name, targs)
            total = int(self.con.execute(_sql.FTS_DOC_COUNT).get or 0)
            cap = max(POSTINGS_MIN_CAP, int(total * max_share))
            tf: dict[str, dict[int, float]] = {}
            for word in dict.fromkeys(words):
                tokens = [
                    t[2]
                    for t in tokenizer(word.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None)
                    if len(t) > 2
                ]
                counts: dict[int, float] = {}
                if len(tokens) > 1:
                    # an identifier of several tokens (``_format_float``): its phrase, held
                    # or not (its parts are words of their own in a long query)
                    found: list[Any] = self.con.execute(
                        _sql.FTS_PHRASE_ROWIDS, (_quote(word), cap + 1)
                    ).fetchall()
                    if len(found) <= cap:
                        counts = {int(r[0]): 1.0 for r in found}
                elif tokens:
                    rows: list[Any] = self.con.execute(
                        _sql.FTS_VOCAB_POSTINGS, (tokens[0], 2 * cap + 2)
                    ).fetchall()
                    if len({r[0] for r in rows}) <= cap:
                        for doc, col, n in rows:
                            weight = TERMS_WEIGHT if col else 1.0
                            counts[int(doc)] = counts.get(int(doc), 0.0) + int(n) * weight
                if counts:
                    tf[word] = counts
            rowids = sorted({r for c in tf.values() for r in c})
            where, args = self._filter_sql(filters, "n")
            docs: dict[int, tuple[str, str | None, str, int, str | None]] = {}
            for i in range(0, len(rowids), 20_000):
                batch = json.dumps(rowids[i : i + 20_000])
                for rowid, nid, parent, kind, size, symbol, no_path, uri in self.con.execute(
                    _sql.POSTING_DOCS.format(where=where), [batch, *args]
                ):
                    if symbol is None and no_path and kind == "file_chunk" and parent:
                        # a packed chunk's symbol is its source_uri's fragment (_packing.py)
                        symbol = unpack_metadata(kind, parent, uri, {}).get("symbol")
                    docs[rowid] = (nid, parent, kind, _docsize(size), symbol)
        for counts in tf.values():
            for rowid in [r for r in counts if r not in docs]:
                del counts[rowid]
        return Postings({w: c for w, c in tf.items() if c}, docs, total)

    def child_counts(self, parent_ids: Sequence[str]) -> dict[str, int]:
        """``{parent id: children}`` for each id with any (one pass over the parent index):
        a file root's chunk count, the file length long-query ranking normalises by."""
        out: dict[str, int] = {}
        ids = list(dict.fromkeys(parent_ids))
        for batch, marks in _sql.in_batches(ids):
            sql = _sql.CHILD_COUNTS.format(marks=marks)
            out.update((p, int(n)) for p, n in self._query(sql, batch))
        return out

    def word_counts(self, words: Iterable[str], cap: int = 2000) -> dict[str, int]:
        """``{word: nodes holding it}`` in the keyword index, each count stopped at ``cap``
        (a word at ``cap`` is frequent: its IDF is low). Pruned nodes are not counted; other
        statuses are. Long-query search picks its informative words with it
        (docs/search.md#long-queries)."""
        out: dict[str, int] = {}
        for word in words:
            rows = self._query(_sql.WORD_COUNT, (_quote(word), cap))
            out[word] = int(rows[0][0]) if rows else 0
        return out

    def _word_at_least(self, word: str, count: int) -> bool:
        return bool(self._query(_sql.WORD_AT_LEAST, (_quote(word), count - 1)))

    def _unrankable(self, word: str) -> bool:
        """Whether ``word`` matches :data:`RANK_MAX_DOCS` nodes or more. A yes is remembered
        (counts only shrink by pruning); a no is cheap to re-check."""
        if word in self._unrankable_words:
            return True
        if self._word_at_least(word, RANK_MAX_DOCS):
            if len(self._unrankable_words) >= 10_000:
                self._unrankable_words.clear()
            self._unrankable_words.add(word)
            return True
        return False

    def _search(
        self,
        expr: str,
        rank_expr: str | None,
        where: str,
        args: list[Any],
        limit: int,
        snippets: bool = True,
        words: int = 0,
        cap: int | None = None,
    ) -> list[SearchHit]:
        """Hits for the FTS expression ``expr`` (``rank_expr`` itself, or an AND of the words),
        ranked by BM25 of ``rank_expr`` (newest first when None), among the
        :data:`SEARCH_CAP` newest matches of ``expr`` after filters. A match of ``expr`` that
        holds none of ``rank_expr``'s words scores 0.0 (after the scored ones, newest first).
        ``words``: the query's word count, for a partial match's ``coverage`` (the share of
        them it holds, of ``expr``'s); 0 gives every hit 1.0."""
        with self._lock:
            if rank_expr is None:
                ranked = self._query(_sql.SEARCH_NEWEST.format(where=where), [expr, *args, limit])
            elif expr == rank_expr:
                floor = self._query(
                    _sql.SEARCH_FLOOR.format(where=where),
                    [expr, *args, (cap or SEARCH_CAP) - 1],
                )
                low = floor[0][0] if floor else -(2**63)
                scored = self._query(
                    _sql.SEARCH_RANK.format(where=where, terms_weight=TERMS_WEIGHT),
                    [rank_expr, *args, low],
                )
                scored.sort(key=lambda r: -r[1])
                ranked = scored[:limit]
            else:
                # An AND: its own newest matches are the window (so a node holding every word
                # is never crowded out by newer partial matches), ranked by the ranking words.
                sql = _sql.SEARCH_NEWEST.format(where=where)
                window = [r[0] for r in self._query(sql, [expr, *args, SEARCH_CAP])]
                scores: dict[int, float] = {}
                if window:
                    sql = _sql.SEARCH_RANK_AMONG.format(terms_weight=TERMS_WEIGHT)
                    bounds = [window[-1], window[0], json.dumps(window)]
                    scores.update(self._query(sql, [rank_expr, *bounds]))
                ranked = sorted(((r, scores.get(r, 0.0)) for r in window), key=lambda r: -r[1])
                ranked = ranked[:limit]
            if not ranked:
                return []
            marks = ",".join("?" * len(ranked))
            rows = {
                r[0]: r
                for r in self.con.execute(
                    _sql.SEARCH_ROWS.format(
                        marks=marks, snippet=_sql.SEARCH_SNIPPET if snippets else "''"
                    ),
                    [expr, *(r[0] for r in ranked)],
                )
            }
        return [
            SearchHit(
                row_to_node(rows[rowid][1:14]),
                float(score),
                rows[rowid][14] or "",
                coverage=min(1.0, rows[rowid][15] / words) if words else 1.0,
            )
            for rowid, score in ranked
            if rowid in rows
        ]

    def fts_scores(self, query: str, node_ids: Sequence[str]) -> dict[str, float]:
        """BM25 scores (higher is better) of the given nodes for ``query``; non-matching ids absent.

        Up to :data:`FTS_PROBE_MAX` ids are scored one rowid lookup each (~0.25 ms); more are
        scored in one pass over the query's matches, read in rowid order and stopped after
        :data:`FTS_SCAN_CAP` matches (on huge stores a candidate past the cap scores 0).
        """
        expr = match_query(query)
        if expr is None or not node_ids:
            return {}
        rowids: dict[int, str] = {}
        ids = list(dict.fromkeys(node_ids))
        for batch, marks in _sql.in_batches(ids):
            sql = _sql.NODE_ROWIDS.format(marks=marks)
            rowids.update((r, nid) for nid, r in self._query(sql, batch))
        out: dict[str, float] = {}
        with self._lock:
            if len(rowids) <= FTS_PROBE_MAX:
                for rowid, nid in rowids.items():
                    score = self.con.execute(_sql.FTS_SCORE_ROWID, (expr, rowid)).get
                    if isinstance(score, int | float):
                        out[nid] = float(score)
                return out
            for seen, (rowid, score) in enumerate(
                self.con.execute(_sql.FTS_SCORES_ALL, (expr,)), 1
            ):
                found = rowids.get(rowid)
                if found is not None:
                    out[found] = float(score)
                    if len(out) == len(rowids):
                        break
                if seen >= FTS_SCAN_CAP:
                    break
        return out

    def sizes(self, node_ids: Sequence[str]) -> dict[str, NodeSize]:
        """:class:`NodeSize` of each id that exists (unknown ids are absent), without
        fetching any content: what compose's graph source and the walkers need to know."""
        out: dict[str, NodeSize] = {}
        for batch, marks in _sql.in_batches(node_ids):
            sql = _sql.NODE_STATS.format(marks=marks)
            out.update({r[0]: NodeSize(*r[1:]) for r in self._query(sql, batch)})
        return out

    def recent(
        self,
        limit: int = 20,
        filters: Filters | None = None,
        *,
        since: int | None = None,
        kind: NodeKind | str | None = None,
        older_than: tuple[int, str] | None = None,
    ) -> list[Node]:
        """Newest nodes first (by ``created_at``, then by id, highest first), filtered like
        :meth:`search` (live and pending by default). ``since`` (epoch ms, inclusive) and
        ``kind`` are shorthands that override the same fields of ``filters``. ``older_than``
        ``(created_at, id)`` of a node resumes the listing after that node (which need not
        still exist), so pages neither skip nor repeat nodes created in the same millisecond.
        ``limit`` is clamped to 1..500."""
        if since is not None or kind is not None:
            f = filters or Filters()
            filters = Filters(
                status=f.status,
                kind=(NodeKind(kind),) if kind is not None else f.kind,
                since=since if since is not None else f.since,
                until=f.until,
                parent_id=f.parent_id,
                session_id=f.session_id,
            )
        where, args = self._filter_sql(filters)
        if older_than is not None:
            where += _sql.RECENT_OLDER_THAN
            args += [older_than[0], older_than[0], older_than[1]]
        return [
            row_to_node(r)
            for r in self._query(
                _sql.RECENT.format(where=where), [*args, max(1, min(int(limit), 500))]
            )
        ]

    def counts(self) -> dict[tuple[str, str], tuple[int, int]]:
        """``{(kind, status): (node count, content characters)}``."""
        return {(k, s): (c, b or 0) for k, s, c, b in self._query(_sql.COUNTS)}

    def file_root_count(self) -> int:
        """How many files the store holds (live, stale or pending file roots)."""
        return int(self._query(_sql.FILE_ROOT_COUNT)[0][0])

    def counters(self) -> dict[str, int]:
        """Usage counters written with :meth:`bump`."""
        return dict(self._query(_sql.COUNTERS))

    def size_bytes(self) -> int:
        """Bytes on disk of ``store.db`` plus its WAL: of the file copied for a snapshot, 0 for
        a store that was only ever in memory (``disk_bytes``)."""
        source = self.copied_from or self.path
        return 0 if source == ":memory:" else disk_bytes(source)

    # -- vectors (see _vectors.py and docs/search.md) -------------------------------------
    def _vector_db(self) -> _vectors.Db:
        """What the vector calls use of this store: its connection now, lock, transaction
        and sqlite-vec state (a new one per call: :meth:`reopen` replaces the connection)."""
        return _vectors.Db(self.con, self._lock, self.transaction, self._vec)

    def vector_models(self) -> dict[str, int]:
        """``{embedding model: vectors stored}``."""
        return _vectors.models(self._vector_db())

    def other_vector_model(self, model: str) -> str | None:
        """A model other than ``model`` whose vectors the store holds, or None."""
        return _vectors.other_model(self._vector_db(), model)

    def vector_backlog(self, model: str) -> int:
        """About how many live and pending nodes still lack a ``model`` vector."""
        return _vectors.backlog(self._vector_db(), model)

    def missing_vectors(
        self, model: str, limit: int = 32, after_rowid: int = 0
    ) -> list[tuple[int, Node]]:
        """``(rowid, node)`` of live/pending nodes needing a ``model`` vector, oldest first."""
        return _vectors.missing(self._vector_db(), model, limit, after_rowid)

    def put_vectors(
        self,
        model: str,
        items: Sequence[tuple[str, str, Sequence[float]]],
        *,
        at: int | None = None,
    ) -> int:
        """Store ``(node_id, content_hash, vector)`` rows of ``model`` in one transaction
        (skipping nodes gone or changed since); returns how many. Raises
        ``DimensionMismatch``, ``InvalidVector`` (empty, all zeros, NaN/inf: nothing written)
        and ``VectorUnavailable``."""
        return _vectors.put(self._vector_db(), model, items, at=at if at is not None else now_ms())

    def vector_search(
        self, model: str, query: Sequence[float], limit: int = 10, filters: Filters | None = None
    ) -> list[_vectors.VectorHit]:
        """Nearest nodes to ``query`` among ``model`` vectors (cosine), filtered as :meth:`search`."""
        return _vectors.nearest(
            self._vector_db(), model, query, limit, *self._filter_sql(filters, "n")
        )

    def vector_similarities(
        self, model: str, query: Sequence[float], node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine similarity (1.0 = same direction) of each given node's ``model`` vector to
        ``query``, exact; ids without a vector of ``model`` are absent. For hybrid search,
        which scores every candidate on every ranking (docs/search.md#hybrid). Raises
        :class:`VectorUnavailable` and :class:`DimensionMismatch` as :meth:`vector_search`."""
        return _vectors.similarities(self._vector_db(), model, query, node_ids)

    def vector_of(self, node_id: str, model: str) -> list[float] | None:
        """The ``model`` vector stored for ``node_id``, or None."""
        return _vectors.vector_of(self._vector_db(), node_id, model)

    def live_vectors_after(
        self, model: str, after_rowid: int, limit: int, kinds: Sequence[str] = ()
    ) -> list[tuple[int, Node]]:
        """``(rowid, node)`` of live nodes with a ``model`` vector, rowid after ``after_rowid``."""
        return _vectors.live_after(self._vector_db(), model, after_rowid, limit, kinds)

    def vector_dimensions(self, model: str) -> int | None:
        """Length of the ``model`` vectors stored, or None when there are none."""
        return _vectors.dimensions(self._vector_db(), model)

    def drop_model_vectors(self, model: str) -> int:
        """Delete every ``model`` vector (its dimensions changed under the same name, so the
        stored ones cannot be compared with new ones); returns how many."""
        return _vectors.drop_model(self._vector_db(), model)

    def drop_other_vectors(self, model: str) -> int:
        """Delete every vector that is not of ``model``; returns how many."""
        return _vectors.drop_other_models(self._vector_db(), model)

    def subtrees_over(self, threshold: int, limit: int = 100) -> list[tuple[str, int]]:
        """``(parent id, live non-summary children)`` for parents with at least ``threshold``
        such children, by id (the summarizer's candidates)."""
        return [(r[0], r[1]) for r in self._query(_sql.SUBTREES_OVER, (threshold, limit))]

    def walker_state(self, name: str) -> str | None:
        """A walker's persisted value (cursor, daily counter), or None."""
        rows = self._query(_sql.WALKER_STATE_GET, (name,))
        return rows[0][0] if rows else None

    def set_walker_state(self, name: str, value: str) -> None:
        """Persist a walker's value (one transaction)."""
        with self.transaction() as con:
            con.execute(_sql.WALKER_STATE_SET, (name, value))

    # -- sessions ------------------------------------------------------------------------
    def ensure_session(self, session_id: str, cwd: str) -> str:
        """The id of the ``session`` node for ``session_id`` (source ``session://<id>``),
        created when missing with metadata ``session_id``, ``cwd``, ``started_at`` (epoch ms)."""
        uri = f"session://{session_id}"
        with self.transaction():
            rows = self._query(_sql.SESSION_BY_URI, (uri,))
            if rows:
                found: str = rows[0][0]
                return found
            meta = SessionMeta(session_id=session_id, cwd=cwd, started_at=now_ms())
            return self.insert(
                [NewNode(NodeKind.SESSION, "", source_uri=uri, metadata=meta, terms="session")]
            )[0]

    # -- leases (walkers) ----------------------------------------------------------------
    def acquire_lease(self, name: str, holder: str, ttl_ms: int, *, at: int | None = None) -> bool:
        """Take or renew the lease ``name`` for ``holder`` until ``at + ttl_ms``.

        True when ``holder`` now holds it: it was free, expired, or already ``holder``'s.
        """
        ts = at if at is not None else now_ms()
        with self.transaction() as con:
            con.execute(
                _sql.LEASE_ACQUIRE,
                {"name": name, "holder": holder, "expires": ts + ttl_ms, "now": ts},
            )
            row = con.execute(_sql.LEASE_HOLDER, (name,)).fetchall()
        return bool(row) and row[0][0] == holder

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if ``holder`` holds it)."""
        with self.transaction() as con:
            con.execute(_sql.LEASE_RELEASE, (name, holder))

    # -- walker queries ------------------------------------------------------------------
    def pending(self, limit: int = 500) -> list[Node]:
        """Oldest pending nodes first."""
        return [row_to_node(r) for r in self._query(_sql.PENDING, (limit,))]

    def live_duplicate(self, node: Node) -> str | None:
        """Id of another live node with the same content hash and source, or None (chunks
        under a file root are not looked at: docs/data-model.md, indexes)."""
        rows = self._query(_sql.LIVE_DUPLICATE, (node.content_hash, node.source_uri, node.id))
        return rows[0][0] if rows else None

    def find_live(self, source_uri: str | None, content: str) -> str | None:
        """Id of the oldest live or pending node holding exactly ``content`` from
        ``source_uri``, or None (capture-time dedup: the same output is stored once, and the
        id an answer named is the one the filter walker keeps). Chunks under a file root are
        not looked at (docs/data-model.md, indexes)."""
        rows = self._query(_sql.SAME_CAPTURE, (content_hash(content), source_uri))
        return rows[0][0] if rows else None

    def live_file_roots(self, after_id: str = "", limit: int = 200) -> list[Node]:
        """Live file root nodes with id greater than ``after_id`` (for batched re-stat)."""
        return self.file_roots(NodeStatus.LIVE, after_id, limit)

    def file_roots(self, status: NodeStatus, after_id: str = "", limit: int = 200) -> list[Node]:
        """File root nodes in ``status`` with id greater than ``after_id``, in id order."""
        rows = self._query(_sql.FILE_ROOTS, (NodeStatus(status).value, after_id, limit))
        return [row_to_node(r) for r in rows]

    def expired(self, status: NodeStatus, before_ms: int, limit: int = 1000) -> list[str]:
        """Ids of nodes in ``status`` last updated before ``before_ms``, oldest first."""
        return [
            r[0] for r in self._query(_sql.EXPIRED, (NodeStatus(status).value, before_ms, limit))
        ]

    def expired_replaceable(self, before_ms: int, limit: int = 1000) -> list[str]:
        """Ids of ``superseded`` nodes last updated before ``before_ms`` whose content is not
        lost when they go, oldest first: file chunks (re-read from disk), summaries (made again
        from their children) and exact duplicates of a node that supersedes them. Other
        superseded nodes (an older run of a command, a near duplicate) are never listed: the
        pruner keeps them (docs/walkers.md)."""
        return [r[0] for r in self._query(_sql.EXPIRED_REPLACEABLE, (before_ms, limit))]

    def update_metadata(self, node_id: str, patch: dict[str, Any]) -> None:
        """Merge ``patch`` into a node's ``metadata`` (JSON merge patch: a ``None`` value
        removes its key), in one transaction. Raises :class:`NodeNotFound` for an unknown id."""
        with self.transaction() as con:
            con.execute(_sql.PATCH_METADATA, (json.dumps(patch), node_id))
            if not con.changes():
                raise NodeNotFound(node_id)

    def vacuum_step(self, pages: int = 1000) -> None:
        """Return up to ``pages`` free pages to the file system (``incremental_vacuum``)."""
        with self._lock:
            self.con.execute(f"PRAGMA incremental_vacuum({int(pages)})").fetchall()

    def integrity(self) -> tuple[str, bool]:
        """``(PRAGMA integrity_check result, FTS5 integrity-check passed)``."""
        with self._lock:
            check = self.con.execute("PRAGMA integrity_check").get
            try:
                self.con.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
                fts_ok = True
            except apsw.Error:
                fts_ok = False
        return check, fts_ok

    def snippets(self, query: str, node_ids: Sequence[str]) -> dict[str, str]:
        """``{id: snippet}`` of the given nodes that hold a word of ``query``: the words in
        context as keyword search shows them (FTS5 ``snippet()``, about 16 tokens). For hits
        ranked by other means (semantic and hybrid search) that should still show why they
        match. At most 100 ids; nodes holding none of the words are absent."""
        expr = match_query(query)
        ids = list(dict.fromkeys(node_ids))[:100]
        if expr is None or not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rowids = [r[1] for r in self._query(_sql.NODE_ROWIDS.format(marks=marks), ids)]
        if not rowids:
            return {}
        sql = _sql.SNIPPETS.format(marks=",".join("?" * len(rowids)))
        return {r[0]: r[1] or "" for r in self._query(sql, [expr, *rowids])}

    def index_words(self, text: str) -> list[str]:
        """The words of ``text`` as the keyword index holds them, in order: each identifier
        whole and split at camelCase/snake_case (``HelpTemplate`` → ``helptemplate``,
        ``help``, ``template``), each word through the index's own FTS5 tokenizer
        (``porter unicode61``: lower-cased, Porter-stemmed; ``overrides`` → ``overrid``).
        For callers that rank short texts the way the index matches them (hybrid search's
        symbol ranking, docs/search.md). Pure: reads nothing from the store."""
        tokenizer = self._tokenizer
        if tokenizer is None:
            name, *args = FTS_TOKENIZE.split()
            tokenizer = self._tokenizer = self.con.fts5_tokenizer(name, args)
        words: list[str] = []
        for raw in _IDENT_RUN.findall(text):
            parts = split_identifier(raw)  # the tokenizer splits at "_" itself
            pieces = [raw, *parts] if len(parts) > raw.count("_") + 1 else [raw]
            for piece in pieces:
                encoded = piece.encode("utf-8", "surrogatepass")
                words.extend(
                    tokenizer(
                        encoded,
                        apsw.FTS5_TOKENIZE_DOCUMENT,
                        None,
                        include_offsets=False,
                        include_colocated=False,
                    )
                )
        return words
