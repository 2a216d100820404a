"""estimate_tokens and fit_lines: the estimate holds against a real BPE in every script."""

from __future__ import annotations

import pytest
from ctx_tree_compose import estimate_tokens, fit_lines
from hypothesis import given
from hypothesis import strategies as st
from tokens_scripts import SCRIPTS

bpe = pytest.importorskip("bpe_openai").get_encoding("cl100k_base")


def real(text: str) -> int:
    return len(bpe.encode(text))


def test_empty_costs_nothing_and_any_text_at_least_one() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == estimate_tokens(" ") == 1 <= estimate_tokens("漢")


def test_estimate_rejects_bytes() -> None:
    with pytest.raises(TypeError, match="str"):
        estimate_tokens(b"abcd")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_estimate_holds_for_every_script(name: str) -> None:
    """At least the real count less 10% (a 300-token answer never costs over 330), and not
    wasteful: at most twice it."""
    text = SCRIPTS[name]
    for sample in (text, text * 8, "\n".join([text] * 5)):
        est, bpe_tokens = estimate_tokens(sample), real(sample)
        assert est >= bpe_tokens / 1.1, (name, est, bpe_tokens)
        assert est <= 2 * bpe_tokens + 2, (name, est, bpe_tokens)


def test_chars_over_four_undercounted_the_wide_scripts() -> None:
    """The old estimate, ceil(chars / 4), is what let a 300-token budget cost ~730 tokens."""
    for name in ("chinese", "japanese", "korean", "emoji", "hindi"):
        text = SCRIPTS[name] * 4
        assert -(-len(text) // 4) < real(text) / 2 <= estimate_tokens(text)


def test_the_estimate_holds_on_windows_of_real_sources() -> None:
    """1,200-character windows of this package's own sources, as budgets cut them."""
    from pathlib import Path

    src = Path(__file__).parents[1] / "src" / "ctx_tree_compose"
    text = "".join(p.read_text() for p in sorted(src.glob("*.py")))
    windows = [text[i : i + 1200] for i in range(0, len(text), 1200)]
    ratios = [estimate_tokens(w) / real(w) for w in windows if w.strip()]
    assert min(ratios) >= 1 / 1.1 and sorted(ratios)[len(ratios) // 2] <= 1.5


def test_fit_lines_returns_text_unchanged_when_it_fits() -> None:
    text = "line one\nline two\n"
    assert fit_lines(text, estimate_tokens(text)) == (text, False)


def test_fit_lines_keeps_whole_lines() -> None:
    lines = [f"line number {i} of the text\n" for i in range(10)]
    text = "".join(lines)
    budget = estimate_tokens("".join(lines[:4]))
    prefix, cut = fit_lines(text, budget)
    assert cut and prefix == "".join(lines[:4])


def test_fit_lines_cuts_the_first_line_when_no_line_fits() -> None:
    text = "x" * 400 + "\nshort\n"
    prefix, truncated = fit_lines(text, 5)
    assert truncated and text.startswith(prefix) and prefix
    assert estimate_tokens(prefix) <= 5 < estimate_tokens(text[: len(prefix) + 1])


def test_fit_lines_zero_budget() -> None:
    assert fit_lines("abc", 0) == ("", True)
    assert fit_lines("", 0) == ("", False)


def test_fit_lines_rejects_negative_budget() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        fit_lines("abc", -1)


@given(st.text(max_size=300), st.text(max_size=50))
def test_a_longer_text_never_costs_less(text: str, more: str) -> None:
    assert estimate_tokens(text + more) >= estimate_tokens(text)


@given(st.text(alphabet="ab漢🙂 \n", max_size=300), st.integers(0, 80))
def test_fit_lines_is_a_prefix_never_over_budget(text: str, budget: int) -> None:
    prefix, truncated = fit_lines(text, budget)
    assert text.startswith(prefix)
    assert estimate_tokens(prefix) <= budget
    assert truncated == (prefix != text)
    if truncated and prefix.endswith("\n"):
        # the longest whole-line prefix: the next line does not fit
        rest = text[len(prefix) :]
        end = rest.find("\n")
        longer = prefix + (rest if end < 0 else rest[: end + 1])
        assert estimate_tokens(longer) > budget


def _pytest_output(failed: int = 2, passed: int = 150) -> str:
    dots = "." * 50
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.11.4, pytest-8.3.2, pluggy-1.5.0",
             "rootdir: /repo", "collected 152 items", ""]  # fmt: skip
    lines += [f"tests/test_mod{i}.py {dots} [{(i + 1) * 33:3d}%]" for i in range(3)]
    lines += ["", "=================================== FAILURES ===================================",
              "_______________________________ test_parse_port ________________________________",
              "", "    def test_parse_port():", '        port = int("70000")',
              ">       assert 0 <= port <= 65535, f\"Port out of range 0-65535: {port}\"",
              "E       AssertionError: Port out of range 0-65535: 70000",
              "E       assert 70000 <= 65535", "", "tests/test_mod1.py:12: AssertionError",
              "=========================== short test summary info ============================",
              "FAILED tests/test_mod1.py::test_parse_port - AssertionError: Port out of range",
              f"======================== {failed} failed, {passed} passed in 1.23s ========================="]  # fmt: skip
    return "\n".join(lines) + "\n"


def test_a_rule_line_costs_a_few_tokens_not_fifty() -> None:
    """An 80-character ``====`` line is one cl100k token; the estimate used to be 52."""
    assert real("=" * 80) == 1 and estimate_tokens("=" * 80) <= 4
    assert estimate_tokens("." * 80) <= 4


def test_test_runner_output_within_15_percent() -> None:
    """pytest output used to be estimated at about 2.2x its real count."""
    text = _pytest_output()
    assert 0.95 <= estimate_tokens(text) / real(text) <= 1.15, (estimate_tokens(text), real(text))


def test_windows_of_real_sources_agree_within_15_percent() -> None:
    from pathlib import Path

    src = Path(__file__).parents[1] / "src" / "ctx_tree_compose"
    text = "".join(p.read_text() for p in sorted(src.glob("*.py")))
    ratios = sorted(
        estimate_tokens(w) / real(w)
        for w in (text[i : i + 1200] for i in range(0, len(text), 1200))
        if w.strip()
    )
    assert 0.95 <= ratios[len(ratios) // 2] <= 1.15
    assert ratios[len(ratios) // 20] >= 0.9


@pytest.mark.parametrize(
    "text", ["\n" * 1000, "=" * 1000, "." * 1000, "ABCDEFGH" * 100, "0" * 999, "x\n" * 500]
)
def test_degenerate_texts_are_not_badly_undercounted(text: str) -> None:
    """Runs the merges discount still cost something: never under 0.75x the real count."""
    assert estimate_tokens(text) >= 0.75 * real(text)
