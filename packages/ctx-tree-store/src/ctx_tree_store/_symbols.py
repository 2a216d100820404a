"""Live file chunks by the name of their symbol, or by a name their code mentions: the lookups
the reference graph resolves with (docs/search.md, "References between symbols").

Both go through the FTS index, so they cost about the same on a store of any size: a chunk's
``terms`` hold its symbol's words, its ``content`` the words of its code. The index finds
the candidates (every word of the name, in either column); each is then checked exactly:
:func:`defining` keeps the chunks whose symbol's last part is the name, and :func:`mentioning`
returns the candidates for the caller to check against their references.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _sql
from ._packing import read_metadata
from ._terms import split_identifier

if TYPE_CHECKING:
    from ._conn import Db

#: Candidates one lookup reads at most (the newest first): a name every module uses
#: (``get``, ``run``) is checked in its newest mentions only.
LOOKUP_MAX = 2000
_PART = re.compile(r"#\d+\Z")


@dataclass(frozen=True, slots=True)
class SymbolChunk:
    """A live file chunk: its id, its file root's id, its symbol (``Class.method``, the part
    number of a split symbol dropped; ``""`` for a chunk outside a symbol) and its metadata."""

    id: str
    root_id: str
    symbol: str
    metadata: dict[str, Any]


def symbol_of(source_uri: str | None) -> str:
    """The symbol a chunk's URI names (``file:///p.py#A.f#2`` → ``A.f``); ``""`` for a line
    range (``#L10-40``) or no fragment."""
    if not source_uri or "#" not in source_uri:
        return ""
    fragment = _PART.sub("", source_uri.split("#", 1)[1])
    if fragment.startswith("L") and fragment[1:].replace("-", "").isdigit():
        return ""
    return fragment


def _words(name: str) -> list[str]:
    return [w.lower() for w in dict.fromkeys(split_identifier(name)) if w]


def _match(column: str, name: str) -> str | None:
    """FTS5 expression: every word of ``name`` in ``column`` (a camelCase name also whole)."""
    words = _words(name)
    if not words:
        return None
    parts = " AND ".join('"' + w.replace('"', '""') + '"' for w in words)
    if len(words) > 1 and "_" not in name.strip("_"):
        whole = '"' + name.lower().replace('"', '""') + '"'
        return f"{column} : ({whole} OR ({parts}))"
    return f"{column} : ({parts})"


def _rows(db: Db, sql: str, args: tuple[Any, ...]) -> list[SymbolChunk]:
    out = []
    for node_id, parent_id, uri, meta in db.query(sql, args):
        out.append(
            SymbolChunk(
                str(node_id),
                str(parent_id),
                symbol_of(uri),
                read_metadata("file_chunk", parent_id, uri, meta),
            )
        )
    return out


def defining(db: Db, name: str, limit: int = LOOKUP_MAX) -> list[SymbolChunk]:
    """Live file chunks whose symbol's last part is ``name`` (``get_outdated_files`` finds
    ``BuildEnvironment.get_outdated_files``), newest first, at most ``limit`` candidates read."""
    expression = _match("terms", name)
    if expression is None:
        return []
    found = _rows(db, _sql.SYMBOL_CHUNKS, (expression, limit))
    return [c for c in found if c.symbol.rsplit(".", 1)[-1] == name]


def mentioning(db: Db, name: str, limit: int = LOOKUP_MAX) -> list[SymbolChunk]:
    """Live file chunks whose code holds every word of ``name`` (candidates: the caller checks
    their references), newest first, at most ``limit``."""
    expression = _match("content", name)
    if expression is None:
        return []
    return _rows(db, _sql.SYMBOL_CHUNKS, (expression, limit))


def chunk_named(db: Db, root_id: str, uri: str, symbol: str) -> SymbolChunk | None:
    """The live chunk of file root ``root_id`` (whose URI is ``uri``) that starts ``symbol``:
    the symbol's whole chunk or its first part; None when no chunk starts it (a definition
    nested in another's chunk)."""
    rows = _rows(db, _sql.ROOT_CHUNK_BY_URI, (root_id, f"{uri}#{symbol}", f"{uri}#{symbol}#1"))
    return rows[0] if rows else None


def chunks_of(db: Db, root_id: str) -> list[SymbolChunk]:
    """The live chunks of the file root ``root_id``, without their content (any order)."""
    return _rows(db, _sql.ROOT_CHUNKS, (root_id,))
