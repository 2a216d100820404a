"""What routing would have saved on past Claude Code sessions (``route/past.py``): transcripts
read, routed answers made from the recorded outputs, references judged."""

from __future__ import annotations

import json
from pathlib import Path

from ctx_tree_mcp.cli.main import main
from ctx_tree_mcp.route import past

RUN_OUTPUT = "".join(f"tests/test_api.py::test_{i} PASSED\n" for i in range(2500)) + (
    "tests/test_auth.py::test_login_expired FAILED\n"
    "E   AssertionError: token_expiry_seconds was 0\n"
    "== 1 failed, 2500 passed in 9.1s ==\n"
)


def _transcript(path: Path, cwd: Path) -> None:
    entries = [
        {"type": "user", "message": {"role": "user", "content": "fix the login test"}},
        {
            "type": "assistant",
            "cwd": str(cwd),
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "pytest -q"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "Exit code 1\n" + RUN_OUTPUT,
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "`token_expiry_seconds` is 0 in test_login_expired."},
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Bash",
                        "input": {"command": "git status"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "clean"}],
            },
        },
    ]
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")


def test_transcript_calls_carry_what_came_next(tmp_path: Path) -> None:
    t = tmp_path / "s.jsonl"
    _transcript(t, tmp_path)
    first, second = past.calls(t)
    assert (
        first.command == "pytest -q" and first.output == RUN_OUTPUT and first.cwd == str(tmp_path)
    )
    assert "token_expiry_seconds" in first.next_text and first.next_input == {
        "command": "git status"
    }
    assert second.output == "clean"
    refs = past.references(first)
    assert ("ident", "token_expiry_seconds") in refs and ("ident", "test_login_expired") in refs


def test_the_report_counts_and_judges_as_the_measurement_does(tmp_path: Path, capsys) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    folder = tmp_path / "transcripts"
    folder.mkdir()
    _transcript(folder / "a.jsonl", root)
    tallies = past.measure([folder / "a.jsonl"], root, 2000, 1200)
    run = tallies["run"]
    assert run.calls == 1 and run.routed < run.native / 10
    assert (run.judged, run.kept) == (1, 1)  # the failure it named is in the answer
    assert set(tallies) == {"run"}  # `git status` is not routed
    main(["--root", str(root), "savings", "--transcripts", str(folder)])
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.startswith("run "))
    assert row[1] == "1" and row[-1] == "1/1"
    # Claude Code's folder name: the path with every character but letters and digits as "-"
    named = past.transcript_dir(Path("/w/my_proj.x"), {"HOME": "/h"})
    assert named == Path("/h/.claude/projects/-w-my-proj-x")
    configured = past.transcript_dir(Path("/w"), {"CLAUDE_CONFIG_DIR": "/c", "HOME": "/h"})
    assert configured == Path("/c/projects/-w")


def test_an_answer_without_the_reference_is_not_kept() -> None:
    assert not past.kept([("ident", "token_expiry_seconds")], "1 failed")
    assert past.kept([("edit", "x = compute(a, b)")], "12\tx  =  compute(a, b)\n")


def test_doctor_reports_routing(tmp_path: Path, monkeypatch) -> None:
    from ctx_tree_mcp.cli.doctor import check_routing

    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    check = check_routing(root, home)
    assert (
        check is not None and check.ok and check.detail.startswith(f"on; socket in {home / 'run'}")
    )
    # the clone's plugin carries the routing entry in its generated hooks.json
    assert "client starts in" in check.detail and check.detail.endswith(
        f"hooked in {Path(__file__).resolve().parents[3] / 'plugin' / 'hooks' / 'hooks.json'}"
    )
    from ctx_tree_mcp.cli import doctor

    monkeypatch.setattr(doctor, "find_plugin", lambda _root: None)  # no plugin found
    unhooked = check_routing(root, home)
    assert unhooked is not None and "no hook asks ctx-tree yet" in unhooked.detail
    (tmp_path / "claude").mkdir()
    hooked = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "tool": "ctx_tree_route"}]}]}
    }
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(hooked))
    hooked_check = check_routing(root, home)
    assert hooked_check is not None and "hooked in" in hooked_check.detail
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "config.json").write_text('{"route": {"enabled": false}}')
    off = check_routing(root, home)
    assert off is not None and off.detail == "off (route.enabled is false)"
    (root / ".ctx-tree" / "config.json").write_text("{bad")
    assert check_routing(root, home) is None  # the config check says why
