"""``ctx_tree_recent`` pages newest-first: each ``next:`` continues after the last row shown
(``until`` plus ``before_id`` for the rows of the same millisecond), so following it lists every
node exactly once, in order, past the listing's 2,000-token budget and past ``limit``."""

from __future__ import annotations

import re
import time

import pytest
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_schema import Filters, NodeKind, NodeStatus
from ctx_tree_store import NewNode
from test_mcp_next_progress import call, parse_next


def _ids(answer: str) -> list[str]:
    return re.findall(r"node_id=(\w+)", answer.split("-- ctx-tree:", 1)[0])


def _store_many(app) -> list[str]:
    """Three batches of notes, each inserted in one transaction (one ``created_at``
    millisecond for the whole batch): 90, then 5, then 40. Returns every live node id,
    newest first as recent orders them."""
    for size, words in ((90, 30), (5, 3), (40, 12)):
        batch = [
            NewNode(NodeKind.NOTE, f"note {i} " + " ".join(f"w{j}" for j in range(words)))
            for i in range(size)
        ]
        app.store.insert(batch)
        time.sleep(0.003)
    live = app.store.recent(limit=500, filters=Filters(status=(NodeStatus.LIVE,)))
    assert len(live) >= 135
    return [n.id for n in live]


def _follow(app, args: dict) -> list[str]:
    shown: list[str] = []
    name = "ctx_tree_recent"
    for _ in range(100):
        answer = call(app, name, args)
        page = _ids(answer)
        assert page, answer
        shown += page
        step = parse_next(answer)
        if step is None:
            return shown
        name, args = step
        assert name == "ctx_tree_recent", answer
    raise AssertionError("no end after 100 pages")


@pytest.mark.parametrize("limit", [200, 7])  # cut by the 2,000-token budget / by limit
def test_following_next_lists_every_node_once_in_order(app, limit) -> None:
    expected = _store_many(app)
    assert _follow(app, {"limit": limit}) == expected


def test_until_alone_is_an_inclusive_upper_bound_and_keeps_other_filters(app) -> None:
    expected = _store_many(app)
    nodes = {n.id: n for n in app.store.recent(limit=500)}
    oldest_batch_ms = nodes[expected[-2]].created_at
    shown = _follow(app, {"until": oldest_batch_ms, "kind": "note", "limit": 50})
    assert shown == [i for i in expected if nodes[i].created_at <= oldest_batch_ms]
    assert len(shown) == 90


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ({"before_id": "01K"}, "before_id"),  # needs until
        ({"until": -1}, "until"),
        ({"since": 10, "until": 5}, "until"),
    ],
)
def test_bad_paging_arguments_name_the_argument(app, args, argument) -> None:
    with pytest.raises(ToolInputError) as exc:
        call(app, "ctx_tree_recent", args)
    assert exc.value.argument == argument, exc.value


def test_the_cli_pages_with_flags(app, root, monkeypatch, capsys, tmp_path) -> None:
    from ctx_tree_mcp.cli.main import main

    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))  # the app fixture's store
    expected = _store_many(app)
    app.close()
    argv = ["--root", str(root), "recent", "--limit", "200"]
    shown: list[str] = []
    for _ in range(20):
        main(argv)
        out = capsys.readouterr().out
        shown += _ids(out)
        nxt = re.search(r"^next: ctx-tree (recent .*)$", out, re.M)
        if nxt is None:
            break
        argv = ["--root", str(root), *nxt.group(1).split()]
    assert shown == expected
