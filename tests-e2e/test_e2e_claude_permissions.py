"""Real Claude Code, offline: its own Bash(...) permission rules apply to ctx_tree_bash.

A deny in the project's ``.claude/settings.json`` keeps the command from ever starting (a
marker file is not created) and the model is told which rule; an ask goes through the host's
permission flow (headless ``-p`` cannot prompt, so the host records a permission denial and
the command does not run); a command no rule covers runs. ``nox -s plugin`` runs these.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_support import PLUGIN, fake_api, needs_claude, stream_events, tool_results
from claude_support import claude_env as _env
from claude_support import run_claude as _claude

pytestmark = needs_claude
TOOL = "mcp__plugin_ctx-tree_ctx-tree__ctx_tree_bash"


def _turn(tmp_path: Path, command: str, **rules: list[str]) -> tuple[list[dict[str, Any]], Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}))
    with fake_api([(TOOL, {"command": command})]) as (url, _handler):
        env = _env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake",
                   CTX_TREE_HOME=str(tmp_path / "ctx"))  # fmt: skip
        run = _claude(
            "-p", "Run the command.", "--plugin-dir", str(PLUGIN), "--allowedTools", TOOL,
            "--output-format", "stream-json", "--verbose", cwd=project, env=env, timeout=180,
        )  # fmt: skip
    events = stream_events(run)
    init = next(e for e in events if e.get("subtype") == "init")
    assert TOOL in init["tools"], (init.get("mcp_servers"), run.stderr[-2000:])
    return events, project


def _text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return " ".join(c.get("text", "") for c in content or [] if isinstance(c, dict))


def test_a_denied_command_never_starts_and_the_model_is_told_the_rule(tmp_path: Path) -> None:
    events, project = _turn(tmp_path, "echo hi && touch marker", deny=["Bash(touch:*)"])
    assert not (project / "marker").exists()
    results = tool_results(events)
    assert results and results[0].get("is_error"), events[-3:]
    assert "Bash(touch:*)" in _text(results[0])


def test_an_asked_command_goes_to_the_hosts_permission_flow(tmp_path: Path) -> None:
    events, project = _turn(tmp_path, "touch marker", ask=["Bash(touch:*)"])
    assert not (project / "marker").exists()
    final = next(e for e in events if e.get("type") == "result")
    denied = [d.get("tool_name") for d in final.get("permission_denials") or []]
    results = tool_results(events)
    assert TOOL in denied, final  # the host's own prompt took it (headless: no one to say yes)
    assert results and "ask rule Bash(touch:*)" in _text(results[0]), results


def test_a_command_no_rule_covers_runs(tmp_path: Path) -> None:
    events, project = _turn(tmp_path, "touch marker && echo done", deny=["Bash(curl:*)"])
    results = tool_results(events)
    assert results and not results[0].get("is_error"), _text(results[0]) if results else events
    assert (project / "marker").exists()
