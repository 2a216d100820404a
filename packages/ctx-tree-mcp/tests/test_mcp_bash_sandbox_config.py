"""The host's sandbox settings as the sandbox runtime's config (no runtime needed)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from ctx_tree_mcp.bash import sandbox
from ctx_tree_mcp.bash.tool import bash
from ctx_tree_mcp.errors import ToolInputError


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_off_unless_enabled(root: Path) -> None:
    assert sandbox.host_sandbox(root) is None
    _write(root / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    assert sandbox.host_sandbox(root) is None


def test_higher_files_win_lists_join_and_rules_add_paths_and_domains(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "claude-user" / "settings.json"  # CLAUDE_CONFIG_DIR of the tests
    _write(user, {
        "sandbox": {"enabled": False, "network": {"allowedDomains": ["pypi.org"]},
                    "filesystem": {"allowWrite": ["~/.cache"]}},
        "permissions": {"allow": ["WebFetch(domain:github.com)", "Edit(//opt/out/**)"],
                        "deny": ["Read(~/.ssh/**)", "WebFetch(domain:evil.test)"]},
    })  # fmt: skip
    local = root / ".claude" / "settings.local.json"
    _write(
        local,
        {
            "sandbox": {
                "enabled": True,
                "filesystem": {"denyWrite": ["secrets"]},
                "credentials": {"envVars": [{"name": "T", "mode": "deny"}]},
            }
        },
    )
    box = sandbox.host_sandbox(root)
    assert box is not None and box.source == str(local)
    config = sandbox.srt_config(box, root)
    home = str(Path("~").expanduser())
    assert config["filesystem"]["allowWrite"] == [
        str(root),
        tempfile.gettempdir(),
        f"{home}/.cache",
        "/opt/out",
    ]
    assert config["filesystem"]["denyWrite"] == [str(root / "secrets")]
    assert config["filesystem"]["denyRead"] == [f"{home}/.ssh"]
    assert config["network"] == {"allowedDomains": ["pypi.org", "github.com"],
                                 "deniedDomains": ["evil.test"]}  # fmt: skip
    assert config["credentials"] == {"envVars": [{"name": "T", "mode": "deny"}]}


def test_unavailable_runtime_refuses_only_when_the_host_says_so(
    app, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(sandbox.SRT_ENV, str(tmp_path / "missing-srt"))
    _write(
        root / ".claude" / "settings.json",
        {"sandbox": {"enabled": True, "failIfUnavailable": True}},
    )
    with pytest.raises(ToolInputError) as err:
        bash(app, f"touch {root / 'm'}")
    assert "cannot start here" in str(err.value) and not (root / "m").exists()
    _write(root / ".claude" / "settings.json", {"sandbox": {"enabled": True}})
    answer = bash(app, f"touch {root / 'm'}")
    assert (root / "m").exists()
    assert answer.splitlines()[1].startswith("note: ran WITHOUT the host's sandbox")


def test_doctor_says_which_rules_and_sandbox_apply(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctx_tree_mcp.doctor import check_bash_rules, check_sandbox

    assert "no Bash(...) rules" in check_bash_rules(root).detail
    assert check_sandbox(root).ok and "off" in check_sandbox(root).detail
    settings = root / ".claude" / "settings.json"
    _write(settings, {"permissions": {"deny": ["Bash(curl:*)"], "ask": ["Bash(git push:*)"]},
                      "sandbox": {"enabled": True, "failIfUnavailable": True}})  # fmt: skip
    rules = check_bash_rules(root)
    assert (
        rules.ok
        and rules.detail.startswith("1 deny, 1 ask from ")
        and str(settings) in rules.detail
    )
    monkeypatch.setenv(sandbox.SRT_ENV, str(tmp_path / "missing-srt"))
    box = check_sandbox(root)
    assert not box.ok and "every command is refused" in box.detail and "npm install" in box.fix
