"""``ctx_tree_bash`` under the host's sandbox, with the real runtime: Claude Code's own
``@anthropic-ai/sandbox-runtime`` (npm) over Debian's bubblewrap and socat.

``nox -s sandbox`` installs them and runs this file; elsewhere it is skipped with the reason
(no ``srt``, or a kernel that forbids unprivileged user namespaces).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ctx_tree_mcp.engines.shell.sandbox import find_runtime

RUNTIME, WHY = find_runtime()


def _userns_ok() -> str:
    if RUNTIME is None:
        return WHY
    done = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return "" if done.returncode == 0 else f"bwrap cannot run here: {done.stderr.strip()}"


SKIP = _userns_ok() if sys.platform.startswith("linux") else "bubblewrap is Linux only"
pytestmark = pytest.mark.skipif(bool(SKIP), reason=SKIP or "-")


@pytest.fixture
def servers() -> Iterator[tuple[int, int]]:
    """Two HTTP servers on 127.0.0.1: the first is allowed, the second is not."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    made = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet) for _ in range(2)]
    for s in made:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    try:
        yield made[0].server_address[1], made[1].server_address[1]
    finally:
        for s in made:
            s.shutdown()
            s.server_close()


def _project(tmp_path: Path, sandbox: dict[str, object]) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": sandbox}))
    return project


def _bash(
    project: Path, tmp_path: Path, command: str, **env: str
) -> subprocess.CompletedProcess[str]:
    cli = Path(sys.executable).with_name("ctx-tree")
    full = dict(os.environ, CTX_TREE_HOME=str(tmp_path / "ctx"), HOME=str(tmp_path / "home"), **env)
    full.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [str(cli), "bash", command, "--root", str(project)],
        capture_output=True, text=True, env=full, timeout=120,
    )  # fmt: skip


PROBE = (
    "import os, sys, urllib.request as u\n"
    "os.environ.pop('no_proxy', None); os.environ.pop('NO_PROXY', None)\n"
    "o = u.build_opener(u.ProxyHandler({'http': os.environ.get('HTTP_PROXY', '')}))\n"
    "for port in sys.argv[1:]:\n"
    "    try:\n"
    "        print(port, o.open('http://127.0.0.1:%s/' % port, timeout=10).status)\n"
    "    except Exception as e:\n"
    "        print(port, 'refused', type(e).__name__)\n"
)


