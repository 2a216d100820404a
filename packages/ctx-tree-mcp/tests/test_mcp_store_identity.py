"""Notes and captures survive git init, the first commit and a merge of an unrelated history
with an older root: the store follows the project directory (docs/data-model.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def git(cwd: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)


def _recall(root: Path, home: Path) -> tuple[str, str]:
    app = App(root, home=home)
    try:
        return search(app, "tokenizer invariant"), read(app, "src/decoder.py", symbol="JSONDecoder")
    finally:
        app.close()


def test_notes_and_captures_survive_init_first_commit_and_unrelated_merge(
    root: Path, tmp_path: Path
):
    home = tmp_path / "home"
    app = App(root, home=home)
    note(app, "the tokenizer invariant holds for every input")
    read(app, "src/decoder.py", symbol="JSONDecoder")
    app.close()
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first")
    found, _ = _recall(root, home)
    assert "tokenizer invariant holds" in found
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "old.txt").write_text("old\n")
    git(other, "add", ".")
    git(other, "commit", "-qm", "ancient", date="2001-01-01T00:00:00Z")
    git(root, "fetch", "-q", str(other), "main")
    git(root, "merge", "-q", "--allow-unrelated-histories", "-m", "merge", "FETCH_HEAD")
    found, answer = _recall(root, home)
    assert "tokenizer invariant holds" in found
    assert "class JSONDecoder" in answer
    assert len(list(home.glob("*/store.db"))) == 1
