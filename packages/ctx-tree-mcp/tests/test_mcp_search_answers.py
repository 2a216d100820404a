"""ctx_tree_search answers: CJK words, no lone-digit fallback, hits with every word then with
some, each best first, a hint when nothing is found, and a reverted file found again."""

from __future__ import annotations

import os
import re

from answers import node_total
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search
from ctx_tree_walkers import mark_stale


def _scores(text: str) -> list[float]:
    return [float(s) for s in re.findall(r" score=([\d.]+)", text)]


def test_cjk_word_is_found_after_a_read(app, root):
    (root / "cjk.md").write_text("# 说明\n\n本工具在后台静默运行，不打扰用户。\n")
    assert "0 hits" in search(app, "静默")
    read(app, "cjk.md")
    text = search(app, "静默")
    assert "1 hit," in text and "cjk.md:1-3" in text


def test_zero_hits_says_only_stored_content_is_searched(app):
    text = search(app, "anything at all")
    assert "0 hits" in text
    assert "only stored content is searched" in text and "ctx_tree_read" in text


def test_no_fallback_to_a_lone_digit_and_hits_grouped_in_score_order(app, root):
    read(app, "src/argparse_copy.py", query="x")
    assert "0 hits" in search(app, "qwertyuiop3")
    text = search(app, "parse known args namespace", limit=14)
    rows = re.findall(r"^\d+\. .*$", text, re.M)
    m = re.search(r"(\d+) with every word, then (\d+) with only some, each best first", text)
    assert m and len(rows) == int(m.group(1)) + int(m.group(2)) == 14, text[-400:]
    every, partial = rows[: int(m.group(1))], rows[int(m.group(1)) :]
    assert "(some words from here)" in partial[0] and text.count("some words") == 1
    for group in (every, partial):
        scores = _scores("\n".join(group))
        assert len(scores) > 3 and scores == sorted(scores, reverse=True)


def test_edited_then_reverted_file_is_found_again_without_a_read(app, root):
    path = root / "notes.md"
    original = "# Notes\n\nThe frobnicator reticulates splines.\n"
    path.write_text(original)
    read(app, "notes.md")
    path.write_text("# Notes\n\nThe widget does something else.\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    read(app, "notes.md")  # the first version is now superseded
    assert "0 hits" in search(app, "frobnicator")
    path.write_text(original)
    mark_stale(app.store, app.config, now_ms=0)  # the staleness walker, no read
    text = search(app, "frobnicator")
    assert "1 hit," in text and "notes.md" in text
    # a read afterwards is served from the store, not re-parsed
    before = node_total(app)
    assert "frobnicator" in read(app, "notes.md") and node_total(app) == before


def test_reverted_file_read_again_reuses_the_stored_version(app, root):
    path = root / "notes.md"
    original = "# Notes\n\nThe frobnicator reticulates splines.\n"
    path.write_text(original)
    read(app, "notes.md")
    path.write_text("# Notes\n\nChanged.\n")
    read(app, "notes.md")
    path.write_text(original)
    assert "frobnicator" in read(app, "notes.md")
    assert "1 hit," in search(app, "frobnicator")


def test_a_huge_grep_pattern_is_a_short_label_in_search_and_recent(app, root) -> None:
    """A 99,000-character pattern names its grep node in 120 characters and its length, so the
    hit's row fits the listing instead of leaving "shown: 0 of 1"."""
    import asyncio

    from ctx_tree_mcp.tools.graph import recent
    from ctx_tree_mcp.tools.grep import grep

    pattern = "abc" + "x" * 99_000
    asyncio.run(grep(app, pattern))
    for answer in (search(app, pattern), recent(app, kind="tool_output", status=["pending"])):
        assert "shown: 0" not in answer and "… (99,005 characters) in . (0 matches)" in answer
        assert len(answer) < 2_000, answer[:300]


def test_every_mode_prints_scores_alike(app, root):
    """No provider: semantic and hybrid fall back to the same BM25 hits as keyword, and print
    the same score text (3 significant digits, whatever the mode)."""
    read(app, "src/argparse_copy.py", query="x")
    rows = {}
    for mode in ("keyword", "semantic", "hybrid"):
        text = search(app, "parse known args namespace", mode=mode, limit=5)
        rows[mode] = re.findall(r" score=(\S+)", text)
    assert rows["keyword"] and rows["keyword"] == rows["semantic"] == rows["hybrid"]
    for score in rows["keyword"]:
        assert len(score.replace("-", "").replace(".", "").lstrip("0")) <= 3, score


def test_score_text_keeps_neighbouring_rrf_ranks_apart():
    from ctx_tree_mcp.answers.render import score_text

    assert [score_text(x) for x in (12.4567, 1.3286, 0.83421, 1 / 61, 1 / 62, 0.0)] == [
        "12.5",
        "1.33",
        "0.834",
        "0.0164",
        "0.0161",
        "0",
    ]
    assert score_text(4321.9) == "4322"
