"""The Claude Code plugin (``plugin/``) and the marketplace (``.claude-plugin/``), checked with
the real Claude Code CLI, offline.

Claude Code comes from the npm registry (``uv run nox -s plugin`` installs it into
``.nox/claude-code``); set ``CTX_TREE_CLAUDE=/path/to/claude`` to use another one, or
``CTX_TREE_CLAUDE=`` (empty) to turn these tests off. The end-to-end test drives Claude Code
with a scripted fake Anthropic Messages API on 127.0.0.1 (no key, no network): its first turn
calls ``ctx_tree_read`` through the plugin, its second quotes the tool result back.

The launcher tests at the top need no Claude Code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from claude_support import PLUGIN, ROOT, fake_api, needs_claude, stream_events, tool_results
from claude_support import claude_env as _env
from claude_support import run_claude as _claude

LAUNCHER = PLUGIN / "bin" / "ctx-tree-launch"
MANIFEST = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
MARKETPLACE = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
TOOL = "mcp__plugin_ctx-tree_ctx-tree__ctx_tree_read"


def _mcp_version() -> str:
    data = tomllib.loads((ROOT / "packages" / "ctx-tree-mcp" / "pyproject.toml").read_text())
    return data["project"]["version"]


# --- manifests and launcher (no Claude Code needed) -------------------------------------------


def test_manifests_agree() -> None:
    assert MANIFEST["name"] == "ctx-tree"
    assert MANIFEST["version"] == _mcp_version()
    server = MANIFEST["mcpServers"]["ctx-tree"]
    assert server["command"] == "sh"
    assert server["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/ctx-tree-launch"]
    (entry,) = [p for p in MARKETPLACE["plugins"] if p["name"] == "ctx-tree"]
    assert entry["source"] == "./plugin"
    assert entry["version"] == MANIFEST["version"]
    assert os.access(LAUNCHER, os.X_OK)


def _launch_command(launcher: Path, env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run(
        ["sh", str(launcher), "--print-command", "--flag"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout)


def _workspace(tmp_path: Path) -> Path:
    """A clone's shape: the plugin inside a uv workspace whose environment holds an entry point
    that echoes its arguments."""
    ws = tmp_path / "ws"
    shutil.copytree(PLUGIN, ws / "plugin")
    (ws / "packages" / "ctx-tree-mcp").mkdir(parents=True)
    (ws / "packages" / "ctx-tree-mcp" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (ws / "pyproject.toml").write_text('[project]\nname = "ctx-tree-workspace"\n')
    (ws / "uv.lock").write_text("")
    exe = ws / ".venv" / "bin" / "ctx-tree-mcp"
    exe.parent.mkdir(parents=True)
    exe.write_text('#!/bin/sh\necho "entry point $*"\n')
    exe.chmod(0o755)
    return ws


def _stamp(ws: Path, age_of_inputs: float) -> None:
    """Write the launcher's stamp now, with the workspace inputs ``age_of_inputs`` s older."""
    (ws / ".venv" / ".ctx-tree-launch-stamp").write_text("")
    old = time.time() - age_of_inputs
    for f in [ws / "uv.lock", ws / "pyproject.toml", *ws.glob("packages/*/pyproject.toml")]:
        os.utime(f, (old, old))


def test_launcher_from_a_clone_with_a_synced_environment_execs_its_entry_point(
    tmp_path: Path,
) -> None:
    ws = _workspace(tmp_path)
    launcher = ws / "plugin" / "bin" / "ctx-tree-launch"
    env = {k: v for k, v in os.environ.items() if k != "UV_PROJECT_ENVIRONMENT"}  # nox sets it
    argv = _launch_command(launcher, env)  # no stamp yet: would sync first; dry run: uv run
    assert Path(argv[0]).name.startswith("uv")
    assert argv[1:] == ["run", "--project", str(ws), "--frozen", "ctx-tree-mcp", "--flag"]
    _stamp(ws, age_of_inputs=60)
    out = subprocess.run(["sh", str(launcher), "--flag"], capture_output=True, text=True, env=env)
    assert out.stdout == "entry point --flag\n"  # exec'd directly: no python, no uv
    exe = str(ws / ".venv" / "bin" / "ctx-tree-mcp")
    assert _launch_command(launcher, env) == [exe, "--flag"]
    os.utime(ws / "packages" / "ctx-tree-mcp" / "pyproject.toml")  # edited after the sync
    assert Path(_launch_command(launcher, env)[0]).name.startswith("uv")
    other = tmp_path / "elsewhere"  # an environment outside the workspace is honoured
    shutil.copytree(ws / ".venv", other)
    _stamp(ws, age_of_inputs=60)
    (other / ".ctx-tree-launch-stamp").touch()
    moved = {**env, "UV_PROJECT_ENVIRONMENT": str(other)}
    assert _launch_command(launcher, moved) == [str(other / "bin" / "ctx-tree-mcp"), "--flag"]


