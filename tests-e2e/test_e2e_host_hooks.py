"""The hook entry run as other hosts run it (``ctx_tree_hook.py HOST EVENT``, the host's own
payload on stdin): each host's payload lands as ctx-tree's capture events, the steering hint
comes back in that host's shape, and unknown events or shapes exit 0 with nothing kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "plugin" / "hooks" / "ctx_tree_hook.py"
HOOK_PYTHON = os.environ.get("CTX_TREE_HOOK_PYTHON") or sys.executable


def run(words: list[str], payload: object, home: Path, cwd: Path | None = None, **env: str):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(HOOK), *words],
        input=data,
        capture_output=True,
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "HOME": str(home), "CTX_TREE_HOME": str(home), **env},
        timeout=20,
    )


def spooled(home: Path) -> list[dict]:
    files = sorted((home / "spool").glob("*/new/*.json"))
    return [json.loads(f.read_text()) for f in files]


@pytest.fixture
def big(project: Path) -> Path:
    path = project / "big.py"
    path.write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(1000)))
    return path


def test_gemini_events_capture_and_the_hint_comes_after_the_tool(project, home, big):
    base = {"session_id": "g1", "cwd": str(project), "timestamp": "t"}
    assert run(["gemini", "BeforeAgent"], {**base, "prompt": "why is it slow"}, home).stdout == b""
    before = run(
        ["gemini", "BeforeTool"],
        {**base, "tool_name": "read_file", "tool_input": {"file_path": str(big)}},
        home,
    )
    assert before.returncode == 0 and before.stdout == b""  # Gemini would drop it here
    after = run(
        ["gemini", "AfterTool"],
        {
            **base,
            "tool_name": "run_shell_command",
            "tool_input": {"command": "cat big.py"},
            "tool_response": {"llmContent": "shell output 42", "returnDisplay": "x"},
        },
        home,
    )
    out = json.loads(after.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "AfterTool" and "ctx_tree_read" in out["additionalContext"]
    run(["gemini", "AfterAgent"], {**base, "prompt_response": "it is the cache"}, home)
    records = {r["kind"]: r for r in spooled(home)}
    assert records["prompt"]["text"] == "why is it slow"
    assert records["bash"]["text"] == "shell output 42"
    assert records["response"]["text"] == "it is the cache"
    assert {r["cwd"] for r in records.values()} == {str(project)}


def test_copilot_tool_result_is_captured(project, home):
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "c1",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_result": {"result_type": "success", "text_result_for_llm": "a.py\nb.py"},
    }
    assert run(["copilot", "PostToolUse"], payload, home).returncode == 0
    (record,) = spooled(home)
    assert record["kind"] == "bash" and record["text"] == "a.py\nb.py"


def test_copilot_stop_reads_the_answer_from_its_events_file(project, home, tmp_path):
    events = tmp_path / "events.jsonl"
    events.write_text(
        json.dumps({"type": "user.message", "data": {"content": "q"}})
        + "\n"
        + json.dumps({"type": "assistant.message", "data": {"content": "the answer"}})
        + "\n"
    )
    payload = {"hook_event_name": "Stop", "cwd": str(project), "transcript_path": str(events)}
    run(["copilot", "Stop"], payload, home)
    assert [r["text"] for r in spooled(home)] == ["the answer"]


def test_copilot_stop_waits_for_an_answer_written_after_it_starts(project, home, tmp_path):
    """Copilot CLI appends the turn's answer to events.jsonl a moment after its Stop hook
    starts: the hook reads again until the answer after the turn's message is there."""
    events = tmp_path / "events.jsonl"
    events.write_text(
        json.dumps({"type": "assistant.message", "data": {"content": "last turn's answer"}})
        + "\n"
        + json.dumps({"type": "user.message", "data": {"content": "q"}})
        + "\n"
    )

    def answer() -> None:
        with events.open("a") as fh:
            fh.write(json.dumps({"type": "assistant.message", "data": {"content": "late"}}) + "\n")

    timer = threading.Timer(0.4, answer)
    timer.start()
    payload = {"hook_event_name": "Stop", "cwd": str(project), "transcript_path": str(events)}
    try:
        assert run(["copilot", "Stop"], payload, home).returncode == 0
    finally:
        timer.join()
    assert [r["text"] for r in spooled(home)] == ["late"]


