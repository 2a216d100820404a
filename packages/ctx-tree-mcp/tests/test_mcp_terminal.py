"""Command output is stored as the terminal showed it (ctx_tree_mcp.engines.shell.terminal), by
ctx_tree_bash and by the capture of the host's own Bash, and is not marked cut for it."""

from __future__ import annotations

import json
import time

import pytest
from ctx_tree_mcp.app import App, spool_dir
from ctx_tree_mcp.capture.ingest import ingest
from ctx_tree_mcp.engines.shell.terminal import screen_text
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_schema import Filters


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain\ttext\n", "plain\ttext\n"),
        ("\x1b[1;31mFAILED\x1b[0m test_a\n", "FAILED test_a\n"),
        ("reset\x1b(B\x1b[m done\n", "reset done\n"),  # tput sgr0: charset + SGR
        ("a\x1b7b\x1b8c\n", "ac\n"),  # cursor save / restore
        ("x\x1b[sy\x1b[uz\n", "xz\n"),
        ("one\r\ntwo\r\n", "one\ntwo\n"),
        ("  0%\r 50%\r100%\nok\n", "100%\nok\n"),
        # a two-line display redrawn with cursor-up and erase-line (docker pull, npm)
        (
            "layer1 waiting\nlayer2 waiting\n\x1b[2A\x1b[2Klayer1 done\n\x1b[2Klayer2 done\n",
            "layer1 done\nlayer2 done\n",
        ),
        ("\x1b]0;title\x07\x1b]8;;https://e.x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"),
        ("bell\x07 nul\x00\n", "bell nul\ufffd\n"),
        ("abc\x08\x08X\n", "aXc\n"),
        ("keep\n\x1b[2J\x1b[Hafter\n", "keep\nafter\n"),  # a clear screen deletes nothing
    ],
)
def test_screen_text(raw: str, shown: str) -> None:
    assert screen_text(raw) == shown


def stored(app: App):
    (node,) = app.store.recent(
        limit=5, kind="tool_output", filters=Filters(status=("live", "pending"))
    )
    return node


def test_ctx_tree_bash_stores_the_last_frame_and_nothing_is_marked_cut(app: App) -> None:
    answer = bash(
        app,
        r"printf '\033[32mok\033[0m\033(B\r\n'; printf 'step 1\nstep 2\n\033[2A\033[2Kdone 1\n"
        r"\033[2Kdone 2\n'",
    )
    node = stored(app)
    assert node.content == "ok\ndone 1\ndone 2\n"
    assert not node.truncated  # before: colour and CRLF made it look cut
    assert "\x1b" not in answer and "(B" not in answer


def test_captured_bash_output_gets_the_same_cleaning(app: App) -> None:
    base = spool_dir(app.home, app.root)
    (base / "new").mkdir(parents=True)
    event = {
        "v": 1,
        "kind": "bash",
        "session_id": "s",
        "command": "npm install",
        "text": "\x1b[33mwarn\x1b[39m deprecated\r\nfetch 10%\rfetch 100%\r\n",
    }
    (base / "new" / f"{time.time_ns():020d}-1.json").write_text(json.dumps(event))
    assert ingest(app).stored == 1
    node = stored(app)
    assert node.content == "warn deprecated\nfetch 100%\n"
    assert not node.truncated


def test_raw_bytes_are_kept_only_when_the_config_asks(root, tmp_path) -> None:
    home = tmp_path / "home"
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "config.json").write_text('{"capture": {"rawTerminal": true}}')
    app = App(root, home=home)
    try:
        bash(app, r"printf '\033[31mred\033[0m\r\n'")
        assert stored(app).content == "\x1b[31mred\x1b[0m\r\n"
    finally:
        app.close()
