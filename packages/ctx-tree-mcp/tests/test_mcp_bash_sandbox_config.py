"""The host's sandbox settings as the sandbox runtime's config (no runtime needed)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from ctx_tree_mcp.engines.shell import sandbox
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.bash import bash


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
    # touch printed nothing: the answer is the note alone, as the complete answer's footer
    assert answer.startswith("-- ctx-tree: ran WITHOUT the host's sandbox"), answer
    assert answer.count("\n") == 1


def test_doctor_says_which_rules_and_sandbox_apply(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctx_tree_mcp.cli.doctor import check_bash_rules, check_sandbox

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


def _codex_home(tmp_path: Path, text: str) -> dict[str, str]:
    home = tmp_path / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(text)
    return {"CODEX_HOME": str(home)}


@pytest.mark.parametrize(
    ("argv", "config", "mode", "source"),
    [
        (["codex"], "", "read-only", "untrusted"),
        (["codex", "exec", "-s", "workspace-write"], 'sandbox_mode = "read-only"\n',
         "workspace-write", "command line"),
        (["codex", "--full-auto"], "", "workspace-write", "command line"),
        (["codex", "--yolo"], "", "danger-full-access", "command line"),
        (["codex", "-c", "sandbox_mode=workspace-write"], "", "workspace-write", "-c"),
        (["codex", "-p", "ci"], '[profiles.ci]\nsandbox_mode = "workspace-write"\n',
         "workspace-write", "profile ci"),
        (["codex"], 'sandbox_mode = "danger-full-access"\n', "danger-full-access", "codex-home"),
        (["codex"], 'sandbox_mode = "bogus"\n', "read-only", "unknown"),
    ],
)  # fmt: skip
def test_codex_sandbox_mode_is_read_as_codex_reads_it(
    root: Path, tmp_path: Path, argv: list[str], config: str, mode: str, source: str
) -> None:
    from ctx_tree_mcp.engines.shell.codex import codex_sandbox

    got = codex_sandbox(root, argv, _codex_home(tmp_path, config))
    assert got is not None and got["mode"] == mode and source in got["source"], got


def test_codex_trusted_project_defaults_to_workspace_write(root: Path, tmp_path: Path) -> None:
    from ctx_tree_mcp.engines.shell.codex import codex_sandbox

    env = _codex_home(
        tmp_path,
        f'[projects."{root}"]\ntrust_level = "trusted"\n'
        '[sandbox_workspace_write]\nwritable_roots = ["/opt/cache"]\nnetwork_access = true\n',
    )
    got = codex_sandbox(root, ["codex"], env)
    assert got == {"mode": "workspace-write", "writable_roots": ["/opt/cache"],
                   "network_access": True, "source": "Codex's default for a trusted project"}  # fmt: skip


def test_codex_modes_become_the_runtimes_confinement(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in _codex_home(tmp_path, 'sandbox_mode = "read-only"\n').items():
        monkeypatch.setenv(key, value)
    box = sandbox.codex_box(root, ["codex"])
    assert box is not None and not box.project_writable
    assert sandbox.srt_config(box, root)["filesystem"]["allowWrite"] == []
    assert sandbox.srt_config(box, root)["network"]["allowedDomains"] == []
    box = sandbox.codex_box(root, ["codex", "-s", "workspace-write"])
    assert box is not None
    assert sandbox.srt_config(box, root)["filesystem"]["allowWrite"][:2] == [
        str(root),
        tempfile.gettempdir(),
    ]
    assert sandbox.codex_box(root, ["codex", "--yolo"]) is None  # unconfined, as for Codex
    assert sandbox.codex_box(root, None) is None  # not under codex (pytest's ancestors)
