"""Huge single lines (minified bundles, one-line JSON): a read shows content, its outline rows
name their own symbols, and its cost follows what it answers, not the line's length."""

from __future__ import annotations

import codecs
import re

import pytest
from ctx_tree_mcp.engines.files.largefile import LARGE_FILE_BYTES
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.read import read

MINIFIED = "".join(
    f"function f{i}(a,b){{var c=a+b*{i};if(c>{i % 97}){{return g{i}(c)}}return c}};"
    for i in range(1000)
)


def test_an_outline_of_a_minified_line_costs_the_line_once_not_once_a_symbol(
    app, root, monkeypatch
) -> None:
    """Every definition of a minified bundle is on line 1: each outline row took that line
    again to find its signature (1,000 symbols, 1,000 copies of a 70 KB line; a 5 MB bundle
    did not finish in minutes). A line holding several definitions, or a very long one,
    shows each one's label instead, and the line is taken once."""
    from ctx_tree_mcp.tools import read_outline

    taken: list[int] = []
    lines_of = read_outline.lines_of

    def counted(view, first, last):
        found = lines_of(view, first, last)
        taken.append(sum(map(len, found)))
        return found

    monkeypatch.setattr(read_outline, "lines_of", counted)
    (root / "app.min.js").write_text(MINIFIED + "\n")
    text = read(app, "app.min.js", budget_tokens=2000)
    assert "## outline (1000 symbols" in text, text[:500]
    assert sum(taken) <= 3 * len(MINIFIED), (len(taken), sum(taken))
    rows = re.findall(r"^1-1 (.*)$", text, re.M)
    assert rows and all(re.fullmatch(r"function f\d+", row) for row in rows), rows[:5]


def test_a_line_longer_than_the_budget_shows_its_head_and_where_to_go_on(app, root) -> None:
    """A one-line JSON file of 100 KB at budget 500: the outline has nothing to list, and no
    chunk fits, so the answer was its manifest alone. It shows the line's head now."""
    line = "[" + ",".join(str(n) for n in range(20_000)) + "]"
    (root / "one.json").write_text(line + "\n")
    text = read(app, "one.json", budget_tokens=500)
    body = text.split("-- ctx-tree")[0]
    assert "1\t[0,1,2,3,4,5" in body, text
    assert "[…line continues]" in body, text
    assert re.search(r"next: ctx_tree_get\(node_id=\"\w+\", offset=\d+\)", text), text
    assert len(text) < 500 * 4, len(text)


# -- files over LARGE_FILE_BYTES: lines from disk -------------------------------------------

BIG_LINES = 30_000  # about 1.6 MB


def _big(root, name: str = "gen.py", ends: str = "\n") -> list[str]:
    lines = [
        f"VALUE_{n} = {{'id': {n}, 'name': 'item{n}', 'tags': ['a', 'b']}}"
        for n in range(BIG_LINES)
    ]
    (root / name).write_bytes(ends.join(lines).encode() + ends.encode())
    assert (root / name).stat().st_size > LARGE_FILE_BYTES
    return lines


def _numbered(text: str) -> dict[int, str]:
    return {int(m[1]): m[2] for m in re.finditer(r"^(\d+)\t(.*)$", text, re.M)}


@pytest.fixture
def no_parse(monkeypatch):
    """Any parse, whole-file read or store of a file fails the test."""
    import ctx_tree_chunk
    from ctx_tree_mcp.engines.files import filecache

    def refuse(*args, **kwargs):
        raise AssertionError("the large file was parsed or read whole")

    monkeypatch.setattr(ctx_tree_chunk, "chunk_bytes", refuse)
    monkeypatch.setattr(filecache, "read_head", refuse)


def test_three_lines_of_a_large_file_cost_three_lines(app, root, no_parse) -> None:
    """Lines 100-102 and 29,000-29,002 of a 1.6 MB file: no parse, no whole-file read, no
    store (a 45 MB file took half a minute and 1.6 GB for three lines)."""
    lines = _big(root)
    for first in (100, 29_000):
        text = read(app, "gen.py", start_line=first, end_line=first + 2)
        assert text == "".join(f"{n}\t{lines[n - 1]}\n" for n in range(first, first + 3)), text
    from ctx_tree_mcp.policy.names import file_uri

    assert app.store.latest_by_source(file_uri(root.resolve() / "gen.py")) is None


