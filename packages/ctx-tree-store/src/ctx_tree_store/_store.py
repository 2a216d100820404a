"""The store: one SQLite file per project holding nodes, edges and the FTS5 index.

All times are epoch milliseconds. Every write is one ``BEGIN IMMEDIATE`` transaction (a crash
mid-way leaves the store as it was); reads never wait for writers (WAL). A ``Store`` may be
shared by threads: a re-entrant lock serialises its use of the one apsw connection.

``Store`` is the face: it opens, reopens and closes the connection and hands it (a
``_conn.Db``) to the part that does each job, where the SQL and its rules live: writes in
``_nodes``, file versions in ``_files``, reads and walks in ``_graph``, keyword search in
``_fts`` and ``_postings``, the walkers' queries in ``_upkeep``, counts in ``_usage``,
vectors in ``_vectors``, symbol chunks by name in ``_symbols``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import apsw
from ctx_tree_schema import EdgeKind, Filters, Node, NodeKind, NodeStatus

from . import (
    _filerows,
    _files,
    _fts,
    _graph,
    _nodes,
    _postings,
    _symbols,
    _upkeep,
    _usage,
    _vectors,
)
from ._conn import Db
from ._db import connect, connect_readonly, disk_bytes, snapshot
from ._errors import StoreError
from ._filerows import FileRows
from ._files import FileTree
from ._filters import filter_sql
from ._fts import SearchHit
from ._graph import Neighbor, NodeSize
from ._nodes import NewNode
from ._postings import Postings
from ._rows import now_ms
from ._symbols import SymbolChunk


class Store:
    """A project's store. Open with :meth:`Store.open`; close with :meth:`close` (or ``with``)."""

    def __init__(self, con: apsw.Connection, path: str, *, copied_from: str | None = None) -> None:
        #: The connection the store's parts stand on (ctx-tree-store's own: other packages
        #: use the methods below).
        self.db = Db(con, path)
        self.path = path
        #: For a store opened with :meth:`open_snapshot`: the file it copied (or tried to).
        self.copied_from = copied_from
        #: Incremented by :meth:`reopen`: node ids cached under an older generation are void.
        self.generation = 0
        #: Words found unrankable on this connection (``_fts``), forgotten on :meth:`reopen`.
        self._unrankable_words: set[str] = set()
        #: The FTS5 vocab table and tokenizer on this connection (``_postings``).
        self._vocab = _postings.Vocab()
        #: sqlite-vec's state in ``con`` (loaded on the first vector call; ``_vectors``).
        self._vec = _vectors.Extension()
        #: The second, read-only connection of :meth:`reader`, opened on first use.
        self._reader: Store | None = None

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

    @classmethod
    def open_readonly(cls, path: Path | str) -> Store:
        """Open an existing store read-only (for the inspector): every write raises
        ``apsw.ReadOnlyError``. Raises ``FileNotFoundError`` when there is no store,
        ``SchemaVersionError`` / ``SchemaTooOld`` when its schema is not this code's."""
        return cls(connect_readonly(path), str(path))

    @property
    def con(self) -> apsw.Connection:
        """The apsw connection now (another after :meth:`reopen`)."""
        return self.db.con

    @property
    def persistent(self) -> bool:
        """True when writes reach a file (False for ``:memory:`` and snapshots)."""
        return self.db.persistent

    def in_file(self, node_id: str) -> bool:
        """True when a later process can find ``node_id`` in the store file: always for a
        :attr:`persistent` store; in memory or in a snapshot, unless this process wrote it."""
        return self.db.in_file(node_id)

    def replaced(self) -> bool:
        """True when the store file was deleted or replaced (another inode) since it was
        opened; a ``stat``, about a microsecond. Always False in memory."""
        return self.db.replaced()

    def reopen(self) -> None:
        """Close the connection and open (creating if needed) the file now at :attr:`path`;
        bumps :attr:`generation`. Raises like :meth:`open`."""
        with self.db.lock:
            if self.db.in_transaction:
                raise RuntimeError("reopen inside a transaction")
            with contextlib.suppress(apsw.Error):
                self.db.con.close()
            self.db.swap(connect(self.path))
            self.generation += 1
            self._unrankable_words.clear()
            self._vocab = _postings.Vocab()
            self._vec.loaded = False  # a new connection: sqlite-vec is loaded again on demand
            self._close_reader()

    def close(self) -> None:
        """Close the connection (a store is also a context manager that closes on exit)."""
        with self.db.lock:
            self._close_reader()
            self.db.con.close()

    def reader(self) -> Store | None:
        """A second, read-only connection to this store's file, for a read that runs in another
        thread beside one on this connection: hybrid search scans the vectors there while BM25
        runs here (SQLite works without holding the GIL, so the two overlap;
        docs/search.md#how-the-vector-search-runs). It sees every commit, opens on first use,
        and closes with :meth:`close` (anew after :meth:`reopen`). None for a store without a
        file of its own (in memory, a snapshot copy) or when the file cannot be opened so."""
        if self.path == ":memory:" or self.copied_from is not None:
            return None
        with self.db.lock:
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
        return self.db.in_transaction

    def transaction(self) -> AbstractContextManager[apsw.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``); nested calls become savepoints.

        An exception rolls everything back and propagates; SQLite's ``SQLITE_FULL``, and a
        disk I/O error from a full disk, a file size limit or a disk quota, become
        ``StoreFull``. Raises ``StoreGone`` when the store file was deleted or replaced,
        checked before the write starts and again after it commits: a write into a deleted
        file never counts as done.
        """
        return self.db.transaction()

    def size_bytes(self) -> int:
        """Bytes on disk of ``store.db`` plus its WAL: of the file copied for a snapshot, 0 for
        a store that was only ever in memory (``disk_bytes``)."""
        source = self.copied_from or self.path
        return 0 if source == ":memory:" else disk_bytes(source)

    # -- writes (_nodes, _files, _usage) -------------------------------------------------
    def insert(
        self, nodes: Iterable[NewNode], edges: Iterable[tuple[str, str, EdgeKind]] = ()
    ) -> list[str]:
        """Insert nodes (in order, so a parent may precede its children) and then edges
        ``(src_id, dst_id, kind)``, all in one transaction. Returns the node ids. Raises
        ``apsw.ConstraintError`` for a bad status, a duplicate id or a dangling edge, and
        ``ValueError`` for an unknown kind; nothing is written then."""
        return _nodes.insert(self.db, nodes, edges)

    def add_edges(self, edges: Iterable[tuple[str, str, EdgeKind]]) -> None:
        """Insert edges ``(src_id, dst_id, kind)`` in one transaction; duplicates are ignored."""
        _nodes.add_edges(self.db, edges)

    def set_status(
        self, node_ids: Iterable[str], status: NodeStatus, *, at: int | None = None
    ) -> int:
        """Move nodes to ``status`` in one transaction; returns how many changed. Raises
        ``NodeNotFound``, ``IllegalTransition`` (docs/data-model.md); nothing changes then."""
        return _nodes.set_status(self.db, node_ids, status, at=at)

    def supersede(self, new_id_: str, old_ids: str | Iterable[str]) -> None:
        """Write ``new --supersedes--> old`` and mark ``old`` superseded (one id or several),
        in one transaction. Raises ``NodeNotFound``, ``IllegalTransition``."""
        _nodes.supersede(self.db, new_id_, old_ids)

    def capture_file(
        self,
        root: NewNode,
        chunks: Sequence[NewNode],
        *,
        referenced_by: str | None = None,
    ) -> FileTree:
        """Store one version of a file as a tree (root and chunks), in one transaction: the
        file status machine leaves one live tree per file (``_files.capture_file``). Raises
        ``ValueError`` for a root without an id, ``apsw.ConstraintError`` for an unknown
        ``referenced_by``."""
        return _files.capture_file(self.db, root, chunks, referenced_by=referenced_by)

    def capture_files(
        self,
        trees: Sequence[tuple[NewNode, Sequence[NewNode]]],
        *,
        referenced_by: str | None = None,
    ) -> list[tuple[str, bool]]:
        """:meth:`capture_file` for many files in **one** transaction (the project index);
        ``(kept root id, created)`` per tree, in order. Raises like :meth:`capture_file`."""
        return _files.capture_files(self.db, trees, referenced_by=referenced_by)

    def capture_file_rows(self, files: Sequence[FileRows], at: int) -> list[tuple[str, bool]]:
        """:meth:`capture_files` for rows the project index built in its workers
        (:func:`file_rows`), in one transaction; ``at``: epoch ms of the status changes.
        ``(kept root id, created)`` per file, in order (docs/index.md)."""
        return _filerows.capture_rows(self.db, files, at)

    def live_roots_under(self, uri_prefix: str) -> dict[str, str]:
        """``{source_uri: root id}`` of the live file roots under ``uri_prefix`` (a range of
        the source index, no row read)."""
        return _files.live_roots_under(self.db, uri_prefix)

    def file_texts(self, root_ids: Sequence[str]) -> dict[str, str]:
        """``{root id: the file's stored text}`` (its live chunks joined), batched."""
        return _files.file_texts(self.db, root_ids)

    def stale_files(self, uris: Sequence[str], at: int) -> int:
        """:meth:`stale_file` for many files in one transaction; returns how many had live
        nodes."""
        return _filerows.stale(self.db, uris, at)

    def file_versions(self, uri_prefix: str) -> dict[str, tuple[int, int, str]]:
        """``{source_uri: (mtime epoch ms, size bytes, sha256)}`` of the newest live file root
        of every file whose URI starts with ``uri_prefix`` (docs/index.md)."""
        return _files.file_versions(self.db, uri_prefix)

    def stale_file(self, source_uri: str) -> int:
        """Mark every live root for ``source_uri`` and its live chunks ``stale`` (the file is
        gone), in one transaction; returns how many nodes changed."""
        return _files.stale_file(self.db, source_uri)

    def chunks_defining(self, name: str, limit: int = _symbols.LOOKUP_MAX) -> list[SymbolChunk]:
        """Live file chunks whose symbol's last part is ``name``, newest first, of at most
        ``limit`` candidates (docs/search.md, "References between symbols")."""
        return _symbols.defining(self.db, name, limit)

    def chunks_mentioning(self, name: str, limit: int = _symbols.LOOKUP_MAX) -> list[SymbolChunk]:
        """Live file chunks whose code holds every word of ``name``, newest first, at most
        ``limit``: the candidates for a name's users."""
        return _symbols.mentioning(self.db, name, limit)

    def chunk_named(self, root_id: str, uri: str, symbol: str) -> SymbolChunk | None:
        """The live chunk of file root ``root_id`` (URI ``uri``) that starts ``symbol``."""
        return _symbols.chunk_named(self.db, root_id, uri, symbol)

    def chunks_of(self, root_id: str) -> list[SymbolChunk]:
        """The live chunks of file root ``root_id``, without their content."""
        return _symbols.chunks_of(self.db, root_id)

    def restore_version(self, old_root_id: str, replaced_root_id: str | None, *, mtime: int) -> str:
        """Store a live copy of an earlier version of a file (``old_root_id``'s tree) with
        ``mtime`` (epoch ms), superseding ``replaced_root_id``'s tree; one transaction;
        returns the new root's id. Raises ``NodeNotFound`` for an unknown ``old_root_id``."""
        return _files.restore_version(self.db, old_root_id, replaced_root_id, mtime=mtime)

    def drop(self, node_ids: Iterable[str]) -> int:
        """Delete ``pending`` nodes (the filter walker's drop); returns how many. Raises
        ``IllegalTransition`` for a node that is not pending."""
        return _nodes.drop(self.db, node_ids)

    def delete(self, node_ids: Iterable[str]) -> int:
        """Delete pruned nodes for good (their edges go with them). Returns the count."""
        return _nodes.delete(self.db, node_ids)

    def update_metadata(self, node_id: str, patch: dict[str, Any]) -> None:
        """Merge ``patch`` into a node's ``metadata`` (JSON merge patch: a ``None`` value
        removes its key), in one transaction. Raises ``NodeNotFound`` for an unknown id."""
        _nodes.update_metadata(self.db, node_id, patch)

    def ensure_session(self, session_id: str, cwd: str) -> str:
        """The id of the ``session`` node for ``session_id`` (source ``session://<id>``),
        created when missing with metadata ``session_id``, ``cwd``, ``started_at`` (epoch ms)."""
        return _nodes.ensure_session(self.db, session_id, cwd)

    def bump(self, **counters: int) -> None:
        """Add to named usage counters (e.g. ``tokens_served=120``)."""
        _usage.bump(self.db, **counters)

    def record_usage(self, usage: dict[tuple[str, str], int], *, at: int | None = None) -> None:
        """Add ``{(tool, counter name): value}`` to the usage counters (totals and the UTC day
        of ``at``, epoch ms, default now, per tool), in one transaction."""
        _usage.record_usage(self.db, usage, at=at)

    # -- reads and walks (_graph, _files, _usage) ----------------------------------------
    def get(self, node_id: str) -> Node | None:
        """The node with this id, or None."""
        return _graph.get(self.db, node_id)

    def require(self, node_id: str) -> Node:
        """Like :meth:`get` but raises :class:`NodeNotFound`."""
        return _graph.require(self.db, node_id)

    def children(self, node_id: str) -> list[Node]:
        """Direct spine children of a node, oldest first."""
        return _graph.children(self.db, node_id)

    def latest_by_source(self, source_uri: str) -> Node | None:
        """The newest pending/live/stale node with this ``source_uri`` (the dedup key; a
        chunk's ``file://<path>#<fragment>`` too), or None."""
        return _graph.latest_by_source(self.db, source_uri)

    def superseded_roots(self, source_uri: str, limit: int = 20) -> list[Node]:
        """Superseded root nodes (no parent) of ``source_uri``, newest first: earlier stored
        versions of a file, kept until the pruner removes them."""
        return _files.superseded_roots(self.db, source_uri, limit)

    def path_to_root(self, node_id: str) -> list[Node]:
        """The spine from ``node_id`` up to its tree root, the node first (cycle-safe).
        Raises :class:`NodeNotFound`."""
        return _graph.path_to_root(self.db, node_id)

    def get_many(self, node_ids: Sequence[str]) -> dict[str, Node]:
        """``{id: node}`` for the ids that exist (batched ``IN`` queries)."""
        return _graph.get_many(self.db, node_ids)

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
        return _graph.adjacent_many(self.db, [node_id], edge_kinds, direction, spine=spine)[node_id]

    def adjacent_many(
        self,
        node_ids: Sequence[str],
        edge_kinds: Sequence[EdgeKind] | None = None,
        direction: str = "both",
        *,
        spine: bool = True,
    ) -> dict[str, list[tuple[str, str]]]:
        """:meth:`adjacent` for many ids at once (a few batched queries per 500 ids)."""
        return _graph.adjacent_many(self.db, node_ids, edge_kinds, direction, spine=spine)

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
        """Breadth-first walk over the spine and edges up to ``depth`` hops (1..5), nearest
        first, at most ``limit`` nodes, the start excluded (``_graph.neighbors``). Raises
        :class:`NodeNotFound` for an unknown start, ``ValueError`` for a depth outside 1..5
        or an unknown direction."""
        return _graph.neighbors(self.db, node_id, depth, edge_kinds, direction, limit, spine=spine)

    def child_counts(self, parent_ids: Sequence[str]) -> dict[str, int]:
        """``{parent id: children}`` for each id with any (a file root's chunk count)."""
        return _graph.child_counts(self.db, parent_ids)

    def sizes(self, node_ids: Sequence[str]) -> dict[str, NodeSize]:
        """:class:`NodeSize` of each id that exists (unknown ids are absent), without
        fetching any content."""
        return _graph.sizes(self.db, node_ids)

    def recent(
        self,
        limit: int = 20,
        filters: Filters | None = None,
        *,
        since: int | None = None,
        kind: NodeKind | str | None = None,
        older_than: tuple[int, str] | None = None,
    ) -> list[Node]:
        """Newest nodes first (``created_at``, then id), filtered like :meth:`search`;
        ``since``/``kind`` override those fields of ``filters``, ``older_than``
        ``(created_at, id)`` resumes after that node; ``limit`` clamped to 1..500."""
        return _graph.recent(self.db, limit, filters, since=since, kind=kind, older_than=older_than)

    def counts(self) -> dict[tuple[str, str], tuple[int, int]]:
        """``{(kind, status): (node count, content characters)}``."""
        return _usage.counts(self.db)

    def file_root_count(self) -> int:
        """How many files the store holds (live, stale or pending file roots)."""
        return _usage.file_root_count(self.db)

    def counters(self) -> dict[str, int]:
        """Usage counters written with :meth:`bump`."""
        return _usage.counters(self.db)

    # -- keyword search (_fts, _postings; docs/search.md) --------------------------------
    def search(
        self,
        query: str,
        limit: int = 10,
        filters: Filters | None = None,
        *,
        snippets: bool = True,
    ) -> list[SearchHit]:
        """Keyword search over content and ``terms`` (FTS5 BM25, ``terms`` weighted x2), every
        word first, then any; any string is accepted (a query with no word returns ``[]``);
        ``limit`` clamped to 1..200; filters as docs/tools.md, by default live and pending.
        The strategy and its bounds: ``_fts.search``."""
        return _fts.search(
            self.db, self._unrankable_words, query, limit, filters, snippets=snippets
        )

    def search_any(
        self,
        words: Sequence[str],
        limit: int = 200,
        filters: Filters | None = None,
        *,
        window: int = 50_000,
    ) -> list[SearchHit]:
        """Nodes holding any of ``words``, BM25-ranked over the ``window`` newest matches after
        filters (a long query's chosen words); no snippets; ``limit`` clamped to 1..1000."""
        return _fts.search_any(self.db, words, limit, filters, window=window)

    def postings(
        self,
        words: Sequence[str],
        filters: Filters | None = None,
        *,
        max_share: float = 0.25,
    ) -> Postings:
        """Per-word term frequencies of ``words`` in the keyword index and the lengths of the
        nodes holding them, for ranking a long query outside FTS5's ``bm25()``; a word held by
        more than ``max_share`` of the indexed nodes is left out (``_postings.postings``)."""
        return _postings.postings(self.db, self._vocab, words, filters, max_share=max_share)

    def word_counts(self, words: Iterable[str], cap: int = 2000) -> dict[str, int]:
        """``{word: nodes holding it}`` in the keyword index, each count stopped at ``cap``;
        pruned nodes are not counted."""
        return _postings.word_counts(self.db, words, cap)

    def fts_scores(self, query: str, node_ids: Sequence[str]) -> dict[str, float]:
        """BM25 scores (higher is better) of the given nodes for ``query``; non-matching ids
        absent (on huge stores a candidate past ``_fts.FTS_SCAN_CAP`` matches scores 0)."""
        return _fts.fts_scores(self.db, query, node_ids)

    def snippets(self, query: str, node_ids: Sequence[str]) -> dict[str, str]:
        """``{id: snippet}`` of the given nodes (at most 100) that hold a word of ``query``,
        as keyword search shows them (FTS5 ``snippet()``, about 16 tokens)."""
        return _fts.snippets(self.db, query, node_ids)

    def index_words(self, text: str) -> list[str]:
        """The words of ``text`` as the keyword index holds them, in order: identifiers whole
        and split, each through the index's FTS5 tokenizer (lower-cased, Porter-stemmed).
        Pure: reads nothing from the store."""
        return _postings.index_words(self.db, self._vocab, text)

    # -- vectors (_vectors; docs/search.md) ----------------------------------------------
    def vector_models(self) -> dict[str, int]:
        """``{embedding model: vectors stored}``."""
        return _vectors.models(self.db)

    def other_vector_model(self, model: str) -> str | None:
        """A model other than ``model`` whose vectors the store holds, or None."""
        return _vectors.other_model(self.db, model)

    def vector_backlog(self, model: str) -> int:
        """About how many live and pending nodes still lack a ``model`` vector."""
        return _vectors.backlog(self.db, model)

    def missing_vectors(
        self, model: str, limit: int = 32, after_rowid: int = 0
    ) -> list[tuple[int, Node]]:
        """``(rowid, node)`` of live/pending nodes needing a ``model`` vector, oldest first."""
        return _vectors.missing(self.db, model, limit, after_rowid)

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
        at = at if at is not None else now_ms()
        return _vectors.put(self.db, self._vec, model, items, at=at)

    def vector_search(
        self, model: str, query: Sequence[float], limit: int = 10, filters: Filters | None = None
    ) -> list[_vectors.VectorHit]:
        """Nearest nodes to ``query`` among ``model`` vectors (cosine), filtered as :meth:`search`."""
        where, args = filter_sql(self.db, filters, "n")
        return _vectors.nearest(self.db, self._vec, model, query, limit, where, args)

    def vector_similarities(
        self, model: str, query: Sequence[float], node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine similarity (1.0 = same direction) of each given node's ``model`` vector to
        ``query``, exact; ids without a vector of ``model`` are absent. For hybrid search,
        which scores every candidate on every ranking (docs/search.md#hybrid). Raises
        ``VectorUnavailable`` and ``DimensionMismatch`` as :meth:`vector_search`."""
        return _vectors.similarities(self.db, self._vec, model, query, node_ids)

    def vector_of(self, node_id: str, model: str) -> list[float] | None:
        """The ``model`` vector stored for ``node_id``, or None."""
        return _vectors.vector_of(self.db, node_id, model)

    def live_vectors_after(
        self, model: str, after_rowid: int, limit: int, kinds: Sequence[str] = ()
    ) -> list[tuple[int, Node]]:
        """``(rowid, node)`` of live nodes with a ``model`` vector, rowid after ``after_rowid``."""
        return _vectors.live_after(self.db, model, after_rowid, limit, kinds)

    def vector_dimensions(self, model: str) -> int | None:
        """Length of the ``model`` vectors stored, or None when there are none."""
        return _vectors.dimensions(self.db, model)

    def drop_model_vectors(self, model: str) -> int:
        """Delete every ``model`` vector (its dimensions changed under the same name, so the
        stored ones cannot be compared with new ones); returns how many."""
        return _vectors.drop_model(self.db, model)

    def drop_other_vectors(self, model: str) -> int:
        """Delete every vector that is not of ``model``; returns how many."""
        return _vectors.drop_other_models(self.db, model)

    # -- the walkers' queries, leases and records (_upkeep; docs/walkers.md) -------------
    def pending(self, limit: int = 500) -> list[Node]:
        """Oldest pending nodes first."""
        return _upkeep.pending(self.db, limit)

    def live_duplicate(self, node: Node) -> str | None:
        """Id of another live node with the same content hash and source, or None (chunks
        under a file root are not looked at)."""
        return _upkeep.live_duplicate(self.db, node)

    def find_live(self, source_uri: str | None, content: str) -> str | None:
        """Id of the oldest live or pending node holding exactly ``content`` from
        ``source_uri``, or None (capture-time dedup; chunks under a file root are not looked
        at)."""
        return _upkeep.find_live(self.db, source_uri, content)

    def live_file_roots(self, after_id: str = "", limit: int = 200) -> list[Node]:
        """Live file root nodes with id greater than ``after_id`` (for batched re-stat)."""
        return _upkeep.file_roots(self.db, NodeStatus.LIVE, after_id, limit)

    def file_roots(self, status: NodeStatus, after_id: str = "", limit: int = 200) -> list[Node]:
        """File root nodes in ``status`` with id greater than ``after_id``, in id order."""
        return _upkeep.file_roots(self.db, status, after_id, limit)

    def expired(self, status: NodeStatus, before_ms: int, limit: int = 1000) -> list[str]:
        """Ids of nodes in ``status`` last updated before ``before_ms``, oldest first."""
        return _upkeep.expired(self.db, status, before_ms, limit)

    def expired_replaceable(self, before_ms: int, limit: int = 1000) -> list[str]:
        """Ids of ``superseded`` nodes last updated before ``before_ms`` whose content is not
        lost when they go (file chunks, summaries, exact duplicates), oldest first."""
        return _upkeep.expired_replaceable(self.db, before_ms, limit)

    def subtrees_over(self, threshold: int, limit: int = 100) -> list[tuple[str, int]]:
        """``(parent id, live non-summary children)`` for parents with at least ``threshold``
        such children, by id (the summarizer's candidates)."""
        return _upkeep.subtrees_over(self.db, threshold, limit)

    def walker_state(self, name: str) -> str | None:
        """A walker's persisted value (cursor, daily counter), or None."""
        return _upkeep.walker_state(self.db, name)

    def set_walker_state(self, name: str, value: str) -> None:
        """Persist a walker's value (one transaction)."""
        _upkeep.set_walker_state(self.db, name, value)

    def acquire_lease(self, name: str, holder: str, ttl_ms: int, *, at: int | None = None) -> bool:
        """Take or renew the lease ``name`` for ``holder`` until ``at + ttl_ms``; True when
        ``holder`` now holds it (it was free, expired, or already ``holder``'s)."""
        return _upkeep.acquire_lease(self.db, name, holder, ttl_ms, at=at)

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if ``holder`` holds it)."""
        _upkeep.release_lease(self.db, name, holder)

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
        """Append a walker run (what it changed, e.g. ``{"promoted": 3}``, and the node counts
        by status after it) to ``walker_runs``, keeping the last ``keep`` runs."""
        _upkeep.record_walker_run(
            self.db, walker, started_at, finished_at, summary, changes, keep=keep
        )

    def vacuum_step(self, pages: int = 1000) -> None:
        """Return up to ``pages`` free pages to the file system (``incremental_vacuum``)."""
        _upkeep.vacuum_step(self.db, pages)

    def free_pages(self) -> int:
        """Pages on the file's free list (``PRAGMA freelist_count``), in pages."""
        return _upkeep.free_pages(self.db)

    def integrity(self) -> tuple[str, bool]:
        """``(PRAGMA integrity_check result, FTS5 integrity-check passed)``."""
        return _upkeep.integrity(self.db)
