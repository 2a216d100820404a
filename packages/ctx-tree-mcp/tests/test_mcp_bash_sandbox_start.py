"""A host sandbox that cannot start is named, and the command is known not to have run: never
answered ``exit 1`` with bubblewrap's own words as if they were the command's output.

The runtime here is a stand-in (``srt`` that runs what follows its ``--``, or fails as
bubblewrap fails where user namespaces are off; ``bwrap`` that passes or fails the probe), so
these run anywhere; tests-e2e/test_e2e_sandbox.py does the same with the real runtime in a
user namespace that may make no more."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.doctor import check_sandbox
from ctx_tree_mcp.engines.shell import sandbox
from ctx_tree_mcp.engines.shell.run import user_shell
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.bash import bash, bash_async

BWRAP_SAYS = (
    "bwrap: Creating new namespace failed: nesting depth or "
    "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)"
)


def _exe(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, probe: bool, runs: bool) -> None:
    """Stand-ins on PATH: ``bwrap`` passing the probe or not, ``socat``, and ``srt`` that runs
    its command (``runs``) or fails before it as bubblewrap does."""
    bin_dir = tmp_path / f"bin-{probe}-{runs}"
    bin_dir.mkdir()
    _exe(bin_dir / "bwrap", "exit 0\n" if probe else f"echo '{BWRAP_SAYS}' >&2\nexit 1\n")
    _exe(bin_dir / "socat", "exit 0\n")
    run = 'while [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n'
    _exe(bin_dir / "srt", run if runs else f"echo '{BWRAP_SAYS}' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv(sandbox.SRT_ENV, str(bin_dir / "srt"))


def _settings(root: Path, **box: object) -> None:
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"sandbox": {"enabled": True, **box}})
    )


MARKED = "echo the command ran > ran.txt; echo out; exit 3"


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux only")
@pytest.mark.parametrize("probe", [False, True], ids=["probe fails", "runtime fails later"])
def test_a_sandbox_that_cannot_start_refuses_and_says_nothing_ran(
    app: App, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, probe: bool
) -> None:
    _runtime(tmp_path, monkeypatch, probe=probe, runs=False)
    _settings(root, failIfUnavailable=True)
    with pytest.raises(ToolInputError) as err:
        bash(app, MARKED)
    said = str(err.value)
    assert "cannot start" in said and "nothing ran" in said, said
    assert "ENOSPC" in said, said  # bubblewrap's reason, as the reason
    if not probe:
        assert "user namespaces" in said, said  # and what to do
    assert not (root / "ran.txt").exists()


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux only")
@pytest.mark.parametrize("probe", [False, True], ids=["probe fails", "runtime fails later"])
def test_without_fail_if_unavailable_it_runs_once_outside_and_says_so(
    app: App, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, probe: bool
) -> None:
    _runtime(tmp_path, monkeypatch, probe=probe, runs=False)
    _settings(root)
    reply = asyncio.run(bash_async(app, MARKED))
    text = reply.text
    assert text.startswith("exit 3\nout\n"), text  # the command's own status and output
    assert "ran WITHOUT the host's sandbox" in text and "ENOSPC" in text, text
    assert (root / "ran.txt").read_text() == "the command ran\n"  # once
    assert reply.status == 3


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux only")
def test_a_sandboxed_run_shows_the_commands_output_only(
    app: App, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line the sandboxed shell prints first is taken out of the output again."""
    _runtime(tmp_path, monkeypatch, probe=True, runs=True)
    _settings(root, failIfUnavailable=True)
    text = bash(app, "printf 'a b\\n'; echo \"$0 ran\" | sed 's#.*/##'")
    assert text.splitlines()[:2] == ["a b", f"{Path(user_shell()).name} ran"], text
    assert "ctx-tree-started" not in text and "WITHOUT" not in text, text
    stored = app.store.recent(1, kind="tool_output")[0]
    assert "ctx-tree-started" not in stored.content


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux only")
def test_doctor_names_the_namespaces_and_the_fix(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _runtime(tmp_path, monkeypatch, probe=False, runs=False)
    _settings(root)
    check = check_sandbox(root)
    assert not check.ok and "ENOSPC" in check.detail and "WITHOUT" in check.detail
    assert "user namespaces" in check.fix