def test_launcher_from_a_marketplace_copy_runs_the_pinned_release(tmp_path: Path) -> None:
    """Claude Code copies only plugin/ into its cache: no workspace beside it."""
    copy = tmp_path / "cache" / "ctx-tree"
    shutil.copytree(PLUGIN, copy)
    argv = _launch_command(copy / "bin" / "ctx-tree-launch")
    pin = f"ctx-tree-mcp=={MANIFEST['version']}"
    assert argv[1:] == ["tool", "run", "--from", pin, "ctx-tree-mcp", "--flag"]


def test_launcher_from_a_marketplace_copy_runs_the_marketplace_workspace(tmp_path: Path) -> None:
    """A marketplace install: the cached copy finds the marketplace's repository through
    known_marketplaces.json, and from then on the shell alone (no python3 on PATH) execs it."""
    ws = _workspace(tmp_path)
    _stamp(ws, age_of_inputs=60)
    plugins = tmp_path / "plugins"
    copy = plugins / "cache" / "mkt" / "ctx-tree" / MANIFEST["version"]
    shutil.copytree(PLUGIN, copy)
    (plugins / "known_marketplaces.json").write_text(
        json.dumps({"mkt": {"source": {"source": "directory"}, "installLocation": str(ws)}})
    )
    launcher = copy / "bin" / "ctx-tree-launch"
    env = {k: v for k, v in os.environ.items() if k != "UV_PROJECT_ENVIRONMENT"}  # nox sets it
    out = subprocess.run(["sh", str(launcher), "--flag"], capture_output=True, text=True, env=env)
    assert out.stdout == "entry point --flag\n", out.stderr
    assert (copy / "bin" / ".ctx-tree-workspace").read_text().strip() == str(ws)
    bare = tmp_path / "empty-path"
    bare.mkdir()
    out = subprocess.run(
        ["/bin/sh", str(launcher), "--flag"],
        capture_output=True,
        text=True,
        env={"PATH": str(bare)},
    )
    assert out.stdout == "entry point --flag\n", out.stderr


