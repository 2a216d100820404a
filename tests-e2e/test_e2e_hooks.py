"""The plugin's hook program (``plugin/hooks/ctx_tree_hook.py``) run as the host runs it:
a ``python3 -I -S`` process per event, the payload on stdin. What it spools, what it never
keeps, what it prints, and that a new session recalls it all once ingested."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_mcp.capture.ingest import ingest
from ctx_tree_mcp.tools import compose, graph, search
from ctx_tree_schema import DEFAULTS, MINIMUMS
from e2e_support import run_client, text_of

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "plugin" / "hooks" / "ctx_tree_hook.py"
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
#: The python3 the hooks run under: the host's, so the oldest the hooks support in the
#: ``hooks-oldest`` nox session (``CTX_TREE_HOOK_PYTHON``); this interpreter otherwise.
HOOK_PYTHON = os.environ.get("CTX_TREE_HOOK_PYTHON") or sys.executable


def hook(event: str, payload: object, *, home: Path, root: Path, **env: str):
    """Run the hook once; returns the completed process (stdout and stderr as bytes)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(HOOK), event],
        input=data,
        capture_output=True,
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CTX_TREE_HOME": str(home),
            "CLAUDE_PROJECT_DIR": str(root),
            **env,
        },
        timeout=20,
    )


def base_payload(root: Path, **extra: object) -> dict:
    return {"session_id": "sess-A", "cwd": str(root), "transcript_path": "", **extra}


@pytest.fixture
def big(project: Path) -> Path:
    path = project / "pkg" / "big.py"
    path.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(1000)))
    return path


def spooled(home: Path, root: Path) -> list[dict]:
    base = spool_dir(home, root)
    return [json.loads((base / "new" / n).read_text()) for n in spool.waiting(base)]


def every_file(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file()]


def test_the_hooks_settings_default_to_the_schemas() -> None:
    """With no config file, the hook's settings are ctx_tree_schema's defaults (its copy of
    them is generated: test_mcp_plugin_files.py fails when it drifts)."""
    from ctx_tree_mcp.wire.spool import SECTIONS, generated, settings

    got = settings("/nonexistent-home", "/nonexistent-root")
    assert got == {section: DEFAULTS[section] for section in SECTIONS}
    minimums = {k: v for k, v in MINIMUMS.items() if k.split(".")[0] in SECTIONS}
    assert minimums == generated()["minimums"]


def test_a_max_bytes_below_the_minimum_counts_as_absent(project: Path, home: Path) -> None:
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": 10}}')
    payload = base_payload(project, tool_name="Bash", tool_input={"command": "make"},
                           tool_response={"stdout": "built " * 100, "stderr": ""})  # fmt: skip
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    (event,) = spooled(home, project)
    assert event["text"] == "built " * 100  # not cut to 10 bytes


def test_a_routed_command_is_not_spooled_again(project: Path, home: Path) -> None:
    """The server that answered a routed command stored its whole output (docs/routing.md):
    the capture hook writes nothing for it; the same command not routed is spooled."""
    routed = (
        "set -o pipefail; cat app.log | /usr/bin/python3 -I -S /x/route_client.py read 2000 /s t1"
    )
    for command in (routed, "cat app.log"):
        payload = base_payload(project, tool_name="Bash", tool_input={"command": command},
                               tool_response={"stdout": "line\n" * 500, "stderr": ""})  # fmt: skip
        assert hook("post-tool", payload, home=home, root=project).returncode == 0
    assert [e["command"] for e in spooled(home, project)] == ["cat app.log"]


@pytest.mark.parametrize("tool", ["Bash", "Grep"])
@pytest.mark.parametrize("newline", [False, True])
def test_a_secret_across_the_max_bytes_cut_is_never_kept_in_part(
    project: Path, home: Path, newline: bool, tool: str
) -> None:
    """Output longer than capture.maxBytes is cut: the cut falls inside a token, and not one
    character of the token's secret part reaches the spool or the store."""
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": 2000}}')
    lead = ("log line\n" * 198 + "x" * 198) if newline else "x" * 1980
    text = lead + " " + TOKEN + "\nthe rest\n" + "y" * 3000  # the cut at 2000 is inside TOKEN
    if tool == "Bash":
        payload = base_payload(project, tool_name="Bash", tool_input={"command": "cat build.log"},
                               tool_response={"stdout": text, "stderr": ""})  # fmt: skip
    else:
        payload = base_payload(project, tool_name="Grep", tool_input={"pattern": "x", "output_mode": "content"},
                               tool_response={"mode": "content", "content": text})  # fmt: skip
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    secret_part = TOKEN[4:14].encode()
    assert not any(secret_part in p.read_bytes() for p in every_file(home))
    (event,) = spooled(home, project)
    assert event["original_chars"] == len(text)
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="tool_output", limit=1)
        assert len(app.store.get(node.id).content.encode()) <= 2000
    finally:
        app.close()
    assert not any(secret_part in p.read_bytes() for p in every_file(home))


def _hooked_and_stored(payload: dict, project: Path, home: Path) -> str:
    """The content of the one ``tool_output`` node stored from a hooked ``payload``."""
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="tool_output", limit=1)
        return app.store.get(node.id).content
    finally:
        app.close()


