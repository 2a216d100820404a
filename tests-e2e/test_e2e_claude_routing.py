"""Real Claude Code, offline: routing (docs/routing.md) through its PreToolUse ``mcp_tool`` hook.

A big ``cat`` in the project comes back cut with ctx-tree's manifest line; a run the user's
settings allow comes back as a digest with its exit code; and routing never widens the host's
permissions: a denied original is denied, an asked one asked, a run the host would ask about
is not run, and an untrusted project's own allow rule does not count. The hooks are the
routing entry of the plugin's (``wire.route.claude_hook_entry``), given through settings.
"""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from claude_support import ROOT, FakeAnthropic, needs_claude, stream_events, tool_results
from claude_support import claude_env as _env
from claude_support import run_claude as _claude
from ctx_tree_mcp.wire.route import claude_hook_entry

pytestmark = needs_claude
SERVER = ROOT / ".venv" / "bin" / "ctx-tree-mcp"
GEN = (
    "import pathlib, sys\n"
    "pathlib.Path('ran.marker').write_text('x')\n"
    "for i in range(3000): print(f'tests/test_mod.py::test_{i} PASSED')\n"
    "print('E   AssertionError: expected 3, got 4')\n"
    "print('== 1 failed, 2999 passed in 1.0s ==')\n"
    "sys.exit(1)\n"
)


