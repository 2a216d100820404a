"""Files on disk are read whole past ``capture.maxBytes`` (it caps captured tool output), up to
``capture.maxFileBytes``; text in other encodings than UTF-8 is read as text."""

from __future__ import annotations

import ast
import asyncio
import codecs

import pytest
from ctx_tree_mcp.engines.files.textcodec import Binary, to_utf8
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read


def _big_module(classes: int = 41, methods: int = 8) -> str:
    """About 114 KB and 3,000+ lines of Python: classes of methods with bodies."""
    out = ['"""A generated module."""', ""]
    for c in range(classes):
        out += [f"class Widget{c}:", f'    """Widget number {c}."""', ""]
        for m in range(methods):
            out += [f"    def method_{m}(self, value):"]
            out += [f"        total_{i} = value * {i} + {c} + {m}  # step {i}" for i in range(6)]
            out += ["        return total_0", ""]
    return "\n".join(out) + "\n"


def test_a_file_past_max_bytes_is_read_whole(app, root):
    src = _big_module()
    assert len(src.encode()) > 105_000 and src.count("\n") > 3000
    (root / "big.py").write_text(src)
    total = src.count("\n")
    gold = {
        n.name: (n.lineno, n.end_lineno) for n in ast.parse(src).body if isinstance(n, ast.ClassDef)
    }
    outline = read(app, "big.py", budget_tokens=20_000)
    for name, (start, end) in gold.items():
        assert f"{start}-{end} class {name}" in outline, name
    assert "stored truncated" not in outline and "past the end" not in outline
    lines = src.splitlines()
    text = read(app, "big.py", start_line=3000, end_line=3010)
    for n in range(3000, 3011):
        assert f"{n}\t{lines[n - 1]}\n" in text
    assert read(app, "big.py", symbol="Widget40.method_7").count("return total_0") == 1
    root_node = app.store.latest_by_source("file://" + str((root / "big.py").resolve()))
    assert not root_node.truncated and root_node.metadata["total_lines"] == total


def test_a_grep_hit_deep_in_a_large_bundle_can_be_read(app, root):
    body = "".join(f"var a{i}=function(){{return {i}}};\n" for i in range(20_000))
    body += "var needle_here=function(){return 42};\n"
    (root / "bundle.js").write_text(body)
    assert len(body) > 600_000
    hit = asyncio.run(grep(app, "needle_here", budget_tokens=500))
    assert "bundle.js:20001:" in hit
    text = read(app, "bundle.js", start_line=20001, end_line=20001)
    assert "20001\tvar needle_here" in text


def test_past_max_file_bytes_the_store_says_what_it_holds(root, tmp_path):
    from ctx_tree_mcp.app import App

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.json").write_text('{"capture": {"maxFileBytes": 50000}}')
    (root / "huge.txt").write_text("".join(f"line {i}\n" for i in range(20_000)))
    size = (root / "huge.txt").stat().st_size
    app = App(root, home=home)
    try:
        text = read(app, "huge.txt", start_line=1, end_line=2)
        assert f"stored of {size:,} bytes" in text and "capture.maxFileBytes" in text
        node = app.store.latest_by_source("file://" + str((root / "huge.txt").resolve()))
        assert node.truncated and node.original_bytes == size == node.metadata["size"]
        assert node.metadata["truncated_at_bytes"] <= 50_000
    finally:
        app.close()


LATIN1 = "Café crème, naïve façade: résumé déjà vu.\nZweite Zeile: Größe\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (LATIN1.encode("latin-1"), None),
        (codecs.BOM_UTF8 + LATIN1.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF16_LE + LATIN1.encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + LATIN1.encode("utf-16-be"), "utf-16-be"),
        (LATIN1.encode("utf-16-le"), "utf-16-le"),
    ],
)
def test_encoded_text_files_are_read_and_stored_as_text(app, root, data, encoding):
    (root / "notes.txt").write_bytes(data)
    text = read(app, "notes.txt", start_line=1, end_line=2)
    assert "1\tCafé crème, naïve façade: résumé déjà vu." in text
    assert "2\tZweite Zeile: Größe" in text
    node = app.store.latest_by_source("file://" + str((root / "notes.txt").resolve()))
    if encoding is not None:
        assert node.metadata["encoding"] == encoding
    else:  # detected: Latin-1 or a superset of it
        assert node.metadata["encoding"] in ("latin-1", "iso8859_1", "cp1252", "iso8859_15")
    assert node.metadata["size"] == len(data)
    from ctx_tree_mcp.tools.search import search

    assert "notes.txt" in search(app, "façade")


def test_binary_files_are_still_refused(app, root):
    (root / "blob.bin").write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ToolInputError, match="binary"):
        read(app, "blob.bin")
    with pytest.raises(Binary):
        to_utf8(b"\x00\x01\x02\x03\xff\xfe\x00\x00" * 100)
    assert to_utf8(b"plain ascii\n") == (b"plain ascii\n", None)
