"""Files as trees of versions: the file status machine (one live tree per file, older versions
superseded, a gone file stale), the versions an incremental index compares, and restoring an
earlier version (docs/data-model.md, "Cache behavior")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctx_tree_schema import EdgeKind, Node

from . import _sql
from ._conn import Db
from ._errors import NodeNotFound
from ._graph import get
from ._nodes import NewNode, add_edges, insert
from ._rows import new_id, now_ms, row_to_node


@dataclass(frozen=True, slots=True)
class FileTree:
    """A stored file version (:meth:`Store.capture_file`): its root, its live chunks in line
    order, whether this call inserted it (False: an identical version was already live), and
    the roots of the older versions it superseded."""

    root: Node
    chunks: tuple[Node, ...]
    created: bool
    superseded: tuple[str, ...] = ()


def capture_file(
    db: Db,
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
    with db.transaction() as con:
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
            keep_id, created = insert(db, [root, *chunks])[0], True
        older = tuple(n.id for n in current if n.id != keep_id)
        for old in older:
            con.execute(_sql.SUPERSEDE_TREE, (ts, old, old))
        edges = [(keep_id, old, EdgeKind.SUPERSEDES) for old in older]
        if referenced_by is not None:
            edges.append((referenced_by, keep_id, EdgeKind.REFERENCES))
        insert(db, (), edges)
        kept = row_to_node(con.execute(_sql.GET_NODE, (keep_id,)).fetchall()[0])
        live = tuple(row_to_node(r) for r in con.execute(_sql.LIVE_CHILDREN, (keep_id,)))
    return FileTree(kept, live, created, older)


def capture_files(
    db: Db,
    trees: Sequence[tuple[NewNode, Sequence[NewNode]]],
    *,
    referenced_by: str | None = None,
) -> list[tuple[str, bool]]:
    """:func:`capture_file` for many files in **one** transaction (the project index,
    docs/index.md): each ``(root, chunks)`` follows the same status machine, and the new
    trees are written with one multi-row insert, so FTS5 flushes one segment per batch,
    not one per file. Returns ``(kept root id, created)`` per tree, in order; no rows are
    read back. Raises like :func:`capture_file`; on an error nothing of the batch is
    written.
    """
    for root, _chunks in trees:
        if not root.id or root.parent_id is not None or not root.source_uri:
            raise ValueError("capture_files: a root needs an id, a source_uri and no parent_id")
    out: list[tuple[str, bool]] = []
    with db.transaction() as con:
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
        insert(db, fresh, edges)
    return out


def file_versions(db: Db, uri_prefix: str) -> dict[str, tuple[int, int, str]]:
    """``{source_uri: (mtime epoch ms, size bytes, sha256)}`` of the newest live file root
    of every file whose URI starts with ``uri_prefix`` (one query, no content read): what
    an incremental index compares a file's ``stat`` with (docs/index.md)."""
    rows = db.query(_sql.LIVE_FILE_VERSIONS, (uri_prefix, uri_prefix + "\uffff"))
    out: dict[str, tuple[int, int, str]] = {}
    for uri, mtime, size, sha in rows:
        # an empty file's size is 0, not unknown (-1): else every run prepared it again
        out.setdefault(uri, (int(mtime), -1 if size is None else int(size), str(sha or "")))
    return out


def live_roots_under(db: Db, uri_prefix: str) -> dict[str, str]:
    """``{source_uri: root id}`` of the live file roots whose URI starts with ``uri_prefix``
    (one range scan of the source index; no row read)."""
    rows = db.query(_sql.LIVE_ROOTS_UNDER, (uri_prefix, uri_prefix + "\uffff"))
    return {str(uri): str(root_id) for uri, root_id in rows}


def file_texts(db: Db, root_ids: Sequence[str]) -> dict[str, str]:
    """``{root id: text}``: the live chunks of each root joined in order, i.e. the file as
    stored (its chunks tile it), for many roots in a few queries; no metadata is read."""
    from ._packing import unpack_content

    parts: dict[str, list[str]] = {}
    for batch, marks in _sql.in_batches(list(root_ids)):
        for parent, content in db.query(_sql.LIVE_CHUNK_CONTENT.format(marks=marks), batch):
            parts.setdefault(parent, []).append(unpack_content(content))
    return {root: "".join(chunks) for root, chunks in parts.items()}


def stale_file(db: Db, source_uri: str) -> int:
    """Mark every live root for ``source_uri`` and its live chunks ``stale`` (the file is
    gone), in one transaction; returns how many nodes changed."""
    with db.transaction() as con:
        ts = now_ms()
        changed = 0
        for row in con.execute(_sql.FILE_ROOTS_BY_SOURCE, (source_uri,)).fetchall():
            con.execute(_sql.STALE_TREE, (ts, row[0], row[0]))
            changed += con.changes()
    return changed


def superseded_roots(db: Db, source_uri: str, limit: int = 20) -> list[Node]:
    """Superseded root nodes (no parent) of ``source_uri``, newest first: earlier stored
    versions of a file, kept until the pruner removes them."""
    return [row_to_node(r) for r in db.query(_sql.SUPERSEDED_ROOTS, (source_uri, limit))]


def restore_version(db: Db, old_root_id: str, replaced_root_id: str | None, *, mtime: int) -> str:
    """Store a live copy of an earlier version of a file (root ``old_root_id`` and its
    children, under new ids, content and search terms as stored) with ``mtime`` (epoch
    ms), and supersede ``replaced_root_id`` and its live or stale children (edge
    new → replaced). For a file whose edit was reverted: its content is searchable again
    with no re-read. One transaction; returns the new root's id.

    Raises :class:`NodeNotFound` for an unknown ``old_root_id``.
    """
    ts = now_ms()
    with db.transaction() as con:
        if get(db, old_root_id) is None:
            raise NodeNotFound(old_root_id)
        made = [new_id()]
        root = made[0]
        con.execute(_sql.COPY_NODE, (root, None, mtime, ts, ts, old_root_id))
        for child in con.execute(_sql.SUPERSEDED_CHILD_IDS, (old_root_id,)).fetchall():
            made.append(new_id())
            con.execute(_sql.COPY_NODE, (made[-1], root, mtime, ts, ts, child[0]))
        if replaced_root_id is not None:
            con.execute(_sql.SUPERSEDE_TREE, (ts, replaced_root_id, replaced_root_id))
            add_edges(db, [(root, replaced_root_id, EdgeKind.SUPERSEDES)])
    db.written(made)
    return root
