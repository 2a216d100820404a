"""Grep numbers lines as read does: a line ends at LF, CRLF or a lone CR (classic Mac files,
mixed line ends), so a grep hit's line number is the line ``ctx_tree_read`` shows there."""

from __future__ import annotations

import asyncio
import re

import pytest
from answers import match_count
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read

MAC = [f"line {n} alpha" for n in range(1, 41)]
MAC[19] = "target needle here"
MAC[33] = "second needle"
# CRLF, then CR-only, then LF: line 10 is "needle mixed", line 16 "last needle"
MIXED = [f"m{n}" for n in range(1, 21)]
MIXED[9] = "needle mixed"
MIXED[15] = "last needle"


def _write(root) -> None:
    (root / "mac.txt").write_bytes("\r".join(MAC).encode() + b"\r")
    mixed = "\r\n".join(MIXED[:5]) + "\r\n" + "\r".join(MIXED[5:12]) + "\r"
    (root / "mixed.txt").write_bytes((mixed + "\n".join(MIXED[12:]) + "\n").encode())


def _hits(text: str, path: str) -> dict[int, str]:
    """``{line: text}`` of ``path``'s lines in a grep answer (a search of that one file:
    no path shown; else the grouped shape)."""
    found: dict[int, str] = {}
    block = text.split(path, 1)[1] if path in text else text
    for m in re.finditer(r"^:?(\d+)[:-](.*)$", block, re.M):
        found[int(m[1])] = m[2]
    return found


def _read_line(app, path: str, n: int) -> str:
    shown = read(app, path, start_line=n, end_line=n)
    m = re.search(rf"^{n}\t(.*)$", shown, re.M)
    assert m, shown
    return m[1]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("mac.txt", {20: "target needle here", 34: "second needle"}),  # CR only
        ("mixed.txt", {10: "needle mixed", 16: "last needle"}),  # CRLF, CR, LF
    ],
)
def test_hits_are_the_lines_read_shows_at_those_numbers(app, root, path, expected):
    _write(root)
    text = asyncio.run(grep(app, "needle", path=path))
    hits = _hits(text, path)
    assert hits == expected
    for n, line in hits.items():
        assert _read_line(app, path, n) == line
    assert match_count(text) == 2


def test_context_lines_are_the_neighbouring_read_lines(app, root):
    _write(root)
    text = asyncio.run(grep(app, "target", path="mac.txt", context_lines=1))
    assert _hits(text, "mac.txt") == {
        19: "line 19 alpha",
        20: "target needle here",
        21: "line 21 alpha",
    }
    assert re.search(r"^20:target needle here$", text, re.M)
    assert re.search(r"^19-line 19 alpha$", text, re.M)


def test_backtracking_engine_numbers_the_same(app, root):
    _write(root)
    text = asyncio.run(grep(app, r"(?<=target )needle", path="mac.txt"))
    assert _hits(text, "mac.txt") == {20: "target needle here"}


def test_key_lines_stay_hidden_when_lines_are_renumbered(app, root):
    body = [f"{'QUJD' * 16}{n:02d}" for n in range(6)]
    block = ["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    (root / "keys.txt").write_bytes("\r".join(["a", "b", *block, "after"]).encode())
    text = asyncio.run(grep(app, "QUJD|after", path="keys.txt", budget_tokens=3000))
    assert match_count(text) == 7
    assert not any(line in text for line in body)
    assert _hits(text, "keys.txt") == {
        **{n: "[REDACTED:private_key]" for n in range(4, 10)},
        11: "after",
    }


def test_a_match_past_the_part_read_keeps_ripgrep_s_number(app, root, monkeypatch):
    """Only the first ``keylines.SCAN_BYTES`` of a file are read to renumber it: a match past
    them cannot be placed, so the file keeps ripgrep's numbers rather than losing that match."""
    from ctx_tree_mcp.policy import keylines

    monkeypatch.setattr(keylines, "SCAN_BYTES", 200)
    head = "\r".join(f"line {n} alpha" for n in range(1, 21)) + "\r"  # 260 bytes, CR only
    (root / "big.txt").write_bytes((head + "\n" + "x\n" * 5 + "needle far\n").encode())
    text = asyncio.run(grep(app, "line 1 alpha|needle", path="big.txt", budget_tokens=3000))
    assert match_count(text) == 2
    assert _hits(text, "big.txt")[7] == "needle far"


def test_numbering_that_timed_out_is_said_not_passed_off(app, root, monkeypatch) -> None:
    """Renumbering a lone-CR file as read does can time out (a pattern slow for the regex
    module): the lines keep ripgrep's LF-only numbers, and the answer says so."""
    from ctx_tree_mcp.engines.grep import lineends

    def too_slow(*args, **kwargs):
        raise TimeoutError

    _write(root)
    monkeypatch.setattr(lineends, "renumber", too_slow)
    text = asyncio.run(grep(app, "needle", path="mac.txt"))
    assert "mac.txt count LF line ends only" in text and "timed out" in text, text
