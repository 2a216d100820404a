from __future__ import annotations

import subprocess
import sys

import pytest

from ctx_tree_chunk import (
    BinaryContentError,
    Chunk,
    ChunkedFile,
    ChunkError,
    chunk_bytes,
    chunk_file,
    detect_language,
    supported_languages,
)


def test_empty_input():
    cf = chunk_bytes(b"", path="x.py")
    assert cf == ChunkedFile("python", 0, (), (), False)


def test_binary_and_invalid_utf8_raise():
    with pytest.raises(BinaryContentError):
        chunk_bytes(b"abc\x00def", path="x.py")
    with pytest.raises(BinaryContentError):
        chunk_bytes(b"caf\xe9\n")
    assert issubclass(BinaryContentError, ChunkError)
    assert issubclass(ChunkError, ValueError)


def test_unknown_language_and_bad_budget_raise():
    with pytest.raises(ChunkError):
        chunk_bytes(b"x", language="cobol")
    with pytest.raises(ChunkError):
        chunk_bytes(b"x", max_chunk_tokens=0)


def test_bom_crlf_and_missing_final_newline(check_tiling):
    data = b"\xef\xbb\xbfimport os\r\n\r\ndef f():\r\n    return 1"
    cf = chunk_bytes(data, path="m.py")
    check_tiling(cf, data)
    assert cf.total_lines == 4
    assert cf.chunks[0].start_byte == 3
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in cf.chunks] == [
        (None, "imports", 1, 2),
        ("f", "function", 3, 4),
    ]
    assert cf.chunks[-1].text == "def f():\r\n    return 1"


def test_non_ascii_byte_offsets(check_tiling):
    data = "# héllo wörld\ndef f():\n    return 'ü'\n".encode()
    cf = chunk_bytes(data, path="m.py")
    check_tiling(cf, data)
    f = cf.chunks[-1]
    assert data[f.start_byte : f.end_byte].decode() == f.text


def test_plain_text_fallback_windows(check_tiling):
    paras = [("word " * 20 + "\n") * 3 for _ in range(10)]
    data = "\n".join(paras).encode()
    cf = chunk_bytes(data, max_chunk_tokens=200)
    check_tiling(cf, data)
    assert cf.language is None
    assert len(cf.chunks) > 3
    assert {(c.kind, c.chunking, c.symbol) for c in cf.chunks} == {("window", "fallback", None)}
    # windows end at paragraph breaks (a blank line) when possible
    assert all(c.text.endswith("\n\n") for c in cf.chunks[:-1])


def test_large_function_is_split_with_signature_first(check_tiling):
    body = "".join(f"    x{i} = compute({i}, 'some argument text here')\n" for i in range(120))
    data = f"def big(a, b):\n{body}    return a\n".encode()
    cf = chunk_bytes(data, path="m.py", max_chunk_tokens=300)
    check_tiling(cf, data)
    names = [c.symbol for c in cf.chunks]
    assert len(names) > 3
    assert names == [f"big#{i}" for i in range(1, len(names) + 1)]
    assert cf.chunks[0].text.startswith("def big(a, b):")
    assert all(len(c.text) / 4 <= 300 for c in cf.chunks)
    assert [s.name for s in cf.symbols] == ["big"]


def test_custom_token_counter_changes_split():
    data = b"def f():\n" + b"    pass\n" * 50
    by_lines = chunk_bytes(
        data, path="m.py", max_chunk_tokens=10, count_tokens=lambda t: t.count("\n")
    )
    assert len(by_lines.chunks) == 6
    assert max(c.end_line - c.start_line + 1 for c in by_lines.chunks) <= 10
    assert len(chunk_bytes(data, path="m.py").chunks) == 1


def test_chunk_file_uses_path_for_language(tmp_path, check_tiling):
    p = tmp_path / "tool"
    p.write_bytes(b"#!/usr/bin/env python3\nimport sys\n\ndef main():\n    pass\n")
    cf = chunk_file(p)
    assert cf.language == "python"
    assert [s.name for s in cf.symbols] == ["main"]
    check_tiling(cf, p.read_bytes())


@pytest.mark.parametrize(
    ("path", "data", "lang"),
    [
        ("a/b.py", None, "python"),
        ("x.TSX", None, "tsx"),
        ("x.mts", None, "typescript"),
        ("lib.rs", None, "rust"),
        ("h.hpp", None, "cpp"),
        ("Rakefile", None, "ruby"),
        ("pyproject.toml", None, "toml"),
        ("c.yml", None, "yaml"),
        ("README.md", None, "markdown"),
        ("run", b"#!/bin/bash\necho", "bash"),
        ("run", b"#!/usr/bin/env -S python3.12 -u\n", "python"),
        ("run", b"#!/usr/bin/env node\n", "javascript"),
        (None, b"#!/usr/bin/ruby\n", "ruby"),
        ("notes.txt", b"hello", None),
        (None, None, None),
    ],
)
def test_detect_language(path, data, lang):
    assert detect_language(path, data) == lang


def test_supported_languages():
    langs = supported_languages()
    for name in (
        "python",
        "typescript",
        "tsx",
        "go",
        "rust",
        "bash",
        "markdown",
        "toml",
        "vue",
        "svelte",
        "ipynb",
    ):
        assert name in langs
    assert len(langs) == len(set(langs)) == 22


def test_chunk_is_frozen():
    c = chunk_bytes(b"x = 1\n", path="m.py").chunks[0]
    assert isinstance(c, Chunk)
    with pytest.raises(AttributeError):
        c.kind = "x"  # type: ignore[misc]


def test_syntax_errors_still_chunk(check_tiling):
    data = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass C:\n    def m(self):\n        pass\n"
    cf = chunk_bytes(data, path="m.py")
    assert cf.has_errors
    check_tiling(cf, data)
    assert "ok" in {s.name for s in cf.symbols}
    assert "C.m" in {s.name for s in cf.symbols}


def test_import_is_lazy():
    """Importing the package loads no grammar and no third-party module: only its own
    modules and the standard library's (its import time is a benchmark's business,
    bench/chunk.py, not a timed test's)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import ctx_tree_chunk\n"
        "new = sorted(m.split('.')[0] for m in set(sys.modules) - before)\n"
        "print(' '.join(m for m in new if m not in sys.stdlib_module_names))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) == {"ctx_tree_chunk"}


def test_every_tree_sitter_language_ships_a_query():
    from importlib import resources

    from ctx_tree_chunk._languages import TREE_SITTER_LANGUAGES, query_file

    queries = resources.files("ctx_tree_chunk").joinpath("queries")
    for lang in TREE_SITTER_LANGUAGES:
        assert queries.joinpath(query_file(lang)).is_file(), lang
        cf = chunk_bytes(b"x\n", language=lang)
        assert cf.chunks[0].chunking == "tree-sitter"
