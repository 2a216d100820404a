"""Host payloads are untrusted input (docs/capture.md, "Payloads of any shape"): every field of
every host's payload may be missing or of any type, and any string may hold half of a UTF-16
surrogate pair. The hook keeps what can be kept and logs what cannot; it never drops a whole
event for one field, and never raises."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_mcp.capture.ingest import ingest
from ctx_tree_mcp.wire.hosts import claude, cline, codex, copilot, cursor, gemini, opencode  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "plugin" / "hooks"
HOOK = HOOKS / "ctx_tree_hook.py"
HOOK_PYTHON = os.environ.get("CTX_TREE_HOOK_PYTHON") or sys.executable
sys.path.insert(0, str(HOOKS))
import hook_main  # noqa: E402

#: Values of every JSON type, one of which differs from any field's own.
OTHERS = (7, 2.5, True, None, ["a", 1], {"k": "v"}, "text")
MISSING = object()


def cases(project: Path) -> list[tuple[str, str, dict]]:
    """``(host, event, payload)``: a well-formed payload of each host, each captured."""
    here = str(project)
    common = {"session_id": "s1", "cwd": here, "prompt_id": "p1"}
    return [
        ("claude", "prompt", {**common, "prompt": "why is the cache cold"}),
        ("claude", "post-tool", {**common, "tool_name": "Bash", "tool_use_id": "t1",
                                 "duration_ms": 12, "tool_input": {"command": "make test"},
                                 "tool_response": {"stdout": "ok", "stderr": "warn",
                                                   "interrupted": False}}),
        ("claude", "post-tool-failure", {**common, "tool_name": "Bash",
                                         "tool_input": {"command": "make"},
                                         "error": "Exit code 2\nfailed"}),
        ("claude", "post-tool", {**common, "tool_name": "Read",
                                 "tool_input": {"file_path": here + "/a.py"}}),
        ("claude", "post-tool", {**common, "tool_name": "Grep",
                                 "tool_input": {"pattern": "def", "path": ".",
                                                "output_mode": "content"},
                                 "tool_response": {"content": "a.py:1:def f():"}}),
        ("claude", "post-tool", {**common, "tool_name": "WebFetch",
                                 "tool_input": {"url": "https://x.test", "prompt": "p"},
                                 "tool_response": {"url": "https://x.test", "result": "page"}}),
        ("claude", "post-tool", {**common, "tool_name": "Task",
                                 "tool_input": {"description": "look", "subagent_type": "e"},
                                 "tool_response": [{"type": "text", "text": "found it"}]}),
        ("claude", "stop", {**common, "last_assistant_message": "it is the cache"}),
        ("gemini", "AfterTool", {**common, "tool_name": "run_shell_command",
                                 "tool_input": {"command": "ls"},
                                 "tool_response": {"llmContent": "a.py", "returnDisplay": ""}}),
        ("gemini", "BeforeAgent", {**common, "prompt": "hello"}),
        ("copilot", "PostToolUse", {"hook_event_name": "PostToolUse", "sessionId": "c1",
                                    "cwd": here, "toolName": "bash",
                                    "toolArgs": {"command": "ls"},
                                    "tool_result": {"result_type": "success",
                                                    "text_result_for_llm": "a.py"}}),
        ("cline", "PostToolUse", {"taskId": "t", "workspaceRoots": [here],
                                  "postToolUse": {"toolName": "execute_command",
                                                  "parameters": {"command": "ls"},
                                                  "result": "a.py", "success": True}}),
        ("cursor", "afterShellExecution", {"hook_event_name": "afterShellExecution",
                                           "conversation_id": "u", "workspace_roots": [here],
                                           "command": "ls", "output": "a.py"}),
        ("opencode", "tool.execute.after", {"sessionID": "o", "cwd": here, "tool": "bash",
                                            "callID": "c", "args": {"command": "ls"},
                                            "output": "a.py"}),
    ]  # fmt: skip


def paths(value: object, at: tuple = ()) -> list[tuple]:
    """Every path to a field (an object's key or a list's index), outermost first."""
    out = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        out.append((*at, key))
        out += paths(item, (*at, key))
    return out


def replaced(payload: dict, path: tuple, value: object) -> dict:
    """``payload`` with the field at ``path`` replaced by ``value`` (removed: ``MISSING``)."""
    out = copy.deepcopy(payload)
    holder = out
    for key in path[:-1]:
        holder = holder[key]
    if value is MISSING:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return out


@pytest.fixture
def hook_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("def f():\n    return 1\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return home, project


def captured(home: Path, project: Path, host: str, event: str, payload: dict) -> list[dict]:
    """The events one hook run spools (in this process), emptying the spool."""
    out = hook_main.run(host, event, json.dumps(payload).encode())
    assert isinstance(out, str)
    base = spool_dir(home, project)
    events = [json.loads((base / "new" / n).read_text()) for n in spool.waiting(base)]
    for name in spool.waiting(base):
        (base / "new" / name).unlink()
    return events


def logged(home: Path) -> list[str]:
    path = home / "logs" / "hooks.log"
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def test_a_field_of_another_type_costs_no_more_than_that_field(hook_env) -> None:
    """For every field of every host's payload, a value of each other JSON type keeps at least
    what leaving the field out keeps (the rest of the event) and nothing raises; when a field
    of Claude Code's payload costs its event, the log line names it."""
    home, project = hook_env
    tried = 0
    for host, event, payload in cases(project):
        whole = captured(home, project, host, event, payload)
        assert whole and not logged(home), (host, event)
        for path in paths(payload):
            without = captured(home, project, host, event, replaced(payload, path, MISSING))
            logged(home)
            for value in OTHERS:
                if type(value) is type(_at(payload, path)):
                    continue
                tried += 1
                got = captured(home, project, host, event, replaced(payload, path, value))
                lines = logged(home)
                where = (host, event, path, value, lines)
                assert len(got) >= len(without), where
                assert [e["kind"] for e in got[: len(without)]] == [e["kind"] for e in without]
                if host == "claude" and value is not None and len(got) < len(whole):
                    assert lines and str(path[0]) in lines[-1], where
    assert tried > 300


