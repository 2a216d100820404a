"""How a file chunk's row is packed on disk (docs/data-model.md, "Packed file chunks").

The project index stores every file of a project as chunk rows, so their bytes are most of a
store. Two things are packed, both losslessly, and only for ``file_chunk`` rows:

* ``content``: a chunk of :data:`PACK_MIN_CHARS` characters or more is stored as a zlib
  stream (a BLOB) when that is at most :data:`PACK_MAX_RATIO` of its UTF-8 bytes; anything
  else stays TEXT. Every statement reads it through the SQL function ``ctx_text(content)``
  (the text, whichever form the row holds) and ``ctx_len(content)`` (its length in
  characters), which every connection of the store registers; so does the view the FTS5
  index reads (``fts_source``).
* ``metadata`` of a chunk under a file root: ``path`` is left out when it is the chunk's
  ``source_uri`` (``file://<path>#<fragment>``) without its fragment, and ``symbol`` when it
  is that fragment; :func:`unpack_metadata` puts them back when the row is read.

Rows written before (TEXT content, full metadata) are read unchanged.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

#: Chunks shorter than this many characters stay TEXT (zlib's header and the BLOB's cell
#: would eat the gain).
PACK_MIN_CHARS = 96
#: A chunk is packed only when its zlib stream is at most this share of its UTF-8 bytes.
PACK_MAX_RATIO = 0.9
_LEVEL = 6
_FILE_CHUNK = "file_chunk"


def pack_content(kind: str, text: str, encoded: bytes) -> str | bytes:
    """The value stored in ``nodes.content`` for ``text`` (``encoded``: its UTF-8 bytes,
    surrogates passed): a zlib BLOB for a long enough file chunk that shrinks, else ``text``."""
    if kind != _FILE_CHUNK or len(text) < PACK_MIN_CHARS:
        return text
    packed = zlib.compress(encoded, _LEVEL)
    return packed if len(packed) <= len(encoded) * PACK_MAX_RATIO else text


def unpack_content(value: Any) -> Any:
    """The text of a stored ``content`` value (TEXT as is; a packed BLOB inflated)."""
    if isinstance(value, bytes):
        return zlib.decompress(value).decode("utf-8", "surrogatepass")
    return value


def content_length(value: Any) -> Any:
    """Characters of a stored ``content`` value (SQL ``length`` of its text)."""
    if isinstance(value, bytes):
        return len(unpack_content(value))
    return len(value) if isinstance(value, str) else value


def _split_uri(source_uri: str | None) -> tuple[str, str] | None:
    if not source_uri or not source_uri.startswith("file://"):
        return None
    path, hash_, fragment = source_uri[len("file://") :].rpartition("#")
    return (path, fragment) if hash_ else None


def pack_metadata(
    kind: str, parent_id: str | None, source_uri: str | None, meta: Mapping[str, Any]
) -> Mapping[str, Any]:
    """``meta`` as stored: a file chunk's ``path`` and ``symbol`` left out when its
    ``source_uri`` gives them back (see the module docstring); other nodes' as is."""
    if kind != _FILE_CHUNK or parent_id is None or "path" not in meta:
        return meta
    parts = _split_uri(source_uri)
    if parts is None or meta["path"] != parts[0]:
        return meta
    packed = {k: v for k, v in meta.items() if k != "path"}
    if packed.get("symbol") is not None and packed["symbol"] == parts[1]:
        del packed["symbol"]
    return packed


def unpack_metadata(
    kind: str, parent_id: str | None, source_uri: str | None, meta: dict[str, Any]
) -> dict[str, Any]:
    """The metadata of a stored row, with what :func:`pack_metadata` left out put back."""
    if kind != _FILE_CHUNK or parent_id is None or "path" in meta:
        return meta
    parts = _split_uri(source_uri)
    if parts is None:
        return meta
    meta["path"] = parts[0]
    if "symbol" not in meta:
        meta["symbol"] = parts[1]
    return meta
