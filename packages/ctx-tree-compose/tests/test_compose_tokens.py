"""estimate_tokens and fit_lines."""

from __future__ import annotations

import pytest
from ctx_tree_compose import estimate_tokens, fit_lines
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100), ("x" * 401, 101)],
)
def test_estimate_is_ceil_of_chars_over_four(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_estimate_counts_characters_not_bytes() -> None:
    text = "é漢🙂x"  # 4 code points, 10 UTF-8 bytes
    assert len(text.encode()) == 10
    assert estimate_tokens(text) == 1


def test_estimate_rejects_bytes() -> None:
    with pytest.raises(TypeError, match="str"):
        estimate_tokens(b"abcd")  # type: ignore[arg-type]


def test_fit_lines_returns_text_unchanged_when_it_fits() -> None:
    text = "line one\nline two\n"
    assert fit_lines(text, estimate_tokens(text)) == (text, False)


def test_fit_lines_keeps_whole_lines() -> None:
    text = "aaaa\nbbbb\ncccc\n"  # 15 chars, lines of 5
    # budget 3 tokens = 12 chars: "aaaa\nbbbb\n" (10 chars) fits, the third line does not
    assert fit_lines(text, 3) == ("aaaa\nbbbb\n", True)


def test_fit_lines_cuts_first_line_by_characters_when_no_line_fits() -> None:
    text = "x" * 100 + "\nshort\n"
    prefix, truncated = fit_lines(text, 5)
    assert (prefix, truncated) == ("x" * 20, True)
    assert estimate_tokens(prefix) == 5


def test_fit_lines_zero_budget() -> None:
    assert fit_lines("abc", 0) == ("", True)
    assert fit_lines("", 0) == ("", False)


def test_fit_lines_rejects_negative_budget() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        fit_lines("abc", -1)


@given(st.text(alphabet="ab \n", max_size=300), st.integers(0, 80))
def test_fit_lines_is_a_prefix_never_over_budget(text: str, budget: int) -> None:
    prefix, truncated = fit_lines(text, budget)
    assert text.startswith(prefix)
    assert estimate_tokens(prefix) <= budget
    assert truncated == (prefix != text)
    if truncated:
        rest = text[len(prefix) :]
        if "\n" in text[: budget * 4]:
            # some whole line fits: the cut is on a line boundary and is the longest one
            assert prefix.endswith("\n")
            next_line_end = rest.find("\n")
            longer = prefix + (rest if next_line_end < 0 else rest[: next_line_end + 1])
            assert estimate_tokens(longer) > budget
        else:
            assert len(prefix) == budget * 4
