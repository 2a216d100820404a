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
import threading
import time
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugin"
LAUNCHER = PLUGIN / "bin" / "ctx-tree-launch"
MANIFEST = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
MARKETPLACE = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
TOOL = "mcp__plugin_ctx-tree_ctx-tree__ctx_tree_read"


def _find_claude() -> tuple[str | None, str]:
    env = os.environ.get("CTX_TREE_CLAUDE")
    if env is not None:
        if not env:
            return (
                None,
                "CTX_TREE_CLAUDE is empty: Claude Code tests turned off (nox -s plugin runs them)",
            )
        return (
            (env, "") if shutil.which(env) else (None, f"CTX_TREE_CLAUDE={env} is not executable")
        )
    local = ROOT / ".nox" / "claude-code" / "node_modules" / ".bin" / "claude"
    if local.exists():
        return str(local), ""
    return None, "Claude Code not installed: run `uv run nox -s plugin` or set CTX_TREE_CLAUDE"


CLAUDE, WHY = _find_claude()
needs_claude = pytest.mark.skipif(CLAUDE is None, reason=WHY)


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
    argv = _launch_command(launcher)  # no stamp yet: would sync first; dry run shows uv run
    assert Path(argv[0]).name.startswith("uv")
    assert argv[1:] == ["run", "--project", str(ws), "--frozen", "ctx-tree-mcp", "--flag"]
    _stamp(ws, age_of_inputs=60)
    out = subprocess.run(["sh", str(launcher), "--flag"], capture_output=True, text=True)
    assert out.stdout == "entry point --flag\n"  # exec'd directly: no python, no uv
    assert _launch_command(launcher) == [str(ws / ".venv" / "bin" / "ctx-tree-mcp"), "--flag"]
    os.utime(ws / "packages" / "ctx-tree-mcp" / "pyproject.toml")  # edited after the sync
    assert Path(_launch_command(launcher)[0]).name.startswith("uv")


def test_launcher_from_a_marketplace_copy_runs_the_pinned_release(tmp_path: Path) -> None:
    """Claude Code copies only plugin/ into its cache: no workspace beside it."""
    copy = tmp_path / "cache" / "ctx-tree"
    shutil.copytree(PLUGIN, copy)
    argv = _launch_command(copy / "bin" / "ctx-tree-launch")
    pin = f"ctx-tree-mcp=={MANIFEST['version']}"
    assert argv[1:] == ["tool", "run", "--from", pin, "ctx-tree-mcp", "--flag"]


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


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTX_TREE_", "CLAUDE"))}
    env.pop("ANTHROPIC_API_KEY", None)
    if "UV_CACHE_DIR" not in env and shutil.which("uv"):
        # Claude Code runs under a throw-away HOME; keep uv's real cache.
        cache = subprocess.run(["uv", "cache", "dir"], capture_output=True, text=True)
        if cache.returncode == 0:
            env["UV_CACHE_DIR"] = cache.stdout.strip()
    env.update(
        HOME=str(home),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        MCP_CONNECTION_NONBLOCKING="0",  # -p: wait for MCP servers before the first turn
        **extra,
    )
    return env


