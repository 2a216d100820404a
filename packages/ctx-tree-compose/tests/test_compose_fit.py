"""fit_answer and finish_answer: every answer within its budget, the manifest proportionate,
the body built for the room the manifest really leaves, a program's Style applied."""

from __future__ import annotations

import pytest
from ctx_tree_compose import (
    Manifest,
    Style,
    estimate_tokens,
    finish_answer,
    fit_answer,
    tokens_line,
)

LINES = [f"line {i}: some words of the source text here\n" for i in range(400)]
SOURCE = "".join(LINES)


def _body(room: int) -> tuple[str, int]:
    """As many whole lines of SOURCE as fit ``room``; the state is how many."""
    out: list[str] = []
    for line in LINES:
        if estimate_tokens("".join([*out, line])) > room:
            break
        out.append(line)
    return "".join(out), len(out)


def _manifest(shown: int) -> Manifest:
    m = Manifest(f"{shown} of {len(LINES)} lines")
    m.add("included", " ".join(f"id{i:04d}" for i in range(shown)), optional=True)
    m.add("next", f"read(start_line={shown + 1})")
    m.complete = shown == len(LINES)
    return m


def test_the_tokens_line_never_says_over_100_percent_or_0_percent_of_something() -> None:
    assert tokens_line(50, 200, "file") == "50 returned of 200 in file (25%)"
    assert tokens_line(120, 66, "full output") == "120 returned; full output: 66 in all"
    assert (
        tokens_line(300, 270_017, "full output") == "300 returned of 270,017 in full output (<1%)"
    )
    assert tokens_line(0, 500, "file") == "0 returned of 500 in file (0%)"
    assert tokens_line(10, 0, "store") == "10 returned of 0 in store"


@pytest.mark.parametrize("budget", [100, 150, 300, 1000, 4000])
def test_every_answer_fits_its_budget_and_uses_most_of_it(budget: int) -> None:
    text = fit_answer(budget, _body, _manifest, estimate_tokens(SOURCE), "file")
    assert estimate_tokens(text) <= budget
    assert text.splitlines()[-1].startswith("tokens: ")
    assert "-- manifest: " in text and "next: read(start_line=" in text
    assert int(text.split("-- manifest: ")[1].split(" of ")[0]) > 0
    # the body got the room the manifest really leaves, not just a first guess's
    assert estimate_tokens(text) >= budget * 0.85


def test_an_optional_line_goes_when_the_manifest_would_cost_more_than_a_quarter() -> None:
    text = fit_answer(400, _body, _manifest, estimate_tokens(SOURCE), "file")
    assert "included:" not in text  # hundreds of ids: far over a quarter of 400 tokens
    roomy = fit_answer(400, lambda room: ("x\n", 3), _manifest, 10, "file")
    assert "included: id0000 id0001 id0002" in roomy


def test_a_complete_terse_answer_is_the_body_alone() -> None:
    small = "".join(LINES[:3])
    text = fit_answer(
        2000,
        lambda room: (small, len(LINES)),
        _manifest,
        estimate_tokens(small),
        "file",
        terse=True,
    )
    assert text == small


def test_the_style_sets_the_lead_escapes_lines_and_guards_the_body() -> None:
    def guard(body: str) -> tuple[str, str | None]:
        n = body.count("SECRET")
        return body.replace("SECRET", "[hidden]"), (f"{n} hidden" if n else None)

    style = Style(lead="tool", escape=lambda ln: ln.replace("\n", "\\n"), guard=guard)
    m = Manifest("a\nb")
    m.add("next", "call()")
    text = finish_answer("one SECRET\n", m, 500, 100, "file", style=style)
    assert text.startswith("one [hidden]\n-- tool: a\\nb\nnote: 1 hidden\nnext: call()\n")
    assert "SECRET" not in text


def test_a_body_over_the_budget_is_cut_at_a_line_and_says_so() -> None:
    m = Manifest("all of it")
    m.add("next", "more()")
    text = finish_answer(SOURCE, m, 200, estimate_tokens(SOURCE), "file")
    assert estimate_tokens(text) <= 200
    assert "[…cut to fit the budget]\n-- manifest: all of it\nnext: more()\n" in text
    body = text.split("[…cut")[0]
    assert body and SOURCE.startswith(body) and body.endswith("\n")


def test_compacted_drops_the_longest_optional_lines_first() -> None:
    m = Manifest("head")
    m.add("short", "a b", optional=True)
    m.add("keep", "always")
    m.add("long", " ".join(["word"] * 200), optional=True)
    half = m.compacted(estimate_tokens(m.render()) - 100)
    assert [ln.split(":")[0] for ln in half.lines] == ["short", "keep"]
    assert half.optional == {0}
    assert [ln.split(":")[0] for ln in m.compacted().lines] == ["keep"]


@pytest.mark.parametrize("budget", [60, 100, 150])
def test_the_next_line_outlasts_long_notes_and_the_body(budget: int) -> None:
    def manifest(shown: int) -> Manifest:
        m = _manifest(shown)
        m.lines.insert(0, "note: " + "a long note about why the output was cut " * 4)
        m.lines.insert(1, "other files: " + ", ".join(f"file_{i}.py (20)" for i in range(8)))
        return m

    for terse in (False, True):
        text = fit_answer(budget, _body, manifest, estimate_tokens(SOURCE), "file", terse=terse)
        assert estimate_tokens(text) <= budget
        assert "next: read(start_line=" in text, text
        shown = int(text.split("-- manifest: ")[1].split(" of ")[0])
        assert sum(ln.startswith("line ") for ln in text.splitlines()) == shown  # body kept