def _at(payload: dict, path: tuple) -> object:
    for key in path:
        payload = payload[key]
    return payload


def test_what_is_left_out_is_named_in_one_line(hook_env) -> None:
    home, project = hook_env
    payload = {"session_id": {"not": "an id"}, "cwd": 7, "duration_ms": "slow",
               "tool_name": "Bash", "tool_input": {"command": "make", "description": 3},
               "tool_response": {"stdout": "built", "stderr": ["x"]}}  # fmt: skip
    (event,) = captured(home, project, "claude", "post-tool", payload)
    assert (event["kind"], event["command"], event["text"]) == ("bash", "make", "built")
    assert (event["session_id"], event["cwd"], event["duration_ms"]) == ("", str(project), None)
    (line,) = logged(home)
    for field in ("session_id (dict", "cwd (int", "duration_ms (str", "tool_response.stderr (list"):
        assert field in line, line
    assert "post-tool bash: left out" in line and "built" not in line


def test_an_event_that_cannot_be_kept_says_why(hook_env) -> None:
    home, project = hook_env
    assert captured(home, project, "claude", "prompt", {"prompt": 42}) == []
    (line,) = logged(home)
    assert "prompt: nothing kept; could not read prompt (int, not text)" in line
    # a prompt in parts is text: kept
    (kept,) = captured(home, project, "claude", "prompt", {"prompt": ["two", "parts"]})
    assert kept["text"] == "two\nparts" and not logged(home)
    read = {"tool_name": "Read", "tool_input": "just a string"}
    assert captured(home, project, "claude", "post-tool", read) == []
    assert "tool_input (str, not an object)" in logged(home)[0]


@pytest.mark.parametrize("half", ["\\ud83d", "\\ude00", "\\udcff"])
def test_half_of_a_surrogate_pair_keeps_the_event(project: Path, home: Path, half: str) -> None:
    """A tool output cut inside an emoji (the JSON holds one half of its UTF-16 pair) and
    bytes that are not UTF-8 are stored with U+FFFD in their place; the rest is kept."""
    raw = (
        '{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, '
        '"tool_response": {"stdout": "cut \\ud83d\\ude00 whole, cut ' + half + " here "
    ).encode() + b'\xff", "stderr": ""}}'
    done = subprocess.run(
        [HOOK_PYTHON, "-I", "-S", str(HOOK), "post-tool"], input=raw, capture_output=True,
        env={"PATH": os.environ["PATH"], "CTX_TREE_HOME": str(home),
             "CLAUDE_PROJECT_DIR": str(project)},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    base = spool_dir(home, project)
    (name,) = spool.waiting(base)
    assert (
        json.loads((base / "new" / name).read_text())["text"]
        == "cut 😀 whole, cut \ufffd here \ufffd"
    )
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="tool_output", limit=1)
        assert "cut 😀 whole, cut \ufffd here" in app.store.get(node.id).content
    finally:
        app.close()


def test_an_older_hooks_event_with_half_a_pair_is_stored(project: Path, home: Path) -> None:
    """A spool file an older hook wrote, holding a lone surrogate (surrogatepass UTF-8), is
    stored with U+FFFD in its place, not dropped."""
    base = spool_dir(home, project)
    (base / "new").mkdir(parents=True)
    event = {"v": 1, "kind": "prompt", "text": "cut \ud83d here", "session_id": "s", "at": 1}
    data = json.dumps(event, ensure_ascii=False).encode("utf-8", "surrogatepass")
    (base / "new" / "00000000000000000001-1.json").write_bytes(data)
    app = App(project, home=home)
    try:
        assert ingest(app).stored == 1
        (node,) = app.store.recent(kind="prompt", limit=1)
        assert app.store.get(node.id).content == "cut \ufffd here"
    finally:
        app.close()
