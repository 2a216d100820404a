"""The keyword index's words for ranking outside FTS5's ``bm25()``: per-word postings and
document lengths for long queries, word counts, and text split into the words the index holds
(docs/search.md#long-queries)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import apsw
from ctx_tree_schema import FTS_TOKENIZE, Filters

from . import _sql
from ._conn import Db
from ._filters import filter_sql
from ._fts import TERMS_WEIGHT
from ._packing import fragment_symbol
from ._terms import _quote, split_identifier

_IDENT_RUN = re.compile(r"\w+")
#: Store.postings keeps a word held by up to this many nodes whatever its share of them.
POSTINGS_MIN_CAP = 1000


@dataclass(frozen=True, slots=True)
class Postings:
    """What :meth:`Store.postings` found: ``tf[word][rowid]`` (weighted counts), ``docs[rowid]``
    ``(node_id, parent_id, kind, length in index tokens, symbol or None)`` and ``total``
    indexed nodes. A packed file chunk's symbol is read from its ``source_uri``
    (:func:`_packing.fragment_symbol`), its metadata left packed."""

    tf: dict[str, dict[int, float]]
    docs: dict[int, tuple[str, str | None, str, int, str | None]]
    total: int


@dataclass
class Vocab:
    """What the index's words need of one connection, made on first use and void when the
    store reopens: whether it has the temp ``fts5vocab`` table :func:`postings` reads, and
    the index's FTS5 tokenizer (:func:`tokenizer`)."""

    table_ready: bool = False
    tokenizer: apsw.FTS5Tokenizer | None = None


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


def tokenizer(db: Db, vocab: Vocab) -> apsw.FTS5Tokenizer:
    """The index's FTS5 tokenizer (``FTS_TOKENIZE``) on ``db``'s connection, made once."""
    if vocab.tokenizer is None:
        name, *args = FTS_TOKENIZE.split()
        vocab.tokenizer = db.con.fts5_tokenizer(name, args)
    return vocab.tokenizer


def postings(
    db: Db,
    vocab: Vocab,
    words: Sequence[str],
    filters: Filters | None = None,
    *,
    max_share: float = 0.25,
) -> Postings:
    """Per-word term frequencies of ``words`` in the keyword index, for ranking a long
    query outside FTS5's ``bm25()`` (docs/search.md#long-queries): each word is stemmed
    as the index stems it (``porter unicode61``; a word of several tokens, such as
    ``_format_float``, counts 1 in each node holding them as a phrase), and its occurrences
    are read from an ``fts5vocab`` instance table on this connection's ``temp`` schema
    (nothing is written to the store).

    ``tf[word][rowid]`` is the word's count in the node's content plus
    ``TERMS_WEIGHT`` times its count in the ``terms`` column. Only nodes passing
    ``filters`` (default: live and pending) are kept; ``docs[rowid]`` gives their
    ``(node_id, parent_id, kind, length, symbol)``: the length in index tokens of both
    columns, the symbol a file chunk's metadata names (None for others).
    A word held by more than ``max_share`` of the indexed nodes (and more than
    :data:`POSTINGS_MIN_CAP`) is left out: its IDF is near zero and its doclist the longest.
    ``total`` is the count of indexed nodes."""
    with db.lock:
        if not vocab.table_ready:
            db.con.execute(_sql.FTS_VOCAB_TEMP)
            vocab.table_ready = True
        tokenize = tokenizer(db, vocab)
        total = int(db.con.execute(_sql.FTS_DOC_COUNT).get or 0)
        cap = max(POSTINGS_MIN_CAP, int(total * max_share))
        tf: dict[str, dict[int, float]] = {}
        for word in dict.fromkeys(words):
            tokens = [
                t[2]
                for t in tokenize(word.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None)
                if len(t) > 2
            ]
            counts: dict[int, float] = {}
            if len(tokens) > 1:
                # an identifier of several tokens (``_format_float``): its phrase, held
                # or not (its parts are words of their own in a long query)
                found: list[Any] = db.con.execute(
                    _sql.FTS_PHRASE_ROWIDS, (_quote(word), cap + 1)
                ).fetchall()
                if len(found) <= cap:
                    counts = {int(r[0]): 1.0 for r in found}
            elif tokens:
                rows: list[Any] = db.con.execute(
                    _sql.FTS_VOCAB_POSTINGS, (tokens[0], 2 * cap + 2)
                ).fetchall()
                if len({r[0] for r in rows}) <= cap:
                    for doc, col, n in rows:
                        weight = TERMS_WEIGHT if col else 1.0
                        counts[int(doc)] = counts.get(int(doc), 0.0) + int(n) * weight
            if counts:
                tf[word] = counts
        rowids = sorted({r for c in tf.values() for r in c})
        where, args = filter_sql(db, filters, "n")
        docs: dict[int, tuple[str, str | None, str, int, str | None]] = {}
        for i in range(0, len(rowids), 20_000):
            batch = json.dumps(rowids[i : i + 20_000])
            for rowid, nid, parent, kind, size, symbol, no_path, uri in db.con.execute(
                _sql.POSTING_DOCS.format(where=where), [batch, *args]
            ):
                if symbol is None and no_path and kind == "file_chunk" and parent:
                    symbol = fragment_symbol(uri)
                docs[rowid] = (nid, parent, kind, _docsize(size), symbol)
    for counts in tf.values():
        for rowid in [r for r in counts if r not in docs]:
            del counts[rowid]
    return Postings({w: c for w, c in tf.items() if c}, docs, total)


def word_counts(db: Db, words: Iterable[str], cap: int = 2000) -> dict[str, int]:
    """``{word: nodes holding it}`` in the keyword index, each count stopped at ``cap``
    (a word at ``cap`` is frequent: its IDF is low). Pruned nodes are not counted; other
    statuses are. Long-query search picks its informative words with it
    (docs/search.md#long-queries)."""
    out: dict[str, int] = {}
    for word in words:
        rows = db.query(_sql.WORD_COUNT, (_quote(word), cap))
        out[word] = int(rows[0][0]) if rows else 0
    return out


def index_words(db: Db, vocab: Vocab, text: str) -> list[str]:
    """The words of ``text`` as the keyword index holds them, in order: each identifier
    whole and split at camelCase/snake_case (``HelpTemplate`` → ``helptemplate``,
    ``help``, ``template``), each word through the index's own FTS5 tokenizer
    (``porter unicode61``: lower-cased, Porter-stemmed; ``overrides`` → ``overrid``).
    For callers that rank short texts the way the index matches them (hybrid search's
    symbol ranking, docs/search.md). Pure: reads nothing from the store."""
    tokenize = tokenizer(db, vocab)
    words: list[str] = []
    for raw in _IDENT_RUN.findall(text):
        parts = split_identifier(raw)  # the tokenizer splits at "_" itself
        pieces = [raw, *parts] if len(parts) > raw.count("_") + 1 else [raw]
        for piece in pieces:
            encoded = piece.encode("utf-8", "surrogatepass")
            # without offsets and colocated tokens, apsw answers the tokens alone
            tokens = tokenize(
                encoded,
                apsw.FTS5_TOKENIZE_DOCUMENT,
                None,
                include_offsets=False,
                include_colocated=False,
            )
            words.extend(cast(list[str], tokens))
    return words
