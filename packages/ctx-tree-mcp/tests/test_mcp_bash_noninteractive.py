"""ctx_tree_bash runs a command with no terminal: an editor or a prompt fails at once, with a
note saying how to pass the text instead."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.bash import bash


def test_a_program_that_opens_the_editor_fails_at_once(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)  # as in most hosts' environments
    monkeypatch.delenv("VISUAL", raising=False)
    start = time.monotonic()
    # a tool that opens $VISUAL / $EDITOR (a person would edit and save): before, the
    # fallback editor waited for the whole timeout
    answer = bash(app, "exec ${VISUAL:-${EDITOR:-sleep 30}} notes.txt", timeout_s=20)
    assert time.monotonic() - start < 10
    assert answer.startswith("exit 1\n")


def test_the_environment_says_nobody_is_there(app: App) -> None:
    answer = bash(
        app, 'echo "$PAGER|$GIT_PAGER|$GIT_TERMINAL_PROMPT|$EDITOR"; test -t 0 || echo no-tty'
    )
    assert "cat|cat|0|false" in answer and "no-tty" in answer


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_commit_without_a_message_fails_fast_with_a_note(app: App) -> None:
    subprocess.run(["git", "init", "-q", str(app.root)], check=True)
    subprocess.run(["git", "-C", str(app.root), "add", "."], check=True)
    start = time.monotonic()
    answer = bash(app, "git -c user.name=a -c user.email=a@example.com commit", timeout_s=30)
    assert time.monotonic() - start < 10
    assert "no editor can run here" in answer
    assert "pass the text on the command line (git commit -m MESSAGE" in answer
    assert not answer.startswith("exit 0 ")
