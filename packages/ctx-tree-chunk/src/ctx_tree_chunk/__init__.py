"""Chunk source files into symbol-sized pieces with line ranges, and outline them.

>>> from ctx_tree_chunk import chunk_bytes
>>> cf = chunk_bytes(b"import os\\n\\ndef f():\\n    return 1\\n", path="m.py")
>>> [(c.symbol, c.kind, c.start_line, c.end_line) for c in cf.chunks]
[(None, 'imports', 1, 2), ('f', 'function', 3, 4)]

Lines are 1-based and inclusive; byte offsets index the input bytes, end exclusive;
tokens are estimated as characters / 4 unless a counter is given.  Grammars come bundled
with ``tree-sitter-language-pack`` 0.13 and are loaded lazily, so importing this package
does not import tree-sitter and nothing touches the network.
"""

from ._api import chunk_bytes, chunk_file, grammar_problems, supported_languages
from ._languages import detect_language
from ._types import BinaryContentError, Chunk, ChunkedFile, ChunkError, Import, Reference, Symbol

__all__ = [
    "BinaryContentError",
    "Chunk",
    "ChunkError",
    "ChunkedFile",
    "Import",
    "Reference",
    "Symbol",
    "__version__",
    "chunk_bytes",
    "chunk_file",
    "detect_language",
    "grammar_problems",
    "supported_languages",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-chunk")
