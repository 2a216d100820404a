"""A PEM private key longer than a chunk never shows or persists, through read, grep or
search, and a ``BEGIN`` line does not hide the grep matches that follow it."""

from __future__ import annotations

import asyncio
import base64
import random
import re

from answers import last_output, match_count
from ctx_tree_mcp.tools.get import get
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search


def make_key(size: int = 2300) -> tuple[str, list[str]]:
    body = base64.b64encode(random.Random(3).randbytes(size)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    block = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    return block, lines


def fixture(root) -> list[str]:
    block, lines = make_key()
    head = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(40))
    text = (
        '"""Test fixture."""\n\n'
        + head
        + f'TEST_KEY = """{block}\n"""\n\n'
        + "def after_the_key():\n    return 'still here'\n"
    )
    assert len(block) > 3000
    (root / "src" / "test_keys.py").write_text(text)
    return lines


def dump(app) -> str:
    return app.store.con.execute(
        "SELECT group_concat(ctx_text(content) || ctx_meta(metadata, source_uri) || terms, '') FROM nodes"
    ).get


def test_read_never_shows_or_stores_any_line_of_the_block(app, root):
    body = fixture(root)
    text = read(app, "src/test_keys.py", budget_tokens=20000)
    assert "after_the_key" in text and "[REDACTED:private_key]" in text
    stored = dump(app)
    for line in body:
        assert line not in text and line not in stored
    # line numbers still match the file
    n = next(
        i
        for i, s in enumerate((root / "src" / "test_keys.py").read_text().splitlines(), 1)
        if "after_the_key" in s
    )
    assert re.search(
        rf"^{n}\tdef after_the_key", read(app, "src/test_keys.py", symbol="after_the_key"), re.M
    )
    chunks = app.store.con.execute(
        "SELECT count(*) FROM nodes WHERE source_uri LIKE '%test_keys.py#%'"
    ).get
    assert chunks >= 2  # the block is longer than a chunk
    hits = search(app, "TEST_KEY") + search(app, "RSA PRIVATE KEY")
    assert not any(line in hits for line in body)


def test_grep_on_body_lines_shows_none_and_counts_stay_true(app, root):
    body = fixture(root)
    text = asyncio.run(grep(app, "[A-Za-z0-9+/]{64}", path="src/test_keys.py", budget_tokens=3000))
    assert not any(line in text for line in body)
    assert not any(line in dump(app) for line in body)
    full = [line for line in body if len(line) == 64]
    assert match_count(text) == len(full)
    assert text.count("[REDACTED:private_key]") == len(full)
    assert "capture.maxBytes" not in text


def test_a_begin_line_does_not_blank_the_matches_after_it(app, root):
    fixture(root)
    text = asyncio.run(grep(app, "BEGIN RSA|def after_the_key|def helper_3\\b", budget_tokens=2000))
    assert "def after_the_key" in text and "def helper_3(" in text
    assert match_count(text) == 3
    assert "capture.maxBytes" not in text and "next:" not in text
    node = last_output(app)
    page = get(app, node, budget_tokens=2000)
    assert "def after_the_key" in page and "[REDACTED:private_key]" in page


def test_context_lines_around_a_match_inside_the_block_are_hidden(app, root):
    body = fixture(root)
    needle = body[10][20:36]
    text = asyncio.run(grep(app, needle, fixed_strings=True, context_lines=3))
    assert match_count(text) == 1
    assert not any(line in text for line in body)


def test_one_rule_judges_a_line_by_its_number_or_its_text():
    """``policy.keylines`` is the rule both greps apply: ``ctx_tree_grep`` by read's line
    numbers, the ingester of native Grep output (maybe unnumbered) by text."""
    from ctx_tree_mcp.policy.keylines import key_blocks, might_hold_key

    block, lines = make_key(300)
    text = "a = 1\r\n" + block.replace("\n", "\r") + "\nafter = 2\n"  # lone CRs in the block
    blocks = key_blocks(text)
    last = 1 + len(lines) + 2
    assert blocks.ranges == ((2, last),)
    assert blocks.holds("", 2) and blocks.holds("", last) and not blocks.holds(lines[0], last + 1)
    assert blocks.holds(f"  {lines[1]} ") and not blocks.holds("after = 2")
    assert might_hold_key(lines[2]) and not might_hold_key("after = 2")
    assert key_blocks("no key here\n" + lines[0]) == key_blocks("")
    assert not key_blocks("").holds(lines[0]) and not key_blocks("").holds(lines[0], 1)