def test_a_long_command_output_keeps_its_head_and_its_verdict(project: Path, home: Path) -> None:
    """A hooked Bash output over capture.maxBytes is stored as ctx_tree_bash stores one: its
    first and last parts around a marker, so the verdict at its end is kept."""
    passing = "".join(f"tests/test_x.py::test_{i} PASSED\n" for i in range(8000))
    stdout = "== test session starts ==\n" + passing + "== 1 failed, 7999 passed in 3.2s ==\n"
    payload = base_payload(project, tool_name="Bash", tool_input={"command": "pytest -v"},
                           tool_response={"stdout": stdout, "stderr": ""})  # fmt: skip
    content = _hooked_and_stored(payload, project, home)
    max_bytes = DEFAULTS["capture"]["maxBytes"]
    assert len(content.encode()) <= max_bytes
    assert content.startswith("== test session starts ==\n")
    assert content.endswith("== 1 failed, 7999 passed in 3.2s ==\n")
    assert "bytes left out here" in content


def test_a_command_output_just_over_max_bytes_is_stored_once_with_a_true_count(
    project: Path, home: Path
) -> None:
    """The hook's head and tail windows of a command output overlap when it is only a little
    over capture.maxBytes: no line is stored twice and the marker counts the bytes really
    left out of the output."""
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": 2000}}')
    lines = [f"step {i:04d} ok\n" for i in range(200)]
    lines[100] = "step 0100 FAILED: boom\n"
    stdout = "".join(lines)  # 3,000 bytes: a third of it is left out
    payload = base_payload(project, tool_name="Bash", tool_input={"command": "make"},
                           tool_response={"stdout": stdout, "stderr": ""})  # fmt: skip
    content = _hooked_and_stored(payload, project, home)
    assert content.count("step 0100 FAILED: boom") == 1
    assert all(content.count(line) <= 1 for line in lines)
    kept = sum(len(line) for line in lines if line in content and "FAILED" not in line)
    left_out = int(content.split("[… ", 1)[1].split(" bytes left out", 1)[0].replace(",", ""))
    assert left_out == len(stdout) - kept


def test_each_event_is_spooled_private_and_redacted(project: Path, home: Path) -> None:
    root = project
    events = [
        ("prompt", base_payload(root, prompt=f"deploy with {TOKEN} please", prompt_id="p1")),
        ("post-tool", base_payload(root, tool_name="Read",
                                   tool_input={"file_path": str(root / "pkg" / "decoder.py")},
                                   tool_response={"type": "text", "file": {"content": "x"}})),
        ("post-tool", base_payload(root, tool_name="Bash", tool_input={"command": f"echo {TOKEN}"},
                                   tool_response={"stdout": TOKEN, "stderr": ""})),
        ("post-tool-failure", base_payload(root, tool_name="Bash", tool_input={"command": "pytest"},
                                           error="Exit code 1\nFAILED test_x.py::test_y")),
        ("post-tool", base_payload(root, tool_name="Grep", tool_input={"pattern": "def ", "output_mode": "content", "glob": f"*{TOKEN}*"},
                                   tool_response={"mode": "content", "content": "pkg/a.py:1:def a():"})),
        ("post-tool", base_payload(root, tool_name="WebFetch", tool_input={"url": "https://e.org", "prompt": "docs"},
                                   tool_response={"url": "https://e.org", "result": "Spawn docs text", "code": 200})),
        ("post-tool", base_payload(root, tool_name="Agent", tool_input={"description": "survey"},
                                   tool_response={"content": [{"type": "text", "text": "three entry points"}]})),
        ("stop", base_payload(root, prompt_id="p1", last_assistant_message="Deployed.")),
    ]  # fmt: skip
    for event, payload in events:
        done = hook(event, payload, home=home, root=root)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), event
    records = spooled(home, root)
    assert [r["kind"] for r in records] == [
        "prompt", "read", "bash", "bash", "grep", "web", "agent", "response",
    ]  # fmt: skip
    assert records[3]["exit_code"] == 1 and records[3]["text"] == "FAILED test_x.py::test_y"
    assert records[1] == records[1] | {"path": str(root / "pkg" / "decoder.py")}
    assert "text" not in records[1]  # a Read spools the path only
    assert all(r["session_id"] == "sess-A" and r["v"] == 1 for r in records)
    assert records[0]["redacted"] is True
    for path in every_file(home):
        assert TOKEN.encode() not in path.read_bytes(), path
    base = spool_dir(home, root)
    for folder in (home / "spool", base, base / "new", base / "tmp"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for name in spool.waiting(base):
        assert stat.S_IMODE((base / "new" / name).stat().st_mode) == 0o600


@pytest.mark.parametrize("command", ["env", "printenv", "cd /tmp && env", "FOO=1 printenv HOME"])
def test_environment_printers_are_never_spooled(project: Path, home: Path, command: str) -> None:
    payload = base_payload(
        project, tool_name="Bash", tool_input={"command": command},
        tool_response={"stdout": f"GITHUB_TOKEN={TOKEN}\nHOME=/root", "stderr": ""},
    )  # fmt: skip
    done = hook("post-tool", payload, home=home, root=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert spooled(home, project) == []
    assert not any(TOKEN.encode() in p.read_bytes() for p in every_file(home))


@pytest.mark.parametrize(
    "command", ["'en''v'", "e\\nv", "sh -c 'pr\"\"intenv'", "sudo -u x env", "git push origin"]
)
def test_refused_commands_are_never_spooled_however_they_are_written(
    project: Path, home: Path, command: str
) -> None:
    """The hook's quick test passes over commands that cannot be refused; quoted, escaped and
    wrapped forms of refused ones still hold a word, and are checked in full."""
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"bash": {"deny": ["git push"]}}')
    payload = base_payload(
        project, tool_name="Bash", tool_input={"command": command},
        tool_response={"stdout": f"GITHUB_TOKEN={TOKEN}\nHOME=/root", "stderr": ""},
    )  # fmt: skip
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    assert spooled(home, project) == []


def test_a_command_that_cannot_be_refused_is_checked_without_loading_re(
    project: Path, home: Path
) -> None:
    """A command holding no refusal word is spooled as checked by the quick test alone: the
    hook's process imports neither ``re`` nor ``shlex`` (~5 ms); one holding a word is checked
    in full (and refused here)."""
    imported = {}
    for command in ("pytest -q", "'en''v'"):
        payload = base_payload(project, tool_name="Bash", tool_input={"command": command},
                               tool_response={"stdout": "ok", "stderr": ""})  # fmt: skip
        done = subprocess.run(
            [HOOK_PYTHON, "-X", "importtime", "-I", "-S", str(HOOK), "post-tool"],
            input=json.dumps(payload).encode(), capture_output=True, check=True,
            env={"PATH": os.environ["PATH"], "CTX_TREE_HOME": str(home),
                 "CLAUDE_PROJECT_DIR": str(project)},
        )  # fmt: skip
        imported[command] = {
            line.rsplit("|", 1)[1].strip()
            for line in done.stderr.decode().splitlines()
            if line.startswith("import time:")
        }
    checked = {r["command"]: r["command_checked"] for r in spooled(home, project)}
    assert checked == {"pytest -q": True}
    assert not {"re", "shlex"} & imported["pytest -q"]
    assert "shlex" in imported["'en''v'"]


def test_switched_off_kinds_are_not_spooled(project: Path, home: Path) -> None:
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"capture": {"bash": false}}')
    payload = base_payload(project, tool_name="Bash", tool_input={"command": "make"},
                           tool_response={"stdout": "built", "stderr": ""})  # fmt: skip
    hook("post-tool", payload, home=home, root=project)
    hook("prompt", base_payload(project, prompt="still captured"), home=home, root=project)
    assert [r["kind"] for r in spooled(home, project)] == ["prompt"]


