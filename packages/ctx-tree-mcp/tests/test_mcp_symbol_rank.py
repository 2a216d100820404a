"""Hybrid search's symbol ranking: BM25 over symbol names and doc summaries of candidates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ctx_tree_mcp.engines.search.symbol_rank import rank, summary_sentence, symbol_field
from ctx_tree_schema import Node, NodeKind, NodeStatus
from ctx_tree_store import Store


def node(node_id: str, **meta: object) -> Node:
    return Node(
        id=node_id, parent_id=None, kind=NodeKind.FILE_CHUNK, source_uri=None, content="x",
        content_hash="h", status=NodeStatus.LIVE, mtime=0, created_at=0, updated_at=0,
        truncated=False, original_bytes=1, metadata=dict(meta),
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "s.db")
    yield s
    s.close()


def test_the_symbol_field_is_own_name_summary_sentence_and_title() -> None:
    doc = "Apply a style to the text, e.g. bold. Styles stack! Later ones win."
    assert symbol_field(node("a", symbol="Text.stylize#2", doc=doc)) == (
        "stylize Apply a style to the text, e.g."
    )  # the Javadoc rule: a period then white space ends the sentence ("e.g." too)
    assert summary_sentence("Splits the bytes.\nAfterwards self holds the rest.") == (
        "Splits the bytes."
    )
    assert summary_sentence("No period at all") == "No period at all"
    assert symbol_field(node("b", title="deploy notes")) == "deploy notes"
    assert symbol_field(node("c")) == ""


def test_the_class_name_credits_no_sibling(store: Store) -> None:
    argument = node(
        "arg", symbol="OptionParser.add_argument", doc="Adds a positional argument named dest."
    )
    option = node("opt", symbol="OptionParser.add_option", doc="Adds a new option named dest.")
    assert "option" not in store.index_words(symbol_field(argument))
    assert rank("adds option named dest", [argument, option], store.index_words)[0][0] == "opt"


def test_a_word_only_one_sibling_has_decides(store: Store) -> None:
    flag = node("flag", symbol="Command.InitDefaultHelpFlag", doc="adds default help flag to c.")
    cmd = node("cmd", symbol="Command.InitDefaultHelpCmd", doc="adds default help command to c.")
    other = node("other", symbol="Runner.Execute", doc="uses the args and runs through the tree")
    ranked = rank("adds default help command", [flag, other, cmd], store.index_words)
    assert [i for i, _ in ranked] == ["cmd", "flag"]  # "other" holds none of the words
    assert ranked[0][1] > ranked[1][1] > 0


def test_stems_match_and_ties_keep_the_given_order(store: Store) -> None:
    a = node("a", symbol="Logger.WithTime", doc="Overrides the time of the log entry.")
    b = node("b", symbol="Entry.WithTime", doc="Overrides the time of the entry.")

    def ids(ranked: list[tuple[str, float]]) -> list[str]:
        return [i for i, _ in ranked]

    assert ids(rank("override time entry", [a, b], store.index_words)) == ["b", "a"]  # shorter
    twin = node("twin", symbol="Entry.WithTime", doc="Overrides the time of the entry.")
    assert ids(rank("override time entry", [twin, b], store.index_words)) == ["twin", "b"]
    assert rank("", [a, b], store.index_words) == []
    assert rank("override", [], store.index_words) == []
