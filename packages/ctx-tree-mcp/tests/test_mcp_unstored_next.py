"""When nothing is being stored (the store cannot be written: a process works on an in-memory
copy), no answer offers a ``ctx_tree_get`` of a node that only that copy holds: a later call,
a new CLI process above all, would answer "no node". The answer says the rest is not stored
and offers a call that re-runs a read instead."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from answers import file_node
from ctx_tree_mcp.app import App
from ctx_tree_mcp.serve.server import answer
from ctx_tree_mcp.tools.note import note
from mounts import needs_mounts, private_mount
from stores import damaged_store
from test_mcp_next_progress import parse_next
from test_mcp_store_faults import CLI

GET = re.compile(r"ctx_tree_get\(node_id=\"(\w+)\"|ctx-tree get (\w+)")


def _gets(text: str) -> list[str]:
    return [a or b for a, b in GET.findall(text)]


def _files(root: Path) -> None:
    (root / "wide.json").write_text('{"k": "' + "v" * 30_000 + '"}\n{"after": 1}\n')
    (root / "log.txt").write_text("".join(f"line {i} of the log\n" for i in range(600)))


@pytest.fixture
def unstored(root: Path, tmp_path: Path):
    """An App on a damaged store file: it works on an empty in-memory store."""
    _files(root)
    home = tmp_path / "home"
    damaged_store(root, home)
    app = App(root, home=home)
    yield app
    app.close()


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("ctx_tree_read", {"path": "src/argparse_copy.py", "budget_tokens": 200}, "full outline"),
        ("ctx_tree_read", {"path": "wide.json", "start_line": 1, "budget_tokens": 300}, "line 1"),
        ("ctx_tree_grep", {"pattern": "def ", "budget_tokens": 300}, "rest of the output"),
        ("ctx_tree_bash", {"command": "seq 1 600", "budget_tokens": 200}, "whole output"),
    ],
)
def test_no_get_of_a_node_that_was_not_stored(unstored: App, tool, args, says) -> None:
    text, is_error = asyncio.run(answer(unstored, tool, args))
    assert not is_error, text
    assert "nothing is being stored" in text.splitlines()[-1]
    assert _gets(text) == [], text
    assert re.search(rf"{says}.*not stored", text), text


def test_get_rereads_the_lines_and_compose_says_not_stored(unstored: App) -> None:
    text, _ = asyncio.run(
        answer(unstored, "ctx_tree_read", {"path": "log.txt", "start_line": 1, "end_line": 2})
    )
    root_id = file_node(unstored, "log.txt")
    chunk = unstored.store.children(root_id)[0]
    text, is_error = asyncio.run(
        answer(unstored, "ctx_tree_get", {"node_id": chunk.id, "budget_tokens": 150})
    )
    assert not is_error and _gets(text) == [], text
    shown = re.findall(r"^line (\d+) of the log$", text, re.M)
    nxt = parse_next(text)
    assert nxt == ("ctx_tree_read", {"path": "log.txt", "start_line": int(shown[-1]) + 2}), text
    text, is_error = asyncio.run(
        answer(unstored, "ctx_tree_compose", {"seed_ids": [root_id], "budget_tokens": 150})
    )
    assert not is_error and _gets(text) == [], text
    assert re.search(r"^more: log\.txt:.* is not stored", text, re.M), text


READ_ONLY_CLI = r"""
import json, os, subprocess, sys
root, home, cli = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, CTX_TREE_HOME=home)
out = []
for args in (["read", "fresh.py", "--budget", "200"], ["grep", "def ", "--budget", "300"],
             ["bash", "seq 1 600", "--budget", "200"]):
    done = subprocess.run([sys.executable, "-c", cli, "--root", root, *args],
                          capture_output=True, text=True, env=env)
    out.append([args, done.returncode, done.stdout, done.stderr])
    nxt = [l for l in done.stdout.splitlines() if l.startswith("next: ctx-tree ")]
    if nxt:
        follow = subprocess.run(
            [sys.executable, "-c", cli, "--root", root, *__import__("shlex").split(nxt[0][15:])],
            capture_output=True, text=True, env=env)
        out.append([nxt[0], follow.returncode, follow.stdout, follow.stderr])
print(json.dumps(out))
"""


@needs_mounts
def test_on_a_read_only_store_every_cli_next_works_in_the_next_process(
    root: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    writer = App(root, home=home)
    note(writer, "a finding")
    writer.close()
    (root / "fresh.py").write_text((root / "src" / "argparse_copy.py").read_text())
    done = private_mount(
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3" "$4" "$1" "$5"',
        str(home),
        sys.executable,
        READ_ONLY_CLI,
        str(root),
        CLI,
    )
    assert done.returncode == 0, done.stderr
    import json

    steps = json.loads(done.stdout)
    assert len(steps) >= 3
    for what, code, stdout, stderr in steps:
        assert code == 0 and "no node" not in stdout + stderr, (what, stdout, stderr)
        assert "nothing is being stored" in stdout, (what, stdout)
        assert _gets(stdout) == [], (what, stdout)