def test_a_large_file_numbers_its_lines_as_read_does_at_any_line_end(app, root, no_parse) -> None:
    """CRLF and lone CR end lines as for any read (docs/tools.md, "Line numbers"), and a
    CRLF split across the scan's 1 MiB blocks still ends one line."""
    from ctx_tree_mcp.answers.render import split_lines

    mixed = "".join(
        f"row {n} {'x' * (n % 50)}" + ("\r\n", "\r", "\n")[n % 3] for n in range(40_000)
    )
    (root / "mixed.txt").write_bytes(mixed.encode())
    expected = split_lines(mixed)
    for first in (1, 12_345, 39_990):
        shown = _numbered(read(app, "mixed.txt", start_line=first, end_line=first + 9))
        assert shown == {n: expected[n - 1] for n in range(first, first + 10)}, first
    with pytest.raises(ToolInputError) as err:
        read(app, "mixed.txt", start_line=40_001)
    assert err.value.argument == "start_line" and "40,000 lines" in str(err.value)


def test_a_large_files_head_and_end_are_its_answer_without_a_selector(app, root, no_parse):
    lines = _big(root)
    text = read(app, "gen.py", budget_tokens=400)
    shown = _numbered(text)
    assert shown[1] == lines[0] and shown[BIG_LINES] == lines[-1], text
    assert "no outline" in text and "symbol" in text, text
    gap = min(n for n in range(2, BIG_LINES) if n not in shown)
    assert re.search(
        rf"next: ctx_tree_read\(path=\"gen.py\", start_line={gap}, end_line=\d+\)", text
    )
    assert len(text) < 400 * 6


def test_a_huge_line_read_from_disk_shows_its_head_and_where_to_look(app, root, no_parse):
    (root / "one.json").write_text("[" + ",".join(str(n) for n in range(300_000)) + "]\n")
    text = read(app, "one.json", budget_tokens=500)
    assert text.startswith("1\t[0,1,2,3,4,5,"), text[:100]
    assert "[…line continues]" in text and "ctx_tree_grep(" in text, text
    assert len(text) < 500 * 6


def test_secrets_in_lines_read_from_disk_are_redacted(app, root, no_parse) -> None:
    """A password on a line shown, and a private key whose BEGIN line is before the range:
    redacted as in a stored read."""
    lines = _big(root, "conf.txt")
    lines[500] = "db_password = Sup3rS3cretValue9"
    key = (
        ["-----BEGIN RSA PRIVATE KEY-----"]
        + ["MIIEowIBAAKCAQEAwJ8" + "abcdEFGH" * 7 for _ in range(20)]
        + ["-----END RSA PRIVATE KEY-----"]
    )
    lines[1000:1022] = key
    (root / "conf.txt").write_text("\n".join(lines) + "\n")
    text = read(app, "conf.txt", start_line=499, end_line=503)
    assert "Sup3rS3cretValue9" not in text and "REDACTED" in text, text
    text = read(app, "conf.txt", start_line=1010, end_line=1015)
    assert "abcdEFGH" not in text and sorted(_numbered(text)) == list(range(1010, 1016)), text


def test_a_large_binary_file_is_refused_and_a_large_utf16_one_is_read(app, root) -> None:
    (root / "blob.bin").write_bytes(bytes(range(256)) * 5_000)
    with pytest.raises(ToolInputError, match="binary"):
        read(app, "blob.bin", start_line=1, end_line=3)
    text = "".join(f"ligne {n} : café crème\n" for n in range(30_000))
    (root / "wide.txt").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    shown = _numbered(read(app, "wide.txt", start_line=20_000, end_line=20_001))
    assert shown == {20_000: "ligne 19999 : café crème", 20_001: "ligne 20000 : café crème"}


def test_a_symbol_of_a_large_file_is_still_read_by_parsing_it(app, root) -> None:
    lines = _big(root)
    (root / "gen.py").write_text("\n".join([*lines, "def the_end(x):", "    return x", ""]))
    text = read(app, "gen.py", symbol="the_end")
    assert f"{BIG_LINES + 1}\tdef the_end(x):" in text