class _OneAtATime(FakeAnthropic):
    """One ``tool_use`` per turn, in order (the first a warm-up that gives the server's routing
    time to start), then a text."""

    tool_uses: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def _plan(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        done = sum(
            1
            for m in body.get("messages") or []
            for c in (m.get("content") if isinstance(m.get("content"), list) else [])
            if isinstance(c, dict) and c.get("type") == "tool_result"
        )
        if done < len(self.tool_uses):
            name, tool_input = self.tool_uses[done]
            return [
                {"type": "tool_use", "id": f"toolu_r_{done}", "name": name, "input": tool_input}
            ], "tool_use"
        return [{"type": "text", "text": "done"}], "end_turn"


def _turn(
    tmp_path: Path,
    command: str,
    *,
    user: dict[str, list[str]] | None = None,
    project: dict[str, list[str]] | None = None,
    sandbox: bool = False,
    plugin: bool = False,
) -> tuple[list[dict[str, Any]], Path, str]:
    """Run ``command`` through the host's Bash with the routing hooks (the settings' entry, or
    with ``plugin`` the plugin's generated ``hooks.json`` and its server); returns the
    stream's events, the project and the command's tool_result text."""
    if not SERVER.exists():
        pytest.skip("no workspace environment with ctx-tree-mcp")
    home, proj = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    (proj / ".claude").mkdir(parents=True)
    (proj / "big.txt").write_text("".join(f"line {i} of a big file\n" for i in range(6000)))
    (proj / "gen.py").write_text(GEN)
    user_settings: dict[str, Any] = {"permissions": user or {}}
    if sandbox:
        user_settings["sandbox"] = {"enabled": True, "failIfUnavailable": True}
    (home / ".claude" / "settings.json").write_text(json.dumps(user_settings))
    settings: dict[str, Any] = {"permissions": project or {}}
    if not plugin:
        settings["hooks"] = {"PreToolUse": [claude_hook_entry("ctx-tree")]}
    (proj / ".claude" / "settings.json").write_text(json.dumps(settings))
    mcp = {
        "mcpServers": {
            "ctx-tree": {"command": str(SERVER), "env": {"CTX_TREE_HOME": str(tmp_path / "ctx")}}
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(mcp))
    uses = [
        ("Bash", {"command": "sleep 2", "description": "warm up"}),
        ("Bash", {"command": command, "description": "run"}),
    ]
    handler = type("Fake", (_OneAtATime,), {"tool_uses": uses, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = _env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
                   ANTHROPIC_API_KEY="sk-ant-offline-fake", CLAUDE_PROJECT_DIR=str(proj),
                   CTX_TREE_HOME=str(tmp_path / "ctx"))  # fmt: skip
        where = (
            ["--plugin-dir", str(ROOT / "plugin")]
            if plugin
            else ["--mcp-config", str(tmp_path / "mcp.json")]
        )
        run = _claude(
            "-p", "Run the commands.", *where,
            "--output-format", "stream-json", "--verbose", "--include-hook-events", cwd=proj,
            env=env, timeout=180,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    events = stream_events(run)
    results = [r for r in tool_results(events) if r.get("tool_use_id") == "toolu_r_1"]
    assert results, (events[-3:], run.stderr[-2000:])
    content = results[0].get("content")
    text = (
        content
        if isinstance(content, str)
        else " ".join(c.get("text", "") for c in content or [] if isinstance(c, dict))
    )
    return events, proj, text


def test_a_big_read_inside_the_project_is_routed(tmp_path: Path) -> None:
    _events, proj, text = _turn(tmp_path, "cat big.txt")
    assert "-- ctx-tree: big.txt" in text and "sed -n" in text
    assert len(text) < len((proj / "big.txt").read_text()) / 10
    assert text.startswith("## lines 1-")  # no outline: a text file has no definitions


def test_a_run_the_users_rules_allow_is_routed_and_keeps_its_exit_code(tmp_path: Path) -> None:
    _events, proj, text = _turn(tmp_path, "python3 gen.py", user={"allow": ["Bash(*python* *)"]})
    assert (proj / "ran.marker").exists()
    assert text.startswith("Exit code 1"), text[:200]
    assert "AssertionError: expected 3, got 4" in text and "1 failed, 2999 passed" in text
    assert "-- ctx-tree: node" in text and len(text) < 8000


def test_the_plugins_own_hooks_route_a_big_read(tmp_path: Path) -> None:
    """A marketplace install routes: the plugin's generated hooks.json carries the entry."""
    _events, proj, text = _turn(tmp_path, "cat big.txt", plugin=True)
    assert "-- ctx-tree: big.txt" in text and "sed -n" in text
    assert len(text) < len((proj / "big.txt").read_text()) / 10


def test_through_the_plugin_a_denied_original_is_left_to_the_host(tmp_path: Path) -> None:
    _events, _proj, text = _turn(
        tmp_path, "cat big.txt", user={"deny": ["Bash(cat:*)"]}, plugin=True
    )
    assert "denied" in text and "-- ctx-tree" not in text


def test_a_denied_original_is_left_to_the_host(tmp_path: Path) -> None:
    _events, _proj, text = _turn(tmp_path, "cat big.txt", user={"deny": ["Bash(cat:*)"]})
    assert "denied" in text and "-- ctx-tree" not in text


def test_an_asked_original_is_still_asked(tmp_path: Path) -> None:
    events, _proj, text = _turn(tmp_path, "cat big.txt", user={"ask": ["Bash(cat:*)"]})
    final = next(e for e in events if e.get("type") == "result")
    assert any(d.get("tool_name") == "Bash" for d in final.get("permission_denials") or []), final
    assert "-- ctx-tree" not in text


def test_a_run_the_host_would_ask_about_does_not_run(tmp_path: Path) -> None:
    _events, proj, text = _turn(tmp_path, "python3 gen.py")
    assert not (proj / "ran.marker").exists()
    assert "approval" in text or "denied" in text, text[:300]


def test_an_untrusted_projects_allow_rule_does_not_route(tmp_path: Path) -> None:
    """The host ignores an untrusted project's allow rules, so routing does too."""
    _events, proj, text = _turn(tmp_path, "python3 gen.py", project={"allow": ["Bash(*python* *)"]})
    assert not (proj / "ran.marker").exists()
    assert "-- ctx-tree" not in text


def test_inside_the_hosts_sandbox_routing_steps_aside_and_never_fails(tmp_path: Path) -> None:
    """The command runs sandboxed, and so does the client: the sandbox keeps it from the
    server's socket, so it prints the output as it was, the command's status unchanged."""
    import shutil
    import subprocess

    if (
        shutil.which("bwrap") is None
        or subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "true"], capture_output=True
        ).returncode
    ):
        pytest.skip("bubblewrap cannot run here")
    events, proj, text = _turn(tmp_path, "cat big.txt", sandbox=True)
    rewrites = [
        e
        for e in events
        if e.get("subtype") == "hook_response" and "updatedInput" in (e.get("output") or "")
    ]
    assert rewrites, "the command was not routed"
    assert "-- ctx-tree" not in text
    assert text.strip() == (proj / "big.txt").read_text().strip() or "persisted-output" in text