@pytest.mark.skipif(
    any(Path(p).exists() for p in ("/usr/local/bin/uv", "/opt/homebrew/bin/uv")),
    reason="uv is installed system-wide here; the launcher would find it",
)
def test_launcher_without_uv_says_what_to_install(tmp_path: Path) -> None:
    copy = tmp_path / "ctx-tree"
    shutil.copytree(PLUGIN, copy)
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path), "PYTHONNOUSERSITE": "1"}
    out = subprocess.run(
        [sys.executable, "-S", str(copy / "bin" / "ctx-tree-launch.py")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 127
    assert "uv" in out.stderr and "docs/install.md" in out.stderr


# --- the real Claude Code ----------------------------------------------------------------------


@needs_claude
@pytest.mark.parametrize(
    "manifest", ["plugin/.claude-plugin/plugin.json", ".claude-plugin/marketplace.json"]
)
def test_claude_validates_the_manifest_strictly(manifest: str, tmp_path: Path) -> None:
    r = _claude(
        "plugin", "validate", "--strict", str(ROOT / manifest), cwd=tmp_path, env=_env(tmp_path)
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Validation passed" in r.stdout


@needs_claude
def test_claude_loads_the_plugin_and_its_server_connects(tmp_path: Path) -> None:
    env = _env(tmp_path)
    listing = _claude(
        "--plugin-dir", str(PLUGIN), "plugin", "list", "--json", cwd=tmp_path, env=env
    )
    assert listing.returncode == 0, listing.stderr
    (mine,) = [p for p in json.loads(listing.stdout) if p["id"].split("@")[0] == "ctx-tree"]
    assert mine["enabled"] and "ctx-tree" in mine["mcpServers"]
    details = _claude(
        "--plugin-dir", str(PLUGIN), "plugin", "details", "ctx-tree", cwd=tmp_path, env=env
    )
    assert re.search(r"Skills \(1\)\s+using-ctx-tree", details.stdout), details.stdout
    health = _claude("--plugin-dir", str(PLUGIN), "mcp", "list", cwd=tmp_path, env=env)
    line = next(
        (ln for ln in health.stdout.splitlines() if ln.startswith("plugin:ctx-tree:ctx-tree:")), ""
    )
    assert "✔ Connected" in line, health.stdout + health.stderr


@needs_claude
def test_claude_calls_ctx_tree_read_through_the_plugin(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "calc.py").write_text(
        '"""Arithmetic."""\n\n\ndef add(a, b):\n    return a + b  # plugin-e2e-marker\n\n\n'
        + "".join(f"def f{i}(x):\n    return x * {i}\n\n\n" for i in range(200))
    )
    with fake_api([(TOOL, {"path": "calc.py", "symbol": "add"})]) as (url, handler):
        env = _env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
        run = _claude(
            "-p", "Read the function add in calc.py.", "--plugin-dir", str(PLUGIN),
            "--allowedTools", TOOL, "--output-format", "stream-json", "--verbose",
            cwd=project, env=env, timeout=180,
        )  # fmt: skip
    events = stream_events(run)
    init = next(e for e in events if e.get("subtype") == "init")
    status = {s["name"]: s.get("status") for s in init.get("mcp_servers", [])}
    assert status.get("plugin:ctx-tree:ctx-tree") == "connected", (status, run.stderr[-2000:])
    assert TOOL in init["tools"]
    results = tool_results(events)
    assert results, run.stdout[-3000:]
    text = json.dumps(results[0].get("content"))
    assert not results[0].get("is_error"), text
    assert "plugin-e2e-marker" in text and "def add(a, b)" in text
    assert "f150" not in text  # the slice, not the whole file
    assert "-- ctx-tree" not in text  # the whole symbol came back: no manifest
    final = next(e for e in events if e.get("type") == "result")
    assert final.get("subtype") == "success" and run.returncode == 0
    # the model saw the slice; the store sits at the default ~/.ctx-tree (docs/configuration.md)
    assert any(
        "plugin-e2e-marker" in json.dumps(r["body"].get("messages")) for r in handler.requests
    )
    (db,) = (home / ".ctx-tree").glob("*/store.db")
    # Claude Code gives the server its session id: the server's read and the hooks' prompt
    # hang under one session node.
    import apsw

    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        sessions = con.execute("SELECT source_uri FROM nodes WHERE kind = 'session'").fetchall()
    finally:
        con.close()
    assert sessions == [(f"session://{init['session_id']}",)]


@needs_claude
def test_claude_runs_ctx_tree_bash_through_the_plugin(tmp_path: Path) -> None:
    """ctx_tree_bash is annotated destructive, so the host asks first: --allowedTools grants
    it, as a user would. The answer gives the exit code and the output reaches the model."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    tool = TOOL.replace("ctx_tree_read", "ctx_tree_bash")
    command = "echo bash-e2e-marker; echo to-stderr >&2; pwd; exit 3"
    with fake_api([(tool, {"command": command})]) as (url, handler):
        env = _env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
        run = _claude(
            "-p", "Run the command.", "--plugin-dir", str(PLUGIN), "--allowedTools", tool,
            "--output-format", "stream-json", "--verbose", cwd=project, env=env, timeout=180,
        )  # fmt: skip
    events = stream_events(run)
    init = next(e for e in events if e.get("subtype") == "init")
    assert tool in init["tools"], (init.get("mcp_servers"), run.stderr[-2000:])
    results = tool_results(events)
    assert results, run.stdout[-3000:]
    content = results[0].get("content")
    text = content if isinstance(content, str) else " ".join(c.get("text", "") for c in content)
    assert not results[0].get("is_error"), text
    assert text.startswith("exit 3\n"), text  # all of it fits: how it ended, then the output
    assert "bash-e2e-marker" in text and "to-stderr" in text and str(project.resolve()) in text
    final = next(e for e in events if e.get("type") == "result")
    assert final.get("subtype") == "success" and run.returncode == 0
    assert any("exit 3" in json.dumps(r["body"].get("messages")) for r in handler.requests)


@needs_claude
def test_tools_are_offered_on_the_first_turn_under_load(tmp_path: Path) -> None:
    """Headless Claude Code waits only briefly for stdio servers before its first turn (a late
    server is left out of that turn with no warning). With four CPU-bound processes on the
    machine, the plugin's server must still be connected and its tools offered on turn one."""
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        with fake_api([(TOOL, {"path": "calc.py"})]) as (url, handler):
            env = _env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
            del env["MCP_CONNECTION_NONBLOCKING"]  # the host's own headless default
            run = _claude(
                "-p", "Read calc.py.", "--plugin-dir", str(PLUGIN), "--allowedTools", TOOL,
                "--output-format", "stream-json", "--verbose", cwd=project, env=env, timeout=180,
            )  # fmt: skip
    finally:
        for p in burners:
            p.kill()
            p.wait()
    events = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    init = next(e for e in events if e.get("subtype") == "init")
    status = {s["name"]: s.get("status") for s in init.get("mcp_servers", [])}
    assert status.get("plugin:ctx-tree:ctx-tree") == "connected", (status, run.stderr[-2000:])
    assert TOOL in init["tools"]
    first = next(r["body"] for r in handler.requests if "messages" in r["body"])
    offered = {t.get("name") for t in first.get("tools") or []}
    assert {TOOL, TOOL.replace("ctx_tree_read", "ctx_tree_grep")} <= offered


def _marketplace_repo(dest: Path) -> Path:
    """This repository as a marketplace source holds it: tracked shape, no environments."""
    skip = shutil.ignore_patterns(".venv", ".nox", ".git", "__pycache__", "*.pyc", ".ctx-tree*")
    for name in (".claude-plugin", "plugin", "packages"):
        shutil.copytree(ROOT / name, dest / name, ignore=skip)
    for name in ("pyproject.toml", "uv.lock", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


@needs_claude
def test_claude_installs_from_a_local_marketplace_and_calls_a_tool(tmp_path: Path) -> None:
    """`claude plugin marketplace add <clone>` + `claude plugin install`, nothing published:
    the cached plugin copy runs the marketplace repository's own workspace."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    repo = _marketplace_repo(tmp_path / "clone")
    (project / "calc.py").write_text("def add(a, b):\n    return a + b  # marketplace-marker\n")
    env = _env(home, MCP_TIMEOUT="180000")
    env.pop("UV_PROJECT_ENVIRONMENT", None)
    env.pop("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")  # with it, no plugin cache copy is made
    added = _claude("plugin", "marketplace", "add", str(repo), cwd=project, env=env)
    assert added.returncode == 0, added.stdout + added.stderr
    installed = _claude("plugin", "install", "ctx-tree@ctx-tree", cwd=project, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    with fake_api([(TOOL, {"path": "calc.py", "symbol": "add"})]) as (url, _handler):
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
        run = _claude(
            "-p", "Read add in calc.py.", "--allowedTools", TOOL,
            "--output-format", "stream-json", "--verbose", cwd=project, env=env, timeout=300,
        )  # fmt: skip
    events = stream_events(run)
    init = next(e for e in events if e.get("subtype") == "init")
    status = {s["name"]: s.get("status") for s in init.get("mcp_servers", [])}
    assert status.get("plugin:ctx-tree:ctx-tree") == "connected", (status, run.stderr[-2000:])
    results = tool_results(events)
    assert results and not results[0].get("is_error"), run.stdout[-3000:]
    assert "marketplace-marker" in json.dumps(results[0].get("content"))
    (plugin,) = [p for p in init["plugins"] if p["name"] == "ctx-tree"]
    loaded = Path(plugin["path"])
    if not loaded.is_relative_to(repo):  # a cached copy: it found the marketplace's workspace
        assert (loaded / "bin" / ".ctx-tree-workspace").read_text().strip() == str(repo)
    assert (repo / ".venv" / "bin" / "ctx-tree-mcp").exists()  # the marketplace's own workspace


def _mcp_log(home: Path) -> list[dict[str, Any]]:
    """The entries of Claude Code's MCP log for our server in this ``home`` (one session:
    ``~/.cache/claude-cli-nodejs/<project>/mcp-logs-plugin-ctx-tree-ctx-tree/<time>.jsonl``)."""
    logs = sorted(home.glob(".cache/claude-cli-nodejs/*/mcp-logs-plugin-ctx-tree-ctx-tree/*.jsonl"))
    return [json.loads(line) for p in logs for line in p.read_text().splitlines() if line.strip()]


@needs_claude
def test_claude_code_closes_the_server_with_sigint_alone_mid_index(tmp_path: Path) -> None:
    """Claude Code closes its MCP server with SIGINT, SIGTERM 100 ms later and SIGKILL 400 ms
    after that, and logs which one ended it. Here it exits while the index's worker pool is
    busy with 300 files: the server must end on the SIGINT (before: 'SIGINT failed ...
    SIGTERM failed, sending SIGKILL' under load; the stop waited for the index's batch and
    joined its workers)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / "lib").mkdir(parents=True)
    for p in sorted(Path(os.__file__).parent.glob("*.py"))[:300]:
        shutil.copyfile(p, project / "lib" / p.name)
    with fake_api([(TOOL, {"path": "lib/abc.py", "symbol": "ABC"})]) as (url, _handler):
        env = _env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
        run = _claude(
            "-p", "Read the class ABC in lib/abc.py.", "--plugin-dir", str(PLUGIN),
            "--allowedTools", TOOL, "--output-format", "stream-json", "--verbose",
            cwd=project, env=env, timeout=180,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert tool_results(stream_events(run)), run.stdout[-3000:]
    said = [str(e.get("debug") or e.get("error") or "") for e in _mcp_log(home)]
    assert any("Sending SIGINT" in s for s in said), said  # the log is where it was looked for
    assert any("exited cleanly" in s for s in said), said
    assert not [s for s in said if "SIGKILL" in s or "SIGTERM" in s or "failed" in s], said