@pytest.mark.parametrize(
    "stdin", [b"", b"not json", b"[1, 2]", b'{"tool_name": 3}', b"\xff\xfe\x00garbage"]
)
@pytest.mark.parametrize(
    "event", ["prompt", "post-tool", "pre-tool", "stop", "session-start", "nope"]
)
def test_bad_input_is_silent_and_exits_zero(
    project: Path, home: Path, event: str, stdin: bytes
) -> None:
    done = hook(event, stdin, home=home, root=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_an_unwritable_spool_drops_the_event_with_one_log_line(project: Path, home: Path) -> None:
    (home / "spool").write_text("a file where the spool directory should be")
    done = hook("prompt", base_payload(project, prompt=f"secret {TOKEN}"), home=home, root=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    lines = (home / "logs" / "hooks.log").read_text().splitlines()
    assert len(lines) == 1 and "prompt prompt: dropped: cannot write the spool" in lines[0]
    assert TOKEN not in lines[0] and "secret" not in lines[0]
    assert stat.S_IMODE((home / "logs" / "hooks.log").stat().st_mode) == 0o600


def test_a_missing_home_is_created_private(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "fresh" / ".ctx-tree"
    done = hook("prompt", base_payload(project, prompt="first ever"), home=home, root=project)
    assert done.returncode == 0 and [r["text"] for r in spooled(home, project)] == ["first ever"]
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


# --- steering -----------------------------------------------------------------------------


def pre(project: Path, home: Path, tool: str, tool_input: dict, **env: str) -> dict | None:
    done = hook("pre-tool", base_payload(project, tool_name=tool, tool_input=tool_input),
                home=home, root=project, **env)  # fmt: skip
    assert done.returncode == 0 and done.stderr == b""
    return json.loads(done.stdout) if done.stdout else None


def test_a_large_read_gets_the_cheaper_call_as_a_hint(project: Path, home: Path, big: Path) -> None:
    out = pre(project, home, "Read", {"file_path": str(big)})
    assert out is not None
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse" and "permissionDecision" not in spec
    hint = spec["additionalContext"]
    assert 'ctx_tree_read(path="pkg/big.py")' in hint and 'symbol="handler_0"' in hint
    assert "3,000 lines" in hint and "1000 definitions" in hint
    assert len(hint) <= 240  # 60 tokens at 4 characters a token


@pytest.mark.parametrize(
    "tool_input",
    [{"offset": 10}, {"limit": 50}],
)
def test_a_ranged_or_small_read_gets_nothing(
    project: Path, home: Path, big: Path, tool_input
) -> None:
    assert pre(project, home, "Read", {"file_path": str(big), **tool_input}) is None
    small = project / "pkg" / "decoder.py"
    assert pre(project, home, "Read", {"file_path": str(small)}) is None  # ~350 lines


def test_deny_mode_refuses_with_the_call_in_the_reason(
    project: Path, home: Path, big: Path
) -> None:
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"steer": {"mode": "deny"}}')
    spec = pre(project, home, "Read", {"file_path": str(big)})["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny"
    assert 'ctx_tree_read(path="pkg/big.py")' in spec["permissionDecisionReason"]
    (project / ".ctx-tree" / "config.json").write_text('{"steer": {"mode": "off"}}')
    assert pre(project, home, "Read", {"file_path": str(big)}) is None


def test_the_read_limit_is_configurable(project: Path, home: Path) -> None:
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"steer": {"readLines": 100}}')
    out = pre(project, home, "Read", {"file_path": str(project / "pkg" / "decoder.py")})
    assert out is not None and "pkg/decoder.py" in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("command", "hinted"),
    [
        ("pytest -q", True),
        ("uv run pytest tests/", True),
        ("cd web && npm test", True),
        ("cargo build --release", True),
        ("git log", True),
        ("git log --oneline", True),
        ("git log -n 5", False),
        ("git log -20 --oneline", False),
        ("pytest -q | tail -20", False),
        ("make > build.log 2>&1", False),
        ("ls -la", False),
        ("echo pytest", False),
    ],
)
def test_bash_commands_that_print_a_lot_point_to_ctx_tree_bash(
    project: Path, home: Path, command: str, hinted: bool
) -> None:
    out = pre(project, home, "Bash", {"command": command})
    assert (out is not None) == hinted
    if hinted:
        hint = out["hookSpecificOutput"]["additionalContext"]
        assert f"ctx_tree_bash(command={json.dumps(command)})" in hint and len(hint) <= 240


@pytest.mark.parametrize(
    ("tool_input", "hinted"),
    [
        ({"pattern": ".*", "output_mode": "content"}, True),
        ({"pattern": "import", "output_mode": "content"}, True),
        ({"pattern": "x", "output_mode": "content"}, True),
        ({"pattern": "import", "output_mode": "content", "head_limit": 20}, False),
        ({"pattern": "import", "output_mode": "content", "glob": "*.py"}, False),
        ({"pattern": "import"}, False),  # files_with_matches: a short list
        ({"pattern": "def handle_request", "output_mode": "content"}, False),
    ],
)
def test_grep_patterns_likely_to_flood_get_a_hint(
    project: Path, home: Path, tool_input, hinted
) -> None:
    out = pre(project, home, "Grep", tool_input)
    assert (out is not None) == hinted
    if hinted:
        assert "ctx_tree_grep(pattern=" in out["hookSpecificOutput"]["additionalContext"]


# --- session start and recall across sessions ---------------------------------------------


def test_session_start_says_nothing_about_an_empty_store(project: Path, home: Path) -> None:
    done = hook("session-start", base_payload(project, source="startup"), home=home, root=project)
    assert (done.returncode, done.stdout) == (0, b"")


def test_session_start_deletes_spool_files_older_than_a_week(project: Path, home: Path) -> None:
    hook("prompt", base_payload(project, prompt="old"), home=home, root=project)
    hook("prompt", base_payload(project, prompt="new"), home=home, root=project)
    base = spool_dir(home, project)
    oldest = base / "new" / spool.waiting(base)[0]
    week = time.time() - 8 * 86400
    os.utime(oldest, (week, week))
    hook("session-start", base_payload(project, source="startup"), home=home, root=project)
    assert [r["text"] for r in spooled(home, project)] == ["new"]
    assert "deleted 1 spool files" in (home / "logs" / "hooks.log").read_text()


def test_a_new_session_recalls_prompts_reads_commands_and_answers(
    project: Path, home: Path
) -> None:
    root = project
    marker = "recall-marker-7f3a"
    (root / "pkg" / "notes.py").write_text(f'def plan():\n    """{marker}: the rollout plan."""\n')
    for event, payload in [
        ("prompt", base_payload(root, prompt="How do we roll out the cache change?", prompt_id="p1")),
        ("post-tool", base_payload(root, tool_name="Read",
                                   tool_input={"file_path": str(root / "pkg" / "notes.py")})),
        ("post-tool", base_payload(root, tool_name="Bash", tool_input={"command": "pytest -q"},
                                   tool_response={"stdout": "FAILED tests/test_cache.py::test_evict - "
                                                  "AssertionError: rollout flag off\n1 failed, 9 passed",
                                                  "stderr": ""})),
        ("stop", base_payload(root, prompt_id="p1",
                              last_assistant_message="Roll out behind the cache_v2 flag, then evict.")),
    ]:  # fmt: skip
        assert hook(event, payload, home=home, root=root).returncode == 0
    first = App(root, home=home)
    try:
        report = ingest(first)
        assert report.stored == 4 and report.dropped == 0
        from ctx_tree_walkers import run_once

        run_once(first.store, first.config, "filter")
    finally:
        first.close()
    # A later Claude Code session: its SessionStart note, then recall through the tools.
    done = hook("session-start", base_payload(root, session_id="sess-B", source="startup"),
                home=home, root=root)  # fmt: skip
    note = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert note.startswith(
        "ctx-tree store for this project holds 1 prompt, 1 answer, 1 file, 1 command/grep output"
        " from 1 session (last "
    )
    assert len(note) <= 400  # 100 tokens
    later = App(root, home=home, session_key="sess-B")
    try:
        recent = graph.recent(later, kind="prompt")
        assert "prompt://sess-A/p1" in recent
        assert marker in search.search(later, marker)
        hits = search.search(later, "rollout flag")
        assert "tool_output" in hits and "$ pytest -q" in hits  # labelled by its command
        assert "response" in search.search(later, "cache_v2 flag")
        prompt_id = later.store.recent(kind="prompt", limit=1)[0].id
        packed = compose.compose(later, [prompt_id], query="cache rollout")
        assert "cache_v2" in packed  # the answer follows the prompt
    finally:
        later.close()


def test_the_running_server_ingests_the_spool(project: Path, home: Path) -> None:
    """The capture walker inside the real ctx-tree-mcp picks up what hooks spool while it runs."""
    (home / "config.json").write_text(json.dumps({"walkers": {"filterIntervalMs": 100}}))
    marker = "served-marker-31c"

    async def body(client) -> str:
        import asyncio

        hook("prompt", base_payload(project, prompt=f"where is {marker}?", prompt_id="p9"),
             home=home, root=project)  # fmt: skip
        for _ in range(60):
            await asyncio.sleep(0.1)
            answer = text_of(await client.call_tool("ctx_tree_search", {"query": marker}))
            if "prompt://" in answer:
                return answer
        return answer

    answer = run_client(project, home, "legacy", body, CLAUDE_PROJECT_DIR=str(project))
    assert "prompt://sess-A/p9" in answer and f"where is {marker}" in answer
    assert spool.waiting(spool_dir(home, project)) == []


def test_a_marketplace_copy_redacts_from_its_first_event(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """Claude Code copies only plugin/ and no server has run yet: the hook finds its wire by
    its own path, so the first event is redacted before it is written."""
    copy = tmp_path / "cache" / "ctx-tree"
    shutil.copytree(HOOK.parent.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    payload = json.dumps(base_payload(project, prompt=f"before any server: {TOKEN}")).encode()
    subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(copy / "hooks" / "ctx_tree_hook.py"), "prompt"],
        input=payload, check=True,
        env={"PATH": os.environ["PATH"], "CTX_TREE_HOME": str(home),
             "CLAUDE_PROJECT_DIR": str(project)},
    )  # fmt: skip
    (first,) = spooled(home, project)
    assert first["redacted"] is True and TOKEN not in first["text"]
    assert not (home / "spool" / "modules.json").exists()
    assert not any(TOKEN.encode() in p.read_bytes() for p in every_file(home))


def test_a_copy_without_bytecode_caches_works(project: Path, home: Path, tmp_path: Path) -> None:
    """A plugin copy the hook cannot keep bytecode caches in (here each ``__pycache__`` is a
    file: no cache can be read or written, as in a read-only install): every module is
    compiled in the process instead, and the event is the same."""
    copy = tmp_path / "nocache" / "ctx-tree"
    shutil.copytree(HOOK.parent.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [p for p in copy.rglob("*") if p.is_dir()]:
        (folder / "__pycache__").write_text("not a folder")
    payload = json.dumps(base_payload(project, prompt=f"no caches: {TOKEN}")).encode()
    done = subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(copy / "hooks" / "ctx_tree_hook.py"), "prompt"],
        input=payload, capture_output=True,
        env={"PATH": os.environ["PATH"], "CTX_TREE_HOME": str(home),
             "CLAUDE_PROJECT_DIR": str(project)},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    assert not list(copy.rglob("*.pyc"))
    (event,) = spooled(home, project)
    assert event["redacted"] is True and event["text"] == "no caches: [REDACTED:github_token]"


def test_stop_without_the_last_message_reads_the_transcript(
    project: Path, home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "session.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "How do we evict?"}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Draft answer."}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read"}]}},
        {"type": "assistant", "message": {"content": [
            {"type": "thinking", "thinking": "hidden"},
            {"type": "text", "text": "Evict the oldest entry first."},
        ]}},
        {"type": "system", "subtype": "stop_hook_summary"},
    ]  # fmt: skip
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n{truncated")
    payload = base_payload(project, prompt_id="p1", transcript_path=str(transcript))
    assert hook("stop", payload, home=home, root=project).returncode == 0
    (record,) = spooled(home, project)
    assert record["kind"] == "response" and record["text"] == "Evict the oldest entry first."


def test_a_transcript_that_never_ends_cannot_hold_the_stop_hook(project: Path, home: Path) -> None:
    """The transcript is read from its end, at most 256 KB: a path with no end (a device, a
    FIFO's writer that keeps writing) held the hook until the host killed it, since the
    alarm cannot interrupt one unbounded read."""
    payload = base_payload(project, prompt_id="p1", transcript_path="/dev/zero")
    started = time.monotonic()
    done = hook("stop", payload, home=home, root=project)
    assert done.returncode == 0 and time.monotonic() - started < 5
    assert spooled(home, project) == []


@pytest.mark.parametrize(
    "text",
    [
        "Why does the cache evict entries too early?",  # no trigger: redact.py is not loaded
        f"use {TOKEN} to push",
        "postgres://admin:hunter2hunter2@db.internal:5432/app",
        "export API_TOKEN=8f14e45fceea167a5a36dedd4bea2543a9c1a5f0e4b2",
        "It printed:\nSHELL=/bin/bash\nHOME=/root\nIS_SANDBOX=1\n",
        # the private-key rule once used a Python 3.11 regex feature: under 3.8-3.10 the hook
        # could not redact this, and the event waited unredacted
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u"
        "ZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDx7Zy1Hq8KpL2mN4vR6tW9\n"
        "-----END OPENSSH PRIVATE KEY-----\ndone",
    ],
)
def test_the_trigger_shortcut_gives_what_redact_gives(project: Path, home: Path, text: str) -> None:
    """With the trigger literals generated from the rules, text holding none of them skips
    loading redact.py; either way the spooled text is exactly what redact_text returns."""
    from ctx_tree_mcp.wire.redact import redact_text

    assert (
        hook("prompt", base_payload(project, prompt=text), home=home, root=project).returncode == 0
    )
    (record,) = spooled(home, project)
    assert record["redacted"] is True and record["text"] == redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, 2.5, -0.0, 1e400, 12345678901234567890, "x\\u00e9\\ud800", null, true]}',
        '  {"nested": {"k": ["\\n\\t\\"", {}]}, "": ""}  \n',
        '{"v": NaN, "w": Infinity}',
        "[1, 2,]",
        '{"a": 1} trailing',
        "",
    ],
)
def test_fastjson_is_json(text: str) -> None:
    """The hooks' JSON (CPython's _json scanner and encoder) gives json's results and errors."""
    from ctx_tree_mcp.wire import fastjson

    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            fastjson.loads(text)
        return
    got = fastjson.loads(text)
    assert json.dumps(got) == json.dumps(expected)
    for ascii_only in (True, False):
        assert fastjson.dumps(expected, ascii_only) == json.dumps(expected, ensure_ascii=ascii_only)


