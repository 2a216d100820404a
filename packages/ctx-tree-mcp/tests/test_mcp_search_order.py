"""A keyword search answer lists every-word hits first, then some-word hits, each group best
first, says so, and every ``next:`` shows the same first rows and then more."""

from __future__ import annotations

import re
from itertools import pairwise

from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode
from test_mcp_next_progress import call, parse_next

FILLER = " ".join(f"filler{i}" for i in range(60))
FROM_HERE = " (some words from here)"


def _rows(answer: str) -> list[str]:
    return re.findall(r"^\d+\. (.*)$", answer.split("-- ctx-tree:", 1)[0], re.M)


def _scores(rows: list[str]) -> list[float]:
    return [float(s) for r in rows for s in re.findall(r" score=([\d.]+)", r)]


def _notes(app) -> None:
    """Seven long notes hold both words once; ten short ones hold "export" often and outscore
    them in BM25."""
    app.store.insert(
        [NewNode(NodeKind.NOTE, f"export html {FILLER} {i}") for i in range(7)]
        + [NewNode(NodeKind.NOTE, "export " * (8 + i) + f"page {i}") for i in range(10)]
        + [NewNode(NodeKind.NOTE, f"unrelated note number {i}") for i in range(40)]
    )


def test_next_keeps_the_first_rows_and_states_the_groups(app) -> None:
    _notes(app)
    args: dict = {"query": "export html", "limit": 5}
    answers = []
    while True:
        answers.append(call(app, "ctx_tree_search", args))
        step = parse_next(answers[-1])
        if step is None:
            break
        assert step[0] == "ctx_tree_search" and step[1]["limit"] > args["limit"]
        args = step[1]
    assert len(answers) >= 3  # limit 5, 10, 20: the last holds all 17
    rows = [_rows(a) for a in answers]
    for shorter, longer in pairwise(rows):
        assert longer[: len(shorter)] == shorter
    every, partial = rows[-1][:7], rows[-1][7:]
    assert len(partial) == 10 and all(FROM_HERE not in r for r in every)
    assert partial[0].count(FROM_HERE) == 1 and not any("some words" in r for r in partial[1:])
    assert max(_scores(partial)) > max(_scores(every))  # the order the answer must explain
    for group in (every, partial):
        assert _scores(group) == sorted(_scores(group), reverse=True)
    assert "5 hits, best first" in answers[0]
    assert "17 hits; 7 with every word, then 10 with only some, each best first" in answers[-1]


def test_only_some_word_hits_are_stated_once(app) -> None:
    _notes(app)
    answer = call(app, "ctx_tree_search", {"query": "export nowhereword", "limit": 4})
    assert "4 hits with only some of the words, best first" in answer
    assert "some words)" not in answer
    scores = _scores(_rows(answer))
    assert len(scores) == 4 and scores == sorted(scores, reverse=True)
