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
  is that fragment; :func:`unpack_metadata` puts them back when the row is read. Since
  schema 7 the remaining JSON is stored as a BLOB: a version byte (:data:`META_FORMAT`) and
  a raw deflate stream (2 KB window) whose preset dictionary is :data:`META_DICT` and the row's
  own ``source_uri`` (so ``relpath``, a suffix of the path, and the key names cost a few
  bytes). SQL reads it through ``ctx_meta(metadata, source_uri)`` (the stored JSON text,
  either form), which every connection registers.
* ``content_hash`` of a chunk under a file root (schema 7): the sha256's 32 bytes, not its
  64 hex characters; statements select it as hex (``_sql._hash_hex``).

Rows written before (TEXT content, full or JSON-packed metadata) are read unchanged.
"""

from __future__ import annotations

import json
import re
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
#: First byte of a packed metadata BLOB: the format (deflate, :data:`META_DICT`).
META_FORMAT = 1
#: Raw deflate window of packed metadata, log2 bytes (part of format 1).
_META_WBITS = 11
#: The static part of a packed metadata's preset dictionary: the chunk metadata's keys and
#: the chunker's common values (ctx_tree_chunk.Chunk), most frequent last (deflate reaches
#: near matches with shorter codes). Never edit it: a new dictionary needs a new format byte.
META_DICT = (
    b'"kind":"key","kind":"window","kind":"section","kind":"interface","kind":"struct",'
    b'"kind":"type","kind":"enum","kind":"impl","kind":"trait","kind":"macro",'
    b'"chunking":"fallback","chunking":"structure","lang":"markdown","lang":"json",'
    b'"lang":"yaml","lang":"toml","lang":"javascript","lang":"typescript","lang":"tsx",'
    b'"lang":"go","lang":"rust","lang":"java","lang":"c","lang":"cpp","lang":"ruby",'
    b'"kind":"imports","kind":"class","kind":"method","kind":"function","kind":"module",'
    b'"doc":"Return the ,"symbol":null,"lang":"python",'
    b'{"relpath":"","lang":"","lines":[1,],"chunk_index":0,"symbol":null,"kind":"",'
    b'"chunking":"tree-sitter"}'
)


#: ``json.dumps(value, separators=(",", ":"))`` without making an encoder each call.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))


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


#: The fragment a chunk without a symbol has in its ``source_uri``: its lines (``#L3-40``).
_LINES_FRAGMENT = re.compile(r"L\d+-\d+")


def fragment_symbol(source_uri: str | None) -> str | None:
    """The symbol of a file chunk whose metadata left it out (:func:`pack_metadata`): its
    ``source_uri``'s fragment, or None when that names the chunk's lines (``#L3-40``: the
    chunker gave it no symbol; no language names a definition so). Reads no metadata, so a
    search over many chunks inflates none."""
    parts = _split_uri(source_uri)
    if parts is None or not parts[1] or _LINES_FRAGMENT.fullmatch(parts[1]):
        return None
    return parts[1]


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


def hash_value(kind: str, parent_id: str | None, digest: Any) -> str | bytes:
    """The value stored in ``nodes.content_hash`` for a ``hashlib.sha256`` object: its 32
    bytes for a chunk under a file root (schema 7; SQL reads it back as hex, ``_sql``), its
    hex text for any other node."""
    if kind == _FILE_CHUNK and parent_id is not None:
        return bytes(digest.digest())
    return str(digest.hexdigest())


def metadata_value(
    kind: str, parent_id: str | None, source_uri: str | None, meta: Mapping[str, Any]
) -> str | bytes:
    """The value stored in ``nodes.metadata`` for a node's ``meta``: a packed BLOB (see the
    module docstring) for a file chunk under a root with a ``file://`` URI, else JSON text."""
    packed = pack_metadata(kind, parent_id, source_uri, meta)
    text = _COMPACT_JSON.encode(packed) if packed else "{}"
    if packed is meta or source_uri is None:
        return text
    # a 2 KB window and small hash tables: 6 us a row (a default deflate state costs ~100 us
    # to set up for ~150 bytes of JSON), same size
    deflate = zlib.compressobj(
        9, zlib.DEFLATED, -_META_WBITS, 2, zdict=META_DICT + source_uri.encode()
    )
    return bytes((META_FORMAT,)) + deflate.compress(text.encode()) + deflate.flush()


def metadata_json(value: Any, source_uri: str | None) -> str:
    """The JSON text of a stored ``metadata`` value (TEXT as is; a packed BLOB inflated,
    still without what :func:`pack_metadata` left out). Raises ``ValueError`` for a BLOB of
    an unknown format."""
    if not isinstance(value, bytes):
        return value if value else "{}"
    if not value or value[0] != META_FORMAT:
        raise ValueError(f"nodes.metadata: unknown packed format {value[:1]!r}")
    inflate = zlib.decompressobj(-_META_WBITS, zdict=META_DICT + (source_uri or "").encode())
    return (inflate.decompress(value[1:]) + inflate.flush()).decode()


def read_metadata(
    kind: str, parent_id: str | None, source_uri: str | None, value: Any
) -> dict[str, Any]:
    """A node's metadata from its stored value (either form), whole again."""
    meta = json.loads(metadata_json(value, source_uri))
    return unpack_metadata(kind, parent_id, source_uri, meta)


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