ENV_DUMP = "SHELL=/bin/bash\nIS_SANDBOX=1"


@pytest.mark.parametrize("redactable", [True, False])
def test_an_answer_after_a_refused_command_keeps_no_environment_values(
    project: Path, home: Path, redactable: bool
) -> None:
    """``env | head -2`` is refused, and the answer that quotes its output is stored with the
    values of its ``NAME=value`` pairs redacted; the session's next answer is not. When the
    hook cannot load ``redact.py`` and ``denylist.py`` (a broken copy), the ingester does it."""
    env = {} if redactable else {"PYTHONPATH": ""}
    if not redactable:  # a copy of the plugin whose wire lacks both modules
        shutil.copytree(ROOT / "plugin", project / "plugin-copy",
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        wire = project / "plugin-copy" / "hooks" / "vendor" / "ctx_tree_mcp" / "wire"
        (wire / "redact.py").unlink()
        (wire / "denylist.py").unlink()
    script = HOOK if redactable else project / "plugin-copy" / "hooks" / "ctx_tree_hook.py"

    def run(event: str, payload: dict) -> None:
        done = subprocess.run(
            [HOOK_PYTHON, "-I", "-S", str(script), event],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env={"PATH": os.environ["PATH"], "HOME": str(home), "CTX_TREE_HOME": str(home),
                 "CLAUDE_PROJECT_DIR": str(project), **env},
            timeout=20,
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (0, b"")

    run("post-tool", base_payload(project, tool_name="Bash", tool_input={"command": "env | head -2"},
                                  tool_response={"stdout": ENV_DUMP, "stderr": ""}))  # fmt: skip
    run("stop", base_payload(project, prompt_id="p1",
                             last_assistant_message=f"TOOL_RESULT_SEEN: {ENV_DUMP}\nDone."))  # fmt: skip
    run("stop", base_payload(project, prompt_id="p2",
                             last_assistant_message="Set DEBUG=1 to see more."))  # fmt: skip
    answers = [e for e in spooled(home, project) if e["kind"] == "response"]
    assert answers[0]["redacted"] is redactable
    if redactable:  # refused in the hook, which marks the answer and redacts it
        assert [e.get("env_refused") for e in answers] == [True, None]
        assert "/bin/bash" not in answers[0]["text"]
    else:  # refused by the ingester, which marks the session for the answer after it
        assert [e["kind"] for e in spooled(home, project)] == ["bash", "response", "response"]
    app = App(project, home=home)
    try:
        report = ingest(app)
        assert (report.stored, report.skipped) == (2, 0 if redactable else 1)
        stored = {n.metadata["prompt_id"]: n.content for n in app.store.recent(kind="response")}
    finally:
        app.close()
    assert stored["p1"] == (
        "TOOL_RESULT_SEEN: SHELL=[REDACTED:environment]\nIS_SANDBOX=[REDACTED:environment]\nDone."
    )
    assert stored["p2"] == "Set DEBUG=1 to see more."
    assert not any(b"/bin/bash" in p.read_bytes() for p in every_file(home))
    assert not list(spool_dir(home, project).glob("refused-*"))


def test_a_command_refused_at_ingest_marks_the_answer_the_hook_spools_next(
    project: Path, home: Path
) -> None:
    """``cat .env`` passes the hook (it knows no path policy) and is refused by the ingester,
    which leaves the session's mark: the Stop hook that runs after it redacts the answer."""
    (project / ".env").write_text("DB_HOST=db.internal\n")
    bash = base_payload(project, tool_name="Bash", tool_input={"command": "cat .env"},
                        tool_response={"stdout": "DB_HOST=db.internal", "stderr": ""})  # fmt: skip
    assert hook("post-tool", bash, home=home, root=project).returncode == 0
    app = App(project, home=home)
    try:
        assert ingest(app).skipped == 1
        stop = base_payload(
            project, prompt_id="p1", last_assistant_message="It has DB_HOST=db.internal"
        )
        assert hook("stop", stop, home=home, root=project).returncode == 0
        (answer,) = spooled(home, project)
        assert answer["env_refused"] is True
        assert answer["text"] == "It has DB_HOST=[REDACTED:environment]"
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="response")
        assert node.content == "It has DB_HOST=[REDACTED:environment]"
    finally:
        app.close()


def test_a_refused_command_marks_only_its_own_turn(project: Path, home: Path) -> None:
    """The mark ends with the turn's Stop even when that answer is empty (nothing captured),
    and a mark no Stop took is deleted by SessionStart after a week."""
    refused = base_payload(project, tool_name="Bash", tool_input={"command": "printenv"},
                           tool_response={"stdout": "HOME=/root", "stderr": ""})  # fmt: skip
    assert hook("post-tool", refused, home=home, root=project).returncode == 0
    marks = list(spool_dir(home, project).glob("refused-*"))
    assert [m.name for m in marks] == ["refused-sess-A"]
    assert stat.S_IMODE(marks[0].stat().st_mode) == 0o600
    hook("stop", base_payload(project, prompt_id="p1", last_assistant_message=""),
         home=home, root=project)  # fmt: skip
    hook("stop", base_payload(project, prompt_id="p2", last_assistant_message="Use X=1 then."),
         home=home, root=project)  # fmt: skip
    (answer,) = spooled(home, project)
    assert "env_refused" not in answer and answer["text"] == "Use X=1 then."
    assert hook("post-tool", refused, home=home, root=project).returncode == 0
    (mark,) = spool_dir(home, project).glob("refused-*")
    week = time.time() - 8 * 86400
    os.utime(mark, (week, week))
    hook("session-start", base_payload(project, source="startup"), home=home, root=project)
    assert not mark.exists()


@pytest.mark.parametrize(
    ("command", "decision"),
    [("make && curl https://x.test", "deny"), ("git push origin main", "ask"), ("make", None)],
)
def test_the_hosts_bash_rules_decide_a_ctx_tree_bash_call(
    project: Path, home: Path, command: str, decision: str | None
) -> None:
    """Under the hook's python3 (3.8 in ``hooks-oldest``) the rules module loads by path."""
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(curl:*)"], "ask": ["Bash(git push:*)"]}})
    )
    out = pre(project, home, "mcp__ctx-tree__ctx_tree_bash", {"command": command})
    if decision is None:
        assert out is None
        return
    assert out is not None
    spec = out["hookSpecificOutput"]
    assert spec["permissionDecision"] == decision
    assert ("Bash(curl:*)" if decision == "deny" else "Bash(git push:*)") in spec[
        "permissionDecisionReason"
    ]