def _claude(
    *args: str, cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


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


class _FakeAnthropic(BaseHTTPRequestHandler):
    """Messages API: a tool_use of TOOL first, then a text quoting the tool_result."""

    tool_input: ClassVar[dict[str, Any]] = {}
    requests: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        type(self).requests.append({"path": self.path, "body": body})
        if "count_tokens" in self.path:
            return self._send(json.dumps({"input_tokens": 10}).encode(), "application/json")
        blocks, stop = self._plan(body)
        msg = {"id": "msg_fake", "type": "message", "role": "assistant",
               "model": body.get("model", "claude-fake"), "content": blocks,
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip
        if not body.get("stream"):
            return self._send(json.dumps(msg).encode(), "application/json")
        events = [("message_start", {"message": {**msg, "content": [], "stop_reason": None}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start, delta = (
                    {"type": "text", "text": ""},
                    {"type": "text_delta", "text": b["text"]},
                )
            else:
                start = {**b, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            events += [("content_block_start", {"index": i, "content_block": start}),
                       ("content_block_delta", {"index": i, "delta": delta}),
                       ("content_block_stop", {"index": i})]  # fmt: skip
        events += [("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 5}}),
                   ("message_stop", {})]  # fmt: skip
        sse = "".join(f"event: {n}\ndata: {json.dumps({'type': n, **d})}\n\n" for n, d in events)
        self._send(sse.encode(), "text/event-stream")

    def _plan(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        content = (body.get("messages") or [{}])[-1].get("content")
        for c in content if isinstance(content, list) else []:
            if isinstance(c, dict) and c.get("type") == "tool_result":
                text = c.get("content")
                if isinstance(text, list):
                    text = " ".join(x.get("text", "") for x in text if isinstance(x, dict))
                return [{"type": "text", "text": f"TOOL_RESULT_SEEN: {text}"}], "end_turn"
        if any(t.get("name") == TOOL for t in body.get("tools") or []):
            use = {"type": "tool_use", "id": "toolu_fake_1", "name": TOOL, "input": self.tool_input}
            return [use], "tool_use"
        return [{"type": "text", "text": "ok"}], "end_turn"

    def _send(self, data: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@needs_claude
def test_claude_calls_ctx_tree_read_through_the_plugin(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "calc.py").write_text(
        '"""Arithmetic."""\n\n\ndef add(a, b):\n    return a + b  # plugin-e2e-marker\n\n\n'
        + "".join(f"def f{i}(x):\n    return x * {i}\n\n\n" for i in range(200))
    )
    handler = type("Fake", (_FakeAnthropic,), {"tool_input": {"path": "calc.py", "symbol": "add"},
                                               "requests": []})  # fmt: skip
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        env = _env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
                   ANTHROPIC_API_KEY="sk-ant-offline-fake")  # fmt: skip
        run = _claude(
            "-p", "Read the function add in calc.py.", "--plugin-dir", str(PLUGIN),
            "--allowedTools", TOOL, "--output-format", "stream-json", "--verbose",
            cwd=project, env=env, timeout=180,
        )  # fmt: skip
    finally:
        server.shutdown()
    events = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    init = next(e for e in events if e.get("subtype") == "init")
    status = {s["name"]: s.get("status") for s in init.get("mcp_servers", [])}
    assert status.get("plugin:ctx-tree:ctx-tree") == "connected", (status, run.stderr[-2000:])
    assert TOOL in init["tools"]
    results = [c for e in events if e.get("type") == "user"
               for c in e.get("message", {}).get("content") or []
               if isinstance(c, dict) and c.get("type") == "tool_result"]  # fmt: skip
    assert results, run.stdout[-3000:]
    text = json.dumps(results[0].get("content"))
    assert not results[0].get("is_error"), text
    assert "plugin-e2e-marker" in text and "def add(a, b)" in text
    assert "f150" not in text  # the slice, not the whole file
    assert "calc.py" in text and "ctx-tree" in text  # the manifest came back too
    final = next(e for e in events if e.get("type") == "result")
    assert final.get("subtype") == "success" and run.returncode == 0
    # the model saw the slice; the store sits at the default ~/.ctx-tree (docs/configuration.md)
    assert any(
        "plugin-e2e-marker" in json.dumps(r["body"].get("messages")) for r in handler.requests
    )
    assert list((home / ".ctx-tree").glob("*/store.db"))


@needs_claude
def test_tools_are_offered_on_the_first_turn_under_load(tmp_path: Path) -> None:
    """Headless Claude Code waits only briefly for stdio servers before its first turn (a late
    server is left out of that turn with no warning). With four CPU-bound processes on the
    machine, the plugin's server must still be connected and its tools offered on turn one."""
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    handler = type("Fake", (_FakeAnthropic,), {"tool_input": {"path": "calc.py"}, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        env = _env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
                   ANTHROPIC_API_KEY="sk-ant-offline-fake")  # fmt: skip
        del env["MCP_CONNECTION_NONBLOCKING"]  # the host's own headless default
        run = _claude(
            "-p", "Read calc.py.", "--plugin-dir", str(PLUGIN), "--allowedTools", TOOL,
            "--output-format", "stream-json", "--verbose", cwd=project, env=env, timeout=180,
        )  # fmt: skip
    finally:
        for p in burners:
            p.kill()
            p.wait()
        server.shutdown()
    events = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    init = next(e for e in events if e.get("subtype") == "init")
    status = {s["name"]: s.get("status") for s in init.get("mcp_servers", [])}
    assert status.get("plugin:ctx-tree:ctx-tree") == "connected", (status, run.stderr[-2000:])
    assert TOOL in init["tools"]
    first = next(r["body"] for r in handler.requests if "messages" in r["body"])
    offered = {t.get("name") for t in first.get("tools") or []}
    assert {TOOL, TOOL.replace("ctx_tree_read", "ctx_tree_grep")} <= offered
