"""Which lines a ctx_tree_bash answer keeps: summaries, errors with context, the tail."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.bash.digest import MAX_LINE_CHARS, render_lines, scan, select_lines
from ctx_tree_mcp.budget import estimate_tokens

NOISE = [f"compiling module_{i:05d} ... ok" for i in range(5000)]


def _shown(lines: list[str], room: int) -> str:
    text, _ = render_lines(lines, select_lines(scan(lines), room).shown)
    return text


@pytest.mark.parametrize(
    ("summary", "where"),
    [
        ("--- FAIL: TestParse (0.00s)", 1200),  # go test
        ("test result: FAILED. 41 passed; 1 failed; 0 ignored", 2500),  # cargo
        ("Tests:       1 failed, 97 passed, 98 total", 3000),  # jest
        (" Test Files  1 failed | 12 passed (13)", 3000),  # vitest
        ("  2 failing", 100),  # mocha
        ("make[2]: *** [Makefile:12: all] Error 2", 4000),  # make
        ("npm error code ELIFECYCLE", 2000),  # npm
        ("===== 1 failed, 299 passed in 0.68s =====", 2500),  # pytest
        ("FAILED tests/test_x.py::test_y - assert 6 == 7", 10),  # pytest short summary
        ("src/app.ts(12,5): error TS2322: Type 'string' is not assignable", 4500),  # tsc
    ],
)
def test_runner_summaries_are_kept_wherever_they_are(summary: str, where: int) -> None:
    lines = [*NOISE[:where], summary, *NOISE[where:]]
    shown = _shown(lines, 600)
    assert f"{where + 1}\t{summary}\n" in shown
    assert estimate_tokens(shown) <= 600


def test_an_error_in_the_middle_comes_with_its_context_and_the_tail() -> None:
    lines = [*NOISE[:2500], "src/io.c:88:5: error: 'fd' undeclared", *NOISE[2500:]]
    shown = _shown(lines, 500)
    for n in range(2499, 2504):  # two lines either side
        assert f"\n{n}\t" in "\n" + shown
    assert f"{len(lines)}\t{lines[-1]}\n" in shown  # the tail
    assert "(lines 1-" in shown  # the head was left out, and says so


def test_everything_is_shown_when_it_fits() -> None:
    lines = ["one", "two", "error: three"]
    found = scan(lines)
    assert select_lines(found, 100).shown == [0, 1, 2]
    text, gaps = render_lines(lines, [0, 1, 2])
    assert text == "1\tone\n2\ttwo\n3\terror: three\n" and gaps == []


def test_omitted_runs_are_marked_and_reported() -> None:
    lines = [f"l{i}" for i in range(10)]
    text, gaps = render_lines(lines, [0, 1, 8, 9])
    assert gaps == [(3, 8)]
    assert "…\t(lines 3-8 omitted)\n" in text


def test_a_very_long_line_is_cut_in_the_answer() -> None:
    lines = ["x" * 50_000, "done"]
    shown = _shown(lines, 300)
    assert "…[+" in shown and estimate_tokens(shown) <= 300
    assert len(max(shown.splitlines(), key=len)) < MAX_LINE_CHARS + 40


def test_runs_of_passing_lines_are_not_spent_on() -> None:
    """pytest -v style: 2,000 PASSED lines, one failure, the summary. The answer is the
    header, the failure with its context, the failure section and the summary, far under
    the room it was given."""
    lines = ["=== test session starts ===", "collected 2001 items", ""]
    lines += [f"t.py::test_{i} PASSED   [ {i // 20}%]" for i in range(1000)]
    lines += ["t.py::test_bad FAILED   [ 50%]"]
    lines += [f"t.py::test_{i} PASSED   [ {i // 20}%]" for i in range(1000, 2000)]
    lines += [
        "",
        "=== FAILURES ===",
        "___ test_bad ___",
        "E       assert 1 == 2",
        "=== 1 failed, 2000 passed in 3.1s ===",
    ]
    shown = _shown(lines, 2000)
    assert "t.py::test_bad FAILED" in shown and "E       assert 1 == 2" in shown
    assert "1 failed, 2000 passed" in shown and "collected 2001 items" in shown
    assert shown.count("PASSED") <= 6  # the failure's context, nothing more
    assert estimate_tokens(shown) < 300
