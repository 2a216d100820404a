"""Entry points: :func:`chunk_bytes`, :func:`chunk_file`, :func:`supported_languages`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from ._languages import (
    RENDERED_LANGUAGES,
    SFC_LANGUAGES,
    STRUCTURE_LANGUAGES,
    TREE_SITTER_LANGUAGES,
    detect_language,
)
from ._text import Lines, decode, split_range
from ._types import Chunk, ChunkedFile, ChunkError, Symbol

__all__ = ["chunk_bytes", "chunk_file", "grammar_problems", "supported_languages"]

_LONE_CR = re.compile(r"\r(?!\n)")
_LONE_CR_BYTES = re.compile(rb"\r(?!\n)")


def supported_languages() -> tuple[str, ...]:
    """Names accepted as ``language=``: tree-sitter languages, then structure-chunked ones."""
    return (*TREE_SITTER_LANGUAGES, *SFC_LANGUAGES, *RENDERED_LANGUAGES, *STRUCTURE_LANGUAGES)


def grammar_problems() -> dict[str, str]:
    """``{language: error}`` for every tree-sitter language whose bundled grammar or
    definitions query does not load (``{}`` when all do). Loads every grammar: ~100 ms."""
    from ._code import _language

    problems: dict[str, str] = {}
    for language in TREE_SITTER_LANGUAGES:
        try:
            _language(language)
        except Exception as exc:  # a missing wheel, an ABI mismatch, a query error
            problems[language] = f"{type(exc).__name__}: {exc}"
    return problems


def chunk_bytes(
    data: bytes,
    path: str | None = None,
    language: str | None = None,
    *,
    max_chunk_tokens: int = 600,
    count_tokens: Callable[[str], int] | None = None,
    references: bool = False,
) -> ChunkedFile:
    """Split a file's bytes into chunks that tile it, and list its definitions.

    Args:
        data: the file content.  UTF-8; a leading BOM is skipped (the first chunk then
            starts at byte 3).
        path: the file name, used only to detect the language when ``language`` is None.
        language: one of :func:`supported_languages`; ``None`` detects it from ``path``
            and a ``#!`` line.  Undetectable input is chunked as plain text (fallback).
        max_chunk_tokens: size budget per chunk, in tokens as estimated by
            ``count_tokens``; larger definitions are split into ``name#1``, ``name#2``...
            A single line longer than the budget still becomes one chunk.
        count_tokens: token counter; default ``ceil(len(text) / 4)`` (characters / 4).
            A custom counter is applied per line while packing and to whole chunks when
            deciding whether to split.
        references: also find the names the code uses and its imports (same parse; a
            language without ``queries/references/<language>.scm`` has none), and the
            bases of its classes.

    Returns:
        A :class:`ChunkedFile`; empty input gives no chunks and ``total_lines == 0``. A
        Jupyter notebook's chunks tile its rendering as cells (``ChunkedFile.rendered``); a
        Vue or Svelte component's scripts are parsed, its other blocks are sections.

    Raises:
        BinaryContentError: a NUL byte in the first 8 KiB, or invalid UTF-8.
        ChunkError: an unknown ``language`` or a ``max_chunk_tokens`` below 1.
    """
    if language is not None and language not in supported_languages():
        raise ChunkError(f"unsupported language {language!r}; see supported_languages()")
    if max_chunk_tokens < 1:
        raise ChunkError("max_chunk_tokens must be at least 1")
    data = bytes(data)
    text, offset = decode(data)
    if language is None:
        language = detect_language(path, data)
    if not text:
        return ChunkedFile(language, 0, (), (), False)
    if language in RENDERED_LANGUAGES:
        from ._notebook import chunk_notebook, render

        found = render(text)
        if found is None:  # not a notebook after all: chunked as the JSON it is
            language = "json"
        else:
            rendered, blocks, code_language = found
            nb_lines, nb_chunks, nb_symbols, errors = chunk_notebook(
                rendered, blocks, code_language, max_chunk_tokens, count_tokens
            )
            return ChunkedFile(
                language, nb_lines.n, tuple(nb_chunks), tuple(nb_symbols), errors, rendered
            )
    if "\r" in text and _LONE_CR.search(text):
        # Classic Mac (CR-only) or mixed line ends: parsers count rows on LF only, so they
        # get LF in place of each lone CR (same byte length: offsets stay true), and the
        # lines split on it too. Chunk texts keep the file's own line ends.
        data = data[:offset] + _LONE_CR_BYTES.sub(b"\n", data[offset:])
    lines = Lines(text, offset, count_tokens)
    chunks: list[Chunk] | None = None
    symbols: list[Symbol] = []
    has_errors = False
    refs_found: dict[str, Any] | None = {} if references else None
    if language in TREE_SITTER_LANGUAGES:
        from ._code import chunk_code

        try:
            chunks, symbols, has_errors = chunk_code(
                language, data[offset:], offset, lines, max_chunk_tokens, refs_found
            )
        except (ImportError, LookupError, OSError, RecursionError):
            chunks, symbols, has_errors = None, [], False  # grammar unavailable: windows
            refs_found = None
    elif language in SFC_LANGUAGES:
        from ._sfc import chunk_sfc

        try:
            chunks, symbols, has_errors = chunk_sfc(
                language, data[offset:], offset, lines, max_chunk_tokens
            )
        except (ImportError, LookupError, OSError, RecursionError):
            chunks, symbols, has_errors = None, [], False
    elif language in STRUCTURE_LANGUAGES:
        from ._structure import chunk_structure

        result = chunk_structure(language, lines, max_chunk_tokens)
        if result is not None:
            chunks, symbols = result
    if chunks is None:
        chunks = [
            lines.chunk(a, b, None, "window", "fallback")
            for a, b in split_range(lines, 0, lines.n - 1, max_chunk_tokens, _blank_rows(lines))
        ]
    if refs_found:
        return ChunkedFile(
            language,
            lines.n,
            tuple(chunks),
            tuple(symbols),
            has_errors,
            references=tuple(refs_found.get("references", ())),
            imports=tuple(refs_found.get("imports", ())),
        )
    return ChunkedFile(language, lines.n, tuple(chunks), tuple(symbols), has_errors)


def _blank_rows(lines: Lines) -> list[int]:
    return [r for r in range(1, lines.n) if lines.is_blank(r - 1) and not lines.is_blank(r)]


def chunk_file(path: str | os.PathLike[str], **kw: object) -> ChunkedFile:
    """Read ``path`` and return :func:`chunk_bytes` of its content (``path`` names it).

    Raises:
        OSError: the file cannot be read.
        BinaryContentError, ChunkError: as :func:`chunk_bytes`.
    """
    with open(path, "rb") as fh:
        data = fh.read()
    kw.setdefault("path", os.fspath(path))
    return chunk_bytes(data, **kw)  # type: ignore[arg-type]
