"""``plugin/hooks/ctx_tree_hook.sh``, what every hook command runs: it starts
``ctx_tree_hook.py`` with the real interpreter ``python3`` resolves to, noted once beside it, so
a version manager's shim is not paid per event; it fails open (docs/routing.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[3] / "plugin" / "hooks" / "ctx_tree_hook.sh"
REAL = os.path.realpath(sys.executable)
#: Stands in for ctx_tree_hook.py: says which interpreter ran it, with what, and its stdin.
ECHO = (
    "import json, sys\n"
    "print(json.dumps({'exe': sys.executable, 'argv': sys.argv[1:], 'isolated': sys.flags.isolated,"
    " 'stdin': sys.stdin.read()}))\n"
)


@pytest.fixture
def hooks(tmp_path: Path) -> Path:
    folder = tmp_path / "plugin" / "hooks"
    folder.mkdir(parents=True)
    shutil.copy(RUNNER, folder / RUNNER.name)
    (folder / "ctx_tree_hook.py").write_text(ECHO)
    return folder


def shim(tmp_path: Path, *, old: bool = False) -> Path:
    """A ``python3`` on PATH like a version manager's: a script that counts its starts and
    runs the real interpreter (``old``: one that resolves to nothing usable, as a Python
    older than 3.8 would)."""
    bin_dir = tmp_path / "shims"
    bin_dir.mkdir()
    refuse = 'case "$*" in *" -c "*) exit 0 ;; esac\n' if old else ""
    script = bin_dir / "python3"
    script.write_text(f'#!/bin/sh\necho start >> "{tmp_path}/starts"\n{refuse}exec {REAL} "$@"\n')
    script.chmod(0o755)
    return bin_dir


def run(hooks: Path, bin_dir: Path, *words: str) -> dict[str, object]:
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    done = subprocess.run(
        ["sh", str(hooks / RUNNER.name), *words], input=b'{"a": 1}', capture_output=True, env=env,
        check=True,
    )  # fmt: skip
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def starts(tmp_path: Path) -> int:
    path = tmp_path / "starts"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_the_shim_is_paid_once_then_the_noted_interpreter_runs(tmp_path: Path, hooks: Path):
    bin_dir = shim(tmp_path)
    first = run(hooks, bin_dir, "prompt")
    assert starts(tmp_path) == 1  # resolving; the hook itself ran the real one
    assert (hooks / ".ctx-tree-python").read_text() == REAL + "\n"
    assert (hooks / ".ctx-tree-python").stat().st_mode & 0o077 == 0
    for _ in range(3):
        again = run(hooks, bin_dir, "post-tool")
        assert again == {**first, "argv": ["post-tool"]}
    assert starts(tmp_path) == 1
    assert os.path.realpath(str(first["exe"])) == REAL
    assert first["isolated"] == 1 and first["stdin"] == '{"a": 1}'
    assert first["argv"] == ["prompt"]


def test_a_noted_interpreter_that_is_gone_is_resolved_again(tmp_path: Path, hooks: Path):
    bin_dir = shim(tmp_path)
    (hooks / ".ctx-tree-python").write_text(str(tmp_path / "uninstalled" / "python3.9") + "\n")
    answer = run(hooks, bin_dir, "stop")
    assert answer["argv"] == ["stop"] and os.path.realpath(str(answer["exe"])) == REAL
    assert (hooks / ".ctx-tree-python").read_text() == REAL + "\n"
    assert starts(tmp_path) == 1


def test_a_note_that_is_no_path_is_ignored(tmp_path: Path, hooks: Path):
    bin_dir = shim(tmp_path)
    (hooks / ".ctx-tree-python").write_text("rm -rf x\n")
    assert run(hooks, bin_dir, "stop")["argv"] == ["stop"]
    assert (hooks / ".ctx-tree-python").read_text() == REAL + "\n"


def test_nothing_resolved_runs_python3_as_before_and_notes_nothing(tmp_path: Path, hooks: Path):
    bin_dir = shim(tmp_path, old=True)
    for _ in range(2):
        assert run(hooks, bin_dir, "prompt")["argv"] == ["prompt"]
    assert starts(tmp_path) == 4  # each time: the failed resolution, then the hook under it
    assert not (hooks / ".ctx-tree-python").exists()


def test_install_replaces_a_hook_an_older_install_wrote(tmp_path: Path, monkeypatch):
    from ctx_tree_mcp.cli.install import apply

    home, root = tmp_path / "home", tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "store"))
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    older = "python3 -I -S /old/clone/plugin/hooks/ctx_tree_hook.py prompt"
    mine = {"type": "command", "command": "my-hook"}
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": older}]},
                        {"hooks": [mine]},
                    ]
                }
            }
        )
    )
    apply("claude", "user", root, home=home)
    groups = json.loads(settings.read_text())["hooks"]["UserPromptSubmit"]
    commands = [h["command"] for g in groups for h in g["hooks"]]
    assert older not in commands and "my-hook" in commands
    (ours,) = [c for c in commands if c != "my-hook"]
    assert ours.startswith("sh ") and ours.endswith(f"{RUNNER} prompt")
    apply("claude", "user", root, install=False, home=home)
    groups = json.loads(settings.read_text())["hooks"]["UserPromptSubmit"]
    assert [h["command"] for g in groups for h in g["hooks"]] == ["my-hook"]
