"""Vectors in the store: one float32 embedding per node and model (see docs/search.md).

``nodes_vec`` holds the vector (little-endian float32, keyed by ``nodes.rowid``, with the model
name and the content hash it was computed from); ``nodes_vec_bits`` holds its sign bits. A
nearest-neighbour query scans the bits first (Hamming distance, a dense table of 48 bytes a row
at 384 dimensions) for :data:`CANDIDATES_MIN` (or 4 x limit) candidates, then ranks those by exact
cosine distance with the filters applied. A store with fewer vectors than that is ranked
exactly. Vectors leave with their node (deleted or pruned) through the DDL's triggers.

The sqlite-vec extension (its PyPI wheel ships the loadable library) is loaded into the
connection on the first vector call, so keyword-only use never pays for it; where it cannot
be loaded the vector calls raise :class:`VectorUnavailable` and keyword search is unaffected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctx_tree_schema import Node

from . import _sql
from ._conn import Db
from ._errors import StoreError
from ._rows import content_hash, row_to_node

#: Candidates taken from the sign-bit scan before exact ranking (at least; 4 x limit if more).
CANDIDATES_MIN = 400


class VectorUnavailable(StoreError, RuntimeError):
    """The sqlite-vec extension cannot be loaded here (message says why); keyword search works."""


class DimensionMismatch(StoreError, ValueError):
    """A vector's length differs from the vectors already stored for that model."""


class InvalidVector(StoreError, ValueError):
    """A vector that cannot be compared: empty, all zeros or holding NaN/inf (a static model
    gives all zeros to a text with no known token). Cosine distance is undefined for it."""


def unusable(vector: Sequence[float]) -> str | None:
    """Why ``vector`` cannot be stored or searched with (``"empty"``, ``"not finite"``,
    ``"all zeros"``), or None when it can."""
    import math

    if not vector:
        return "empty"
    if not all(math.isfinite(x) for x in vector):
        return "not finite"
    if not any(vector):
        return "all zeros"
    return None


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A node and its cosine similarity to the query (1.0 = same direction)."""

    node: Node
    similarity: float


def pack(vector: Sequence[float]) -> bytes:
    """A vector as sqlite-vec's float32 blob."""
    from sqlite_vec import serialize_float32

    blob: bytes = serialize_float32(list(vector))
    return blob


