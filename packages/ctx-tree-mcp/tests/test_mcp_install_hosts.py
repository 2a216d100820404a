"""``ctx-tree install/uninstall HOST`` and ``doctor --host``: what lands in each host's files,
that foreign entries survive, idempotence, backups, dry-run diffs and the documented schemas of
the hosts that cannot be run here (Cursor, VS Code, Zed)."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path

import pytest
import yaml
from ctx_tree_mcp.cli.install import HOSTS, apply, status
from ctx_tree_mcp.errors import ToolInputError


def files(base: Path) -> dict[str, str]:
    return {
        str(p.relative_to(base)): p.read_text()
        for p in sorted(base.rglob("*"))
        if p.is_file() and not p.name.endswith(".ctx-tree.bak")
    }


@pytest.mark.parametrize("host", list(HOSTS))
def test_install_is_idempotent_and_uninstall_leaves_nothing(host, where):
    home, root = where
    scope = HOSTS[host].scopes[-1]
    base = root if scope == "project" else home
    first = apply(host, scope, root, home=home)
    assert "wrote" in first
    written = files(base)
    assert written, first
    assert any("ctx-tree" in text for text in written.values())
    assert "CTX_TREE_HOME" in "".join(written.values())  # hosts that pass no environment
    second = apply(host, scope, root, home=home)
    assert "already installed; nothing to change" in second
    assert files(base) == written
    report, code = status(host, scope, root, home=home)
    assert code == 0 and "missing" not in report and "stale" not in report
    apply(host, scope, root, install=False, home=home)
    assert files(base) == {}
    report, code = status(host, scope, root, home=home)
    assert code == 1 and f"run: ctx-tree install {host}" in report


def test_foreign_entries_survive_and_a_backup_is_kept(where):
    home, root = where
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    mine = {
        "theme": "dark",
        "mcpServers": {"other": {"command": "other-server"}},
        "hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "my-hook"}]}]},
    }
    settings.write_text(json.dumps(mine))
    apply("gemini", "user", root, home=home)
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark"
    assert set(data["mcpServers"]) == {"other", "ctx-tree"}
    commands = [h["command"] for g in data["hooks"]["AfterTool"] for h in g["hooks"]]
    assert "my-hook" in commands and any("ctx_tree_hook.sh gemini AfterTool" in c for c in commands)
    ours = [h for g in data["hooks"]["BeforeTool"] for h in g["hooks"]]
    assert ours[0]["timeout"] == 10000  # Gemini counts milliseconds
    backup = settings.with_name("settings.json.ctx-tree.bak")
    assert json.loads(backup.read_text()) == mine
    apply("gemini", "user", root, install=False, home=home)
    assert json.loads(settings.read_text()) == mine


def test_dry_run_prints_the_diff_and_writes_nothing(where):
    home, root = where
    out = apply("codex", "user", root, dry_run=True, home=home)
    assert "+++ " + str(home / ".codex" / "config.toml") in out
    assert "+[mcp_servers.ctx-tree]" in out
    assert not (home / ".codex").exists()


def test_codex_dry_run_says_what_trust_is_what_is_written_and_how_by_hand(
    where, tmp_path, monkeypatch
):
    home, root = where
    out = apply("codex", "user", root, dry_run=True, home=home)
    assert "Codex runs a hook only once you have trusted it; it skips the others silently" in out
    assert "`codex` is not on PATH, so the install cannot ask Codex" in out
    assert "By hand: open `codex`, run /hooks and trust the ctx-tree hooks." in out
    bin_dir = tmp_path / "bin"  # a codex on PATH: the plan names the file and the table
    bin_dir.mkdir()
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    out = apply("codex", "user", root, dry_run=True, home=home)
    assert f"records them in {home / '.codex' / 'config.toml'}" in out
    assert '[hooks.state."<key>"] trusted_hash = "<hash>"' in out
    assert not (home / ".codex").exists()


def test_codex_toml_keeps_comments_and_other_tables(where):
    home, root = where
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# my settings\nmodel = "o9"\n\n[mcp_servers.other]\ncommand = "x"\n')
    out = apply("codex", "user", root, home=home)
    text = config.read_text()
    assert text.startswith('# my settings\nmodel = "o9"')
    parsed = tomllib.loads(text)
    assert set(parsed["mcp_servers"]) == {"other", "ctx-tree"}
    assert parsed["mcp_servers"]["ctx-tree"]["env"]["CTX_TREE_HOME"]
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
    assert "/hooks" in out  # without codex on PATH: the one thing to do by hand
    apply("codex", "user", root, install=False, home=home)
    assert tomllib.loads(config.read_text()) == {
        "model": "o9",
        "mcp_servers": {"other": {"command": "x"}},
    }


def test_bad_config_is_refused_untouched(where):
    home, root = where
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ // a comment\n}")
    with pytest.raises(ToolInputError, match="not valid JSON"):
        apply("gemini", "user", root, home=home)
    assert settings.read_text() == "{ // a comment\n}"
    with pytest.raises(ToolInputError, match="HOST: unknown host 'nope'"):
        apply("nope", "user", root, home=home)
    with pytest.raises(ToolInputError, match="--scope"):
        apply("cline", "project", root, home=home)


def test_cline_hooks_are_executables_and_the_users_own_are_kept(where):
    home, root = where
    hooks = home / ".cline" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse").write_text("#!/bin/sh\necho mine\n")
    apply("cline", "user", root, home=home)
    assert (hooks / "PreToolUse").read_text() == "#!/bin/sh\necho mine\n"
    start = hooks / "TaskStart"
    assert start.stat().st_mode & stat.S_IXUSR
    assert "ctx_tree_hook.sh cline TaskStart" in start.read_text()
    mcp = json.loads((home / ".cline/data/settings/cline_mcp_settings.json").read_text())
    assert mcp["mcpServers"]["ctx-tree"]["disabled"] is False


def test_continue_config_yaml_keeps_models(where):
    home, root = where
    config = home / ".continue" / "config.yaml"
    config.parent.mkdir()
    config.write_text(
        "name: mine\nversion: 1.0.0\nschema: v1\nmodels:\n- name: m\n  provider: openai\n"
    )
    apply("continue", "user", root, home=home)
    data = yaml.safe_load(config.read_text())
    assert data["models"] == [{"name": "m", "provider": "openai"}]
    assert [s["name"] for s in data["mcpServers"]] == ["ctx-tree"]
    apply("continue", "project", root, home=home)
    block = yaml.safe_load((root / ".continue/mcpServers/ctx-tree.yaml").read_text())
    assert block["schema"] == "v1" and block["mcpServers"][0]["name"] == "ctx-tree"


# --- documented schemas of the hosts that cannot be installed here -------------------------


def test_cursor_config_matches_its_documented_schema(where):
    home, root = where
    apply("cursor", "project", root, home=home)
    mcp = json.loads((root / ".cursor/mcp.json").read_text())
    entry = mcp["mcpServers"]["ctx-tree"]
    assert isinstance(entry["command"], str) and isinstance(entry["args"], list)
    hooks = json.loads((root / ".cursor/hooks.json").read_text())
    assert hooks["version"] == 1
    documented = {
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "afterShellExecution",
        "afterAgentResponse",
        "stop",
        "sessionEnd",
    }
    assert set(hooks["hooks"]) <= documented
    for entries in hooks["hooks"].values():  # flat entries: {command, matcher?}
        assert all(
            set(e) <= {"command", "matcher"} and "ctx_tree_hook.sh cursor" in e["command"]
            for e in entries
        )


def test_vscode_config_matches_its_documented_schema(where):
    home, root = where
    apply("vscode", "project", root, home=home)
    servers = json.loads((root / ".vscode/mcp.json").read_text())["servers"]
    assert servers["ctx-tree"]["type"] == "stdio"
    assert set(servers["ctx-tree"]) <= {"type", "command", "args", "env", "envFile", "cwd"}
    hooks = json.loads((root / ".github/hooks/ctx-tree.json").read_text())["hooks"]
    documented = {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreCompact",
        "SubagentStart",
        "SubagentStop",
        "Stop",
    }
    assert set(hooks) <= documented
    for groups in hooks.values():
        for group in groups:
            assert all(h["type"] == "command" and h["timeout"] == 10 for h in group["hooks"])


def test_zed_config_matches_its_documented_schema(where):
    home, root = where
    apply("zed", "user", root, home=home)
    data = json.loads((home / ".config/zed/settings.json").read_text())
    entry = data["context_servers"]["ctx-tree"]
    assert set(entry) <= {"command", "args", "env"} and isinstance(entry["command"], str)


def test_claude_install_turns_routing_on_and_uninstall_takes_it_off(where):
    """The routing entry (docs/routing.md): mcp_tool hooks calling the ctx-tree server this
    install registers, one per if-condition; the user's own PreToolUse hooks are kept."""
    home, root = where
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}]
        }
    }
    settings.write_text(json.dumps(mine))
    apply("claude", "user", root, home=home)
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    route = [h for g in groups for h in g["hooks"] if h.get("tool") == "ctx_tree_route"]
    assert route and {h["server"] for h in route} == {"ctx-tree"}
    assert {h["type"] for h in route} == {"mcp_tool"} and "Bash(pytest *)" in {
        h["if"] for h in route
    }
    assert any(h.get("command") == "mine" for g in groups for h in g["hooks"])
    registered = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert "ctx-tree" in registered
    apply("claude", "user", root, install=False, home=home)
    assert json.loads(settings.read_text()) == mine
