"""Answers say only what is true: no 'stored' for a node that is not, no padding rows, and a
CLI user's own output in ``recent``."""

from __future__ import annotations

from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_mcp.tools.graph import recent
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search


def test_bash_on_a_store_that_cannot_be_written_names_no_node(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    app = App(root, home=tmp_path / "home")
    store_file = app.store_file
    app.close()
    store_file.parent.mkdir(parents=True, exist_ok=True)
    store_file.write_bytes(b"not a database " * 200)  # damaged: nothing can be stored
    app = App(root, home=tmp_path / "home")
    try:
        text = bash(app, "echo from-a-damaged-store")
        assert "from-a-damaged-store" in text
        answer = text.split("nothing is being stored")[0]
        assert answer.startswith("from-a-damaged-store\n")  # all of it: no node to name
        assert "node " not in answer and "line stored" not in answer
        cut = bash(app, "seq 1 20000").split("nothing is being stored")[0]
        assert "-- ctx-tree: output not stored" in cut and "node " not in cut
    finally:
        app.close()


def test_search_does_not_pad_with_near_zero_partial_matches(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    app = App(root, home=tmp_path / "home")
    try:
        note(app, "the zebrafish kernel panics on boot; fixed by pinning the driver")
        note(app, "zebrafish tank notes: feeding twice a day")
        for i in range(6):
            note(app, ("filler words about other things entirely " * 300) + f" kernel {i}")
        text = search(app, "zebrafish kernel panics")
        assert "2 hits" in text and "filler words" not in text
        assert "6 hits with only some of the words scored near zero" in text
        # partial matches that are the best there is stay listed
        assert "2 hits with only some of the words" in search(app, "zebrafish nonexistentword")
    finally:
        app.close()


def test_recent_lists_a_cli_users_bash_output_before_any_walk(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    app = App(root, home=tmp_path / "home")
    try:
        bash(app, "echo " + "a line of output worth listing " * 3)
        (node,) = app.store.recent(kind="tool_output")
        assert node.status == "pending"  # no walker ran: the CLI has none
        assert node.id in recent(app, kind="tool_output")
        assert node.id not in recent(app, kind="tool_output", status=["live"])
    finally:
        app.close()