def unpack(blob: bytes) -> list[float]:
    """The inverse of :func:`pack`."""
    import struct

    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def sign_bits(vector: Sequence[float]) -> bytes:
    """One bit per dimension (1 when positive), packed 8 a byte, zero-padded: the scan key."""
    out = bytearray((len(vector) + 7) // 8)
    for i, x in enumerate(vector):
        if x > 0:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


@dataclass
class Extension:
    """Whether sqlite-vec is loaded into one connection: ``loaded``, or ``error`` saying why
    it cannot be (then every vector call raises :class:`VectorUnavailable` with it)."""

    loaded: bool = False
    error: str | None = None


def ensure_loaded(db: Db, ext: Extension) -> None:
    """Load sqlite-vec into the connection once (``ext``: its state there). Raises
    :class:`VectorUnavailable`."""
    if ext.error is not None:
        raise VectorUnavailable(ext.error)
    if ext.loaded:
        return
    with db.lock:
        try:
            import sqlite_vec

            db.con.enable_load_extension(True)
            try:
                db.con.load_extension(sqlite_vec.loadable_path())
            finally:
                db.con.enable_load_extension(False)
        except Exception as exc:  # ImportError, apsw.ExtensionLoadingError, OSError
            ext.error = f"sqlite-vec cannot be loaded: {type(exc).__name__}: {exc}"
            raise VectorUnavailable(ext.error) from None
        ext.loaded = True


def models(db: Db) -> dict[str, int]:
    """``{model: vectors stored}``."""
    return dict(db.query(_sql.VEC_MODELS))


def other_model(db: Db, model: str) -> str | None:
    """A model other than ``model`` that the store holds vectors of, or None (an index probe)."""
    rows = db.query(_sql.VEC_OTHER_MODEL, (model,))
    return rows[0][0] if rows else None


def dimensions(db: Db, model: str) -> int | None:
    """Length of the vectors stored for ``model``, or None when there are none."""
    rows = db.query(_sql.VEC_DIMENSIONS, (model,))
    return int(rows[0][0]) if rows else None


def backlog(db: Db, model: str) -> int:
    """About how many live and pending nodes have no vector of ``model`` yet (index-only
    counts: vectors of stale or superseded nodes make it an underestimate)."""
    eligible: int = db.query(_sql.VEC_ELIGIBLE_COUNT)[0][0]
    eligible -= db.query(_sql.VEC_SESSION_COUNT)[0][0]
    # empty nodes (a command that printed nothing) are never embedded: not a backlog
    eligible -= db.query(_sql.VEC_EMPTY_COUNT, (content_hash(""),))[0][0]
    have: int = db.query(_sql.VEC_COUNT_MODEL, (model,))[0][0]
    return max(0, eligible - have)


def missing(db: Db, model: str, limit: int = 32, after_rowid: int = 0) -> list[tuple[int, Node]]:
    """``(rowid, node)`` of live and pending nodes (not sessions, not empty) with no vector of
    ``model`` for their current content, oldest first, rowid greater than ``after_rowid``."""
    rows = db.query(_sql.VEC_MISSING, (after_rowid, model, limit))
    return [(r[0], row_to_node(r[1:])) for r in rows]


def put(
    db: Db,
    ext: Extension,
    model: str,
    items: Sequence[tuple[str, str, Sequence[float]]],
    *,
    at: int,
) -> int:
    """Store ``(node_id, content_hash, vector)`` for ``model`` in one transaction; returns how
    many were written. A node that is gone, pruned or whose content changed since (another
    hash) is skipped. Raises :class:`DimensionMismatch` when a vector's length differs from
    the model's stored vectors, :class:`InvalidVector` for one that is empty, all zeros or not
    finite (nothing is written then), :class:`VectorUnavailable`."""
    for node_id, _digest, vector in items:
        why = unusable(vector)
        if why is not None:
            raise InvalidVector(f"{model}: the vector of node {node_id} is {why}")
    ensure_loaded(db, ext)
    written = 0
    with db.transaction() as con:
        want = dimensions(db, model)
        for node_id, digest, vector in items:
            if want is None:
                want = len(vector)
            if len(vector) != want or not vector:
                raise DimensionMismatch(
                    f"{model}: got a vector of {len(vector)} dimensions, the store holds {want}"
                )
            row = con.execute(_sql.VEC_NODE_STATE, (node_id,)).fetchall()
            if not row or row[0][1] != digest:
                continue
            blob = pack(vector)
            con.execute(_sql.VEC_PUT, (row[0][0], model, digest, blob, at))
            con.execute(_sql.VEC_PUT_BITS, (row[0][0], model, sign_bits(vector)))
            written += 1
    return written


def vector_of(db: Db, node_id: str, model: str) -> list[float] | None:
    """The stored vector of ``node_id`` for ``model``, or None."""
    rows = db.query(_sql.VEC_OF_NODE, (node_id, model))
    return unpack(rows[0][0]) if rows else None


def nearest(
    db: Db,
    ext: Extension,
    model: str,
    query: Sequence[float],
    limit: int,
    where: str,
    args: Sequence[Any],
    *,
    candidates: int = CANDIDATES_MIN,
) -> list[VectorHit]:
    """The ``limit`` nodes whose ``model`` vectors are nearest to ``query`` (cosine), among
    the nodes ``n`` that ``where`` admits (`` AND …`` SQL over alias ``n``, with ``args``: the
    store's filter SQL, as :meth:`Store.search` filters). Raises :class:`VectorUnavailable`
    and :class:`DimensionMismatch` (query length differs from the stored vectors)."""
    ensure_loaded(db, ext)
    want = dimensions(db, model)
    if want is None:
        return []
    if len(query) != want:
        raise DimensionMismatch(
            f"{model}: the query vector has {len(query)} dimensions, the store holds {want}"
        )
    limit = max(1, min(int(limit), 200))
    blob = pack(query)
    take = max(candidates, 4 * limit)
    with db.lock:
        bits = sign_bits(query)
        ids = [r[0] for r in db.con.execute(_sql.VEC_BITS_NEAREST, (model, bits, take))]
        ranked = _rerank(db, model, blob, ids, where, args, limit)
        if len(ranked) < limit and len(ids) == take:
            # The filters removed most candidates: take them from the filtered rows instead.
            sql = _sql.VEC_BITS_NEAREST_FILTERED.format(where=where)
            ids = [r[0] for r in db.con.execute(sql, [model, *args, bits, take])]
            ranked = _rerank(db, model, blob, ids, where, args, limit)
        if not ranked:
            return []
        sql = _sql.VEC_ROWS.format(marks=",".join("?" * len(ranked)))
        rows = {r[0]: r[1:] for r in db.con.execute(sql, [rowid for rowid, _ in ranked])}
    return [
        VectorHit(row_to_node(rows[rowid]), 1.0 - float(d)) for rowid, d in ranked if rowid in rows
    ]


def similarities(
    db: Db, ext: Extension, model: str, query: Sequence[float], node_ids: Sequence[str]
) -> dict[str, float]:
    """Cosine similarity to ``query`` of each given node's ``model`` vector; nodes without one
    are absent. Raises like :func:`nearest`."""
    ensure_loaded(db, ext)
    want = dimensions(db, model)
    ids = list(dict.fromkeys(node_ids))
    if want is None or not ids:
        return {}
    if len(query) != want:
        raise DimensionMismatch(
            f"{model}: the query vector has {len(query)} dimensions, the store holds {want}"
        )
    blob = pack(query)
    out: dict[str, float] = {}
    with db.lock:
        for batch, marks in _sql.in_batches(ids):
            sql = _sql.VEC_DISTANCES.format(marks=marks)
            # a NULL distance (an all-zero vector stored before the door checked) is no score
            out.update(
                (r[0], 1.0 - float(r[1]))
                for r in db.con.execute(sql, [blob, model, *batch])
                if r[1] is not None
            )
    return out


def _rerank(
    db: Db, model: str, blob: bytes, ids: list[int], where: str, args: Sequence[Any], limit: int
) -> list[tuple[int, float]]:
    if not ids:
        return []
    sql = _sql.VEC_RERANK.format(marks=",".join("?" * len(ids)), where=where)
    return [(r[0], r[1]) for r in db.con.execute(sql, [blob, model, *ids, *args, limit])]


def live_after(
    db: Db, model: str, after_rowid: int, limit: int, kinds: Sequence[str] = ()
) -> list[tuple[int, Node]]:
    """``(rowid, node)`` of live nodes holding a ``model`` vector, rowid after ``after_rowid``,
    oldest first; only ``kinds`` when given (the dedupe walker's cursor walk)."""
    where, args = "", []
    if kinds:
        where = f" AND n.kind IN ({','.join('?' * len(kinds))})"
        args = list(kinds)
    sql = _sql.VEC_AFTER.format(where=where)
    rows = db.query(sql, [model, after_rowid, *args, limit])
    return [(r[0], row_to_node(r[1:])) for r in rows]


def drop_model(db: Db, model: str) -> int:
    """Delete every vector of ``model`` (its dimensions changed under the same name); returns
    how many."""
    with db.transaction() as con:
        con.execute(_sql.VEC_DELETE_MODEL_BITS, (model,))
        con.execute(_sql.VEC_DELETE_MODEL, (model,))
        return con.changes()


def drop_other_models(db: Db, model: str) -> int:
    """Delete every vector not of ``model`` (after a re-embed); returns how many."""
    with db.transaction() as con:
        con.execute(_sql.VEC_DELETE_OTHER_BITS, (model,))
        con.execute(_sql.VEC_DELETE_OTHER_MODELS, (model,))
        return con.changes()
