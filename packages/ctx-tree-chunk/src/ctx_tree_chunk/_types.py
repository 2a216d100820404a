"""Public result types and errors (re-exported from :mod:`ctx_tree_chunk`, whose ``__all__``
lists them)."""

from __future__ import annotations

from dataclasses import dataclass


class ChunkError(ValueError):
    """Base class of every error this package raises on purpose."""


class BinaryContentError(ChunkError):
    """The input is not text: a NUL byte in its first 8 KiB, or invalid UTF-8."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One contiguous run of whole lines of a file.

    Attributes:
        symbol: qualified symbol name (``"Class.method"``); parts of a symbol split for size
            are ``"Class.method#1"``, ``"#2"``...; ``None`` for module-level code, imports and
            fallback windows.
        kind: ``function``, ``method``, ``class``, ``interface``, ``struct``, ``enum``, ``impl``,
            ``trait``, ``type``, ``macro``, ``module`` (module-level code, or a module/namespace
            symbol when ``symbol`` is set), ``imports``, ``section`` (Markdown), ``key``
            (JSON/YAML/TOML) or ``window`` (fallback).
        start_line: first line, 1-based, inclusive.
        end_line: last line, 1-based, inclusive.
        start_byte: offset of the first byte in the input bytes.
        end_byte: offset one past the last byte (exclusive).
            ``data[start_byte:end_byte].decode("utf-8") == text`` always holds.
        text: the decoded lines ``start_line..end_line`` including their line endings.
        chunking: ``"tree-sitter"`` (parsed with a grammar), ``"structure"`` (Markdown
            headings or JSON/YAML/TOML top-level keys, found without a grammar) or
            ``"fallback"`` (blank-line-aware windows of about ``max_chunk_tokens``).
        doc: the doc summary of the symbol (see :class:`Symbol`), on the one chunk of the
            symbol that holds the doc: a whole symbol's chunk, its ``#1`` part, or the part
            holding a Python docstring that long decorators pushed out of ``#1``; ``None``
            on the other parts, on chunks outside a symbol and when the symbol has no doc.
    """

    symbol: str | None
    kind: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    text: str
    chunking: str
    doc: str | None = None


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition of the file's outline (nested definitions included).

    Attributes:
        name: qualified name, e.g. ``"Session.request"``; a Go method is
            ``"Receiver.Method"``; a Rust ``impl`` block is ``"impl Foo"`` or
            ``"impl Display for Foo"`` and the functions inside it are ``"Foo.method"``.
        kind: see :class:`Chunk` (``heading`` for Markdown headings, ``key`` for data files).
        start_line: first line (1-based) including the doc comments, decorators and
            attributes that directly precede the definition (no blank line in between).
        def_line: line of the definition itself (the ``def``/``func``/``fn``/``class`` line).
        end_line: last line (1-based, inclusive).
        parent: qualified name of the enclosing symbol (for a Go method, its receiver type),
            or ``None``.
        doc: doc summary: the first paragraph of the docstring (Python) or of the doc
            comments directly above the definition (other tree-sitter languages), markers
            and tag lines stripped, whitespace collapsed, at most 300 characters (cut at a
            word, ending with "…"); ``None`` when there is none, and for Markdown
            headings, data-file keys and notebook or component sections.
        bases: the base classes (and implemented interfaces) a class's definition names, as
            written (``("Base", "mod.Mixin")``); found only when references were asked for
            (:func:`ctx_tree_chunk.chunk_bytes`), else ``()``.
    """

    name: str
    kind: str
    start_line: int
    def_line: int
    end_line: int
    parent: str | None
    doc: str | None = None
    bases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name in code: a call, or any other mention of it (a value, a type, a
    decorator, a base class), as ``queries/references/<language>.scm`` finds them.

    Attributes:
        name: the identifier used (``get_outdated_files``).
        receiver: what it is looked up on, as written: ``"self.env"`` for
            ``self.env.get_outdated_files``, ``"os.path"`` for ``os.path.join``; ``"*"`` when
            that is no plain dotted name (``f(x).name``, ``a[0].name``); ``None`` for a bare
            name.
        line: 1-based line of the reference.
        call: whether it is called (``f(...)``, ``new F(...)``, a decorator).
    """

    name: str
    receiver: str | None
    line: int
    call: bool = False


@dataclass(frozen=True, slots=True)
class Import:
    """A name an import binds in the file.

    Attributes:
        local: the name bound (``np`` for ``import numpy as np``; ``BuildEnvironment`` for
            ``from sphinx.environment import BuildEnvironment``; ``*`` for a wildcard).
        module: the module as written: ``numpy``, ``.env`` (relative, Python), ``./util``
            (a path, JavaScript), ``github.com/a/b/pkg`` (Go), ``java.util.List``.
        name: the name imported from the module, ``None`` when the module itself is bound,
            ``"*"`` for a wildcard and ``"default"`` for a default import.
        line: 1-based line of the import.
    """

    local: str
    module: str
    name: str | None
    line: int


@dataclass(frozen=True, slots=True)
class ChunkedFile:
    """The result of chunking one file.

    Attributes:
        language: detected or given language name, ``None`` for plain text.
        total_lines: number of lines; a last line without a trailing newline counts.
        chunks: chunks in order; they tile the file (every line in exactly one chunk,
            ``"".join(c.text for c in chunks)`` equals the decoded text, or ``rendered``).
        symbols: the outline in source order.
        has_errors: the grammar reported syntax errors (the partial tree was still used).
        rendered: for a file whose chunks tile a rendering of it rather than its bytes (a
            Jupyter notebook: its cells as text), that rendering; lines, byte offsets and
            ``total_lines`` are then the rendering's. ``None`` otherwise.
        references: the names the code uses, in source order, when they were asked for
            and the language has a references query (``queries/references/``), else ``()``.
        imports: the names its imports bind, in source order (same condition).
    """

    language: str | None
    total_lines: int
    chunks: tuple[Chunk, ...]
    symbols: tuple[Symbol, ...]
    has_errors: bool
    rendered: str | None = None
    references: tuple[Reference, ...] = ()
    imports: tuple[Import, ...] = ()