def test_cline_camel_case_payloads(project, home, big):
    common = {"clineVersion": "3", "taskId": "t1", "workspaceRoots": [str(project)]}
    pre = run(
        ["cline", "PreToolUse"],
        {**common, "hookName": "PreToolUse",
         "preToolUse": {"toolName": "read_files", "parameters": {"files": [{"path": str(big)}]}}},
        home,
    )  # fmt: skip
    reply = json.loads(pre.stdout)
    assert reply["cancel"] is False and "ctx_tree_read" in reply["contextModification"]
    run(
        ["cline", "PostToolUse"],
        {**common, "hookName": "PostToolUse",
         "postToolUse": {"toolName": "run_commands", "parameters": {"commands": ["make"]},
                         "result": "built ok", "success": True}},
        home,
    )  # fmt: skip
    # Cline's own hookName is internal (agent_end): the hook file's name is the event
    done = {**common, "hookName": "agent_end", "turn": {"outputText": "done it"}}
    run(["cline", "TaskComplete"], done, home)
    records = {r["kind"]: r for r in spooled(home)}
    assert records["bash"]["command"] == "make" and records["bash"]["text"] == "built ok"
    assert records["response"]["text"] == "done it"
    assert records["bash"]["session_id"] == "t1"


def test_cline_3_payload_with_json_text_arguments(project, home):
    """What Cline 3.0 sends: postToolUse values as JSON text, the call structured beside it."""
    payload = {
        "taskId": "t2",
        "workspaceRoots": [str(project)],
        "hookName": "tool_result",
        "tool_result": {
            "name": "run_commands",
            "input": {"commands": ["echo hi"]},
            "output": [{"query": "echo hi", "result": "hi\n", "success": True}],
        },
        "postToolUse": {
            "toolName": "run_commands",
            "parameters": {"commands": '["echo hi"]'},
            "result": '[{"query":"echo hi","result":"hi\\n","success":true}]',
            "success": True,
        },
    }
    run(["cline", "PostToolUse"], payload, home)
    del payload["tool_result"]
    run(["cline", "PostToolUse"], payload, home)
    assert [(r["command"], r["text"]) for r in spooled(home)] == [("echo hi", "hi\n")] * 2


def test_opencode_and_cursor_events(project, home):
    run(
        ["opencode", "tool.execute.after"],
        {"cwd": str(project), "tool": "bash", "args": {"command": "ls"}, "output": "x.py"},
        home,
    )
    cursor = run(
        ["cursor", "afterShellExecution"],
        {"hook_event_name": "afterShellExecution", "workspace_roots": [str(project)],
         "command": "pwd", "output": "/p"},
        home,
    )  # fmt: skip
    assert json.loads(cursor.stdout) == {}  # Cursor rejects an empty answer
    assert sorted(r["text"] for r in spooled(home)) == ["/p", "x.py"]


@pytest.mark.parametrize(
    ("words", "payload"),
    [
        (["gemini", "Notification"], {"message": "x"}),
        (["gemini", "AfterTool"], b"not json"),
        (["cline", "PostToolUse"], [1, 2]),
        (["copilot", "PostToolUse"], {"tool_result": "just a string"}),
        (["cursor", "somethingNew"], {}),
        (["opencode", "tool.execute.after"], {"tool": "unknown"}),
    ],
)
def test_unknown_events_and_shapes_exit_0_and_keep_nothing(words, payload, project, home):
    done = run(words, payload, home, cwd=project)
    assert done.returncode == 0 and done.stderr == b""
    assert spooled(home) == []


def test_the_plugin_directory_is_never_the_root(project, home):
    """A host that runs hooks in the plugin directory, with the project only in $PWD."""
    plugin = ROOT / "plugin"
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    run(["copilot", "UserPromptSubmit"], payload, home, cwd=plugin, PWD=str(project))
    from ctx_tree_mcp.app import root_key

    assert [p.parent.parent.name for p in (home / "spool").glob("*/new/*.json")] == [
        root_key(str(project.resolve()))
    ]
    # the host's own variable wins over everything
    run(["gemini", "BeforeAgent"], {"prompt": "x"}, home, cwd=plugin, GEMINI_PROJECT_DIR=str(home))
    assert (home / "spool" / root_key(str(home.resolve())) / "new").is_dir()