def test_the_hosts_sandbox_confines_writes_network_and_hidden_variables(
    tmp_path: Path, servers: tuple[int, int]
) -> None:
    allowed, other = servers
    outside = tmp_path / "outside"
    outside.mkdir()
    project = _project(
        tmp_path,
        {
            "enabled": True,
            "network": {"allowedDomains": [f"127.0.0.1:{allowed}"]},
            "credentials": {"envVars": [{"name": "DEMO_TOKEN", "mode": "deny"}]},
        },
    )
    (project / "probe.py").write_text(PROBE)
    command = (
        f"echo in > inside.txt; echo out > {outside}/x.txt; "
        f'echo "token=[$DEMO_TOKEN]"; {sys.executable} probe.py {allowed} {other}'
    )
    # The sandbox's temp dir is writable: TMPDIR keeps it apart from pytest's, and short (the
    # runtime puts its Unix sockets there: a path over 107 bytes cannot be bound).
    tmp = Path(tempfile.mkdtemp(prefix="ctx-sbx-"))
    try:
        done = _bash(project, tmp_path, command, DEMO_TOKEN="abc123", TMPDIR=str(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = done.stdout
    inside = project / "inside.txt"
    assert inside.exists() and inside.read_text() == "in\n", out + done.stderr
    assert not (outside / "x.txt").exists(), out
    assert "Read-only file system" in out or "Permission denied" in out, out
    assert "token=[]" in out and "abc123" not in out, out
    assert f"{allowed} 200" in out, out
    assert f"{other} refused" in out, out
    assert "left in the background" not in out  # the runtime's own helpers are not the command's


def test_sandbox_off_runs_as_before(tmp_path: Path) -> None:
    project = _project(tmp_path, {"enabled": False})
    outside = tmp_path / "outside.txt"
    done = _bash(project, tmp_path, f"echo out > {outside}")
    assert done.returncode == 0 and "exit " not in done.stdout, done.stdout + done.stderr
    assert outside.read_text() == "out\n"


def test_unavailable_sandbox_refuses_when_the_host_says_fail(tmp_path: Path) -> None:
    project = _project(tmp_path, {"enabled": True, "failIfUnavailable": True})
    marker = project / "marker"
    done = _bash(project, tmp_path, f"touch {marker}", CTX_TREE_SRT=str(tmp_path / "no-srt"))
    assert done.returncode != 0 and not marker.exists()
    assert "sandbox.failIfUnavailable is true" in done.stderr, done.stderr


def test_unavailable_sandbox_warns_in_one_line_otherwise(tmp_path: Path) -> None:
    project = _project(tmp_path, {"enabled": True})
    marker = project / "marker"
    done = _bash(project, tmp_path, f"touch {marker}", CTX_TREE_SRT=str(tmp_path / "no-srt"))
    assert marker.exists(), done.stdout + done.stderr
    # the command's output is empty: the answer is the note alone, as its one footer line
    notes = [line for line in done.stdout.splitlines() if "WITHOUT the host's sandbox" in line]
    assert len(notes) == 1 and notes[0].startswith("-- ctx-tree: ran WITHOUT"), done.stdout


def _no_more_namespaces(
    tmp_path: Path, project: Path, command: str
) -> subprocess.CompletedProcess[str]:
    """``ctx-tree bash command`` in a user namespace that may make no more (its
    ``user.max_user_namespaces`` set to 0): bubblewrap fails there as where the kernel has
    unprivileged user namespaces off."""
    cli = Path(sys.executable).with_name("ctx-tree")
    env = dict(os.environ, CTX_TREE_HOME=str(tmp_path / "ctx"), HOME=str(tmp_path / "home"))
    env.pop("CLAUDE_CONFIG_DIR", None)
    script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "sh", "-c", script, "sh",
         str(cli), "bash", command, "--root", str(project)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def _userns_limit_settable() -> str:
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "sh", "-c",
         "echo 0 > /proc/sys/user/max_user_namespaces"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return "" if done.returncode == 0 else f"no user namespace to limit here: {done.stderr.strip()}"


@pytest.mark.parametrize("fail", [True, False], ids=["failIfUnavailable", "default"])
def test_where_user_namespaces_are_off_the_answer_says_the_sandbox_did_not_start(
    tmp_path: Path, fail: bool
) -> None:
    """Before: `exit 1` and bubblewrap's own line, as if the command had printed it."""
    if why := _userns_limit_settable():
        pytest.skip(why)
    project = _project(tmp_path, {"enabled": True, "failIfUnavailable": fail})
    marker = project / "marker"
    done = _no_more_namespaces(tmp_path, project, f"echo ran >> {marker}")
    said = done.stdout + done.stderr
    assert "bubblewrap cannot start" in said and "user namespaces" in said, said
    if fail:
        assert done.returncode != 0 and "nothing ran" in done.stderr, said
        assert not marker.exists()
    else:
        assert done.returncode == 0 and "ran WITHOUT the host's sandbox" in done.stdout, said
        assert marker.read_text() == "ran\n"  # once, outside the sandbox


def test_excluded_commands_run_outside_the_sandbox(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    project = _project(tmp_path, {"enabled": True, "excludedCommands": ["touch:*"]})
    done = _bash(project, tmp_path, f"touch {outside}")
    assert outside.exists(), done.stdout + done.stderr
    assert "sandbox.excludedCommands" in done.stdout


def test_srt_is_found_where_the_session_put_it() -> None:
    assert RUNTIME is not None and shutil.which("bwrap")


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
def test_under_codex_its_sandbox_mode_confines_the_command(tmp_path: Path, mode: str) -> None:
    """The server's ancestor is a program named ``codex`` given ``-s MODE`` (a stand-in script
    that runs the CLI as its child, as Codex runs its MCP server)."""
    project = tmp_path / "project"
    project.mkdir()
    outside = Path(tempfile.mkdtemp(prefix="ctx-out-", dir=str(Path.home())))
    codex = tmp_path / "bin" / "codex"
    codex.parent.mkdir()
    codex.write_text('#!/bin/sh\nshift 2\n"$@"\n')
    codex.chmod(0o755)
    cli = Path(sys.executable).with_name("ctx-tree")
    command = f"echo in > inside.txt; echo out > {outside}/x.txt; echo done"
    env = dict(os.environ, CTX_TREE_HOME=str(tmp_path / "ctx"), HOME=str(tmp_path / "home"),
               CODEX_HOME=str(tmp_path / "codex-home"))  # fmt: skip
    try:
        done = subprocess.run(
            [str(codex), "-s", mode, str(cli), "bash", command, "--root", str(project)],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        wrote_outside = (outside / "x.txt").exists()
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    assert "done" in done.stdout, done.stdout + done.stderr
    assert not wrote_outside, done.stdout
    assert (project / "inside.txt").exists() is (mode == "workspace-write"), done.stdout