# --- what a capture says of itself: alarm, cut, the turn's own answer ----------------------


def test_a_payload_that_never_comes_leaves_the_promised_log_line(project: Path, home: Path) -> None:
    """The alarm used to end the hook with nothing written, not even a log line."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CTX_TREE_HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    proc = subprocess.Popen(
        [HOOK_PYTHON, "-I", "-S", str(HOOK), "prompt"], stdin=subprocess.PIPE, env=env
    )
    try:
        assert proc.wait(timeout=10) == 0  # stdin left open: the payload never ends
    finally:
        proc.stdin.close()
    log = (home / "logs" / "hooks.log").read_text()
    assert "prompt: alarm after 3 s while reading its payload: event dropped" in log


def test_a_hook_slow_to_redact_spools_its_record_for_the_ingester(
    project: Path, home: Path
) -> None:
    """A record past its checks is written when the alarm rings (here redact.py hangs), marked
    unredacted: the ingester redacts it, so the secret never reaches the store."""
    payload = base_payload(project, prompt=f"deploy with {TOKEN} then check", prompt_id="p9")
    # a copy of the plugin whose redact.py hangs
    installed = home.parent / "installed" / "plugin" / "hooks"
    shutil.copytree(HOOK.parent, installed, ignore=shutil.ignore_patterns("__pycache__"))
    slow = installed / "vendor" / "ctx_tree_mcp" / "wire" / "redact.py"
    slow.write_text(
        "import time\ntime.sleep(30)\ndef redact_text(t, present=None):\n    return t\n"
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CTX_TREE_HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(installed / HOOK.name), "prompt"],
        input=json.dumps(payload).encode(),
        env=env,
        timeout=20,
    )
    assert done.returncode == 0 and time.monotonic() - started < 6
    (record,) = spooled(home, project)
    assert record["kind"] == "prompt" and record["redacted"] is False
    assert "spooled unredacted" in (home / "logs" / "hooks.log").read_text()
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="prompt")
        assert TOKEN not in node.content and "deploy with" in node.content
    finally:
        app.close()


def test_a_capture_cut_at_max_bytes_is_stored_truncated_with_the_whole_count(
    project: Path, home: Path
) -> None:
    (home / "config.json").write_text(
        json.dumps({"index": {"enabled": False}, "capture": {"maxBytes": 2000}})
    )
    lines = [f"pkg/m{i}.py:{i}:value = compute({i})" for i in range(400)]
    whole = "\n".join(lines)
    payload = base_payload(project, tool_name="Grep",
                           tool_input={"pattern": "compute", "output_mode": "content"},
                           tool_response={"content": whole, "mode": "content"})  # fmt: skip
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    page = "".join(f"<p>paragraph {i} of the fetched page</p>\n" for i in range(300))
    payload = base_payload(project, tool_name="WebFetch", tool_input={"url": "https://x.test/a"},
                           tool_response={"result": page, "url": "https://x.test/a"})  # fmt: skip
    assert hook("post-tool", payload, home=home, root=project).returncode == 0
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 2
        (grep_node,) = app.store.recent(kind="tool_output")
        assert grep_node.truncated and grep_node.original_bytes == len(whole.encode())
        assert grep_node.metadata["match_count"] == 400
        (web_node,) = app.store.recent(kind="web_chunk")
        assert web_node.truncated and web_node.original_bytes == len(page.encode())
    finally:
        app.close()


def _turns(*entries: tuple[str, str]) -> str:
    out = []
    for role, text in entries:
        if role == "user":
            out.append({"type": "user", "message": {"role": "user", "content": text}})
        else:
            out.append(
                {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
            )
    return "".join(json.dumps(x) + "\n" for x in out)


def test_a_lagging_transcript_never_stores_the_previous_turns_answer(
    project: Path, home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        _turns(("user", "first question"), ("assistant", "FIRST ANSWER"), ("user", "second one"))
    )
    payload = base_payload(project, prompt_id="p2", transcript_path=str(transcript))
    assert hook("stop", payload, home=home, root=project).returncode == 0
    assert spooled(home, project) == []  # nothing rather than a wrong answer
    assert (
        "no answer of this turn in the transcript yet" in (home / "logs" / "hooks.log").read_text()
    )


def test_a_transcript_that_catches_up_within_the_wait_gives_this_turns_answer(
    project: Path, home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        _turns(("user", "first question"), ("assistant", "FIRST ANSWER"), ("user", "second one"))
    )
    payload = base_payload(project, prompt_id="p2", transcript_path=str(transcript))
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CTX_TREE_HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    proc = subprocess.Popen(
        [HOOK_PYTHON, "-I", "-S", str(HOOK), "stop"], stdin=subprocess.PIPE, env=env
    )
    proc.stdin.write(json.dumps(payload).encode())
    proc.stdin.close()
    time.sleep(0.3)
    with transcript.open("a") as fh:
        fh.write(_turns(("assistant", "SECOND ANSWER")))
    assert proc.wait(timeout=10) == 0
    (record,) = spooled(home, project)
    assert record["text"] == "SECOND ANSWER"


def test_after_compaction_session_start_injects_the_session_digest(
    project: Path, home: Path
) -> None:
    """SessionStart from compact/resume/clear injects the session's digest (what was asked,
    files read, failed commands, each with its id) within 800 tokens; startup keeps the note."""
    root = project
    (root / "pkg" / "cache.py").write_text("def evict(key):\n    return key\n")
    for event, payload in [
        ("prompt", base_payload(root, prompt="Why does the cache evict too early?", prompt_id="p1")),
        ("post-tool", base_payload(root, tool_name="Read",
                                   tool_input={"file_path": str(root / "pkg" / "cache.py")})),
        ("post-tool", base_payload(root, tool_name="Bash", tool_input={"command": "pytest -q"},
                                   tool_response={"stdout": "1 failed, 9 passed", "stderr": "",
                                                  "exit_code": 1})),
    ]:  # fmt: skip
        assert hook(event, payload, home=home, root=root).returncode == 0
    app = App(root, home=home)
    try:
        assert ingest(app).stored == 3
    finally:
        app.close()
    done = hook("session-start", base_payload(root, source="compact"), home=home, root=root)
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("ctx-tree resume digest of this session")
    assert "- Why does the cache evict too early? (id " in text
    assert "- pkg/cache.py (id " in text
    assert len(text) <= 3200  # 800 tokens
    fresh = hook("session-start", base_payload(root, source="startup"), home=home, root=root)
    note = json.loads(fresh.stdout)["hookSpecificOutput"]["additionalContext"]
    assert note.startswith("ctx-tree store for this project holds")


def test_after_clear_the_digest_gives_what_was_answered_too(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """The answer to a question is the thing most worth resuming: the digest the hook injects
    after /clear holds each prompt with the start of its answer (the Stop hook captured it)."""
    root = project
    transcript = tmp_path / "t.jsonl"
    question = "What is the retry budget of the uploader?"
    answer = "Four tries, 250 ms apart, set in uploader.RETRIES."
    transcript.write_text(_turns(("user", question), ("assistant", answer)))
    assert hook("prompt", base_payload(root, prompt=question, prompt_id="p1"),
                home=home, root=root).returncode == 0  # fmt: skip
    stop = base_payload(root, prompt_id="p1", transcript_path=str(transcript))
    assert hook("stop", stop, home=home, root=root).returncode == 0
    app = App(root, home=home)
    try:
        assert ingest(app).stored == 2
    finally:
        app.close()
    done = hook("session-start", base_payload(root, source="clear"), home=home, root=root)
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    lines = text.splitlines()
    at = lines.index(next(x for x in lines if x.startswith(f"- {question} (id ")))
    assert lines[at + 1].startswith(f"  answered: {answer} (id "), text


def test_the_digest_lists_a_read_of_a_file_the_index_already_held(
    project: Path, home: Path
) -> None:
    """A native Read of a file the project index (or another session) stored first is still a
    file this session read: the digest lists it, though nothing new was stored."""
    from ctx_tree_mcp.cli.maintenance import index

    root = project
    (root / "pkg" / "cache.py").write_text("def evict(key):\n    return key\n")
    app = App(root, home=home)
    try:
        index(app)  # the background index got there first
        assert hook("prompt", base_payload(root, prompt="Why evict?", prompt_id="p1"),
                    home=home, root=root).returncode == 0  # fmt: skip
        assert ingest(app).stored == 1
        read = base_payload(root, tool_name="Read",
                            tool_input={"file_path": str(root / "pkg" / "cache.py")})  # fmt: skip
        assert hook("post-tool", read, home=home, root=root).returncode == 0
        done = ingest(app)  # the read alone, in its own ingest
        assert (done.stored, done.unchanged) == (0, 1)
    finally:
        app.close()
    started = hook("session-start", base_payload(root, source="resume"), home=home, root=root)
    text = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- Why evict? (id " in text and "- pkg/cache.py (id " in text
