"""The plugin's hooks inside the real Claude Code, offline against a scripted fake Anthropic API
(``claude_support.py``): native tool calls are captured, refused commands are not, secrets are
redacted, the prompt is recallable, and steering shows up in the next request to the model or
refuses the call. Run by ``uv run nox -s plugin``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from claude_support import (
    CLAUDE,
    PLUGIN,
    FakeAnthropic,
    claude_env,
    fake_api,
    needs_claude,
    run_claude,
    stream_events,
)

TOKEN = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
CANARY = "canary-env-value-5e1d"
MARKER = "hook-marker-b7c2e9"
PROMPT_MARKER = "prompt-marker-4d8f1a"


def ctx_tree(*args: str, project: Path, home: Path) -> str:
    """The ctx-tree CLI against the store Claude Code's session used."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "ctx-tree"), "--root", str(project), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CTX_TREE_HOME": str(home / ".ctx-tree"), "HOME": str(home)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def session(tmp_path: Path, tool_uses, *, config: dict | None = None):
    """Run one Claude Code turn in a fresh project; returns (project, home, events, requests)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "notes.py").write_text(f'def rollout():\n    """{MARKER}: ship it."""\n')
    (project / "big.py").write_text(
        "".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(1000))
    )
    if config:
        (project / ".ctx-tree").mkdir()
        (project / ".ctx-tree" / "config.json").write_text(json.dumps(config))
    uses = [(name, {k: str(project / v) if k == "file_path" else v for k, v in inp.items()})
            for name, inp in tool_uses]  # fmt: skip
    with fake_api(uses, quote_results=False) as (url, handler):
        env = claude_env(home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-offline-fake")
        env["CTX_E2E_CANARY"] = CANARY
        run = run_claude(
            "-p", f"Look at the rollout notes ({PROMPT_MARKER}).", "--plugin-dir", str(PLUGIN),
            "--allowedTools", "Read,Bash", "--output-format", "stream-json", "--verbose",
            "--include-hook-events", cwd=project, env=env, timeout=180,
        )  # fmt: skip
    events = stream_events(run)
    final = next(e for e in events if e.get("type") == "result")
    assert final.get("subtype") == "success" and run.returncode == 0, run.stderr[-2000:]
    return project, home, events, handler.requests


def hook_responses(events, event: str) -> list[dict]:
    return [
        e for e in events if e.get("subtype") == "hook_response" and e.get("hook_event") == event
    ]


@needs_claude
def test_claude_code_session_is_captured_redacted_and_recallable(tmp_path: Path) -> None:
    project, home, events, requests = session(
        tmp_path,
        [
            ("Read", {"file_path": "notes.py"}),
            ("Read", {"file_path": "big.py"}),
            (
                "Bash",
                {
                    "command": f"echo deploy token {TOKEN} for the cache rollout",
                    "description": "echo",
                },
            ),
            ("Bash", {"command": "env", "description": "print the environment"}),
        ],
    )
    # Every hook ran and succeeded, silently.
    for name in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"):
        responses = hook_responses(events, name)
        assert responses and all(r.get("outcome") == "success" for r in responses), name
        assert all(not r.get("stderr") for r in responses), name
    reads = [
        r for r in hook_responses(events, "PostToolUse") if r["hook_name"] == "PostToolUse:Read"
    ]
    assert len(reads) == 2 and all(r["exit_code"] == 0 for r in reads)
    # No hint on a Read in Claude Code: the routing entry answers Read (docs/routing.md), and
    # it steps aside until the server is up, as here, so the file came whole and alone.
    (after,) = [
        r for r in requests if "tool_result" in json.dumps(r["body"].get("messages", [])[-1:])
    ]
    assert "ctx_tree_read(" not in json.dumps(after["body"]["messages"][-1])

    ctx_tree("walk", project=project, home=home)  # whatever the plugin's server left
    found = ctx_tree("search", MARKER, project=project, home=home)
    assert "notes.py" in found and "file_chunk" in found
    prompt = ctx_tree("search", PROMPT_MARKER, project=project, home=home)
    assert "prompt" in prompt
    redacted = ctx_tree("search", "REDACTED github_token", project=project, home=home)
    assert "tool_output" in redacted and "$ echo deploy token" in redacted  # its command
    outputs = ctx_tree("recent", "--kind", "tool_output", project=project, home=home)
    rows = re.findall(r"^\d+\. \$ (.*)$", outputs, re.M)
    assert len(rows) == 1 and rows[0].startswith("echo"), outputs  # `env` left nothing
    for path in (home / ".ctx-tree").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert TOKEN.encode() not in data and CANARY.encode() not in data, path
    # The hooks' captures and the plugin server's session are one session node.
    init = next(e for e in events if e.get("subtype") == "init")
    recent = ctx_tree("recent", "--kind", "session", project=project, home=home)
    assert f"session {init['session_id']}" in recent


@pytest.fixture(autouse=True)
def _no_ctx_tree_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTX_TREE_HOME", raising=False)


class _CompactingModel(FakeAnthropic):
    """One Read on the first turn, a summary when Claude Code asks for one (``/compact``),
    else ``ok``; every request body is kept in ``requests``."""

    requests: ClassVar[list[dict]] = []
    read_path: ClassVar[str] = ""
    read_done: ClassVar[list[bool]] = []

    def _plan(self, body: dict) -> tuple[list[dict], str]:
        if "Please provide your summary" in json.dumps(body.get("messages") or []):
            return [{"type": "text", "text": "<summary>SUMMARY-7f3a</summary>"}], "end_turn"
        if not self.read_done and any(t.get("name") == "Read" for t in body.get("tools") or []):
            self.read_done.append(True)
            tool_use = {"type": "tool_use", "id": "toolu_read_1", "name": "Read",
                        "input": {"file_path": self.read_path}}  # fmt: skip
            return [tool_use], "tool_use"
        return [{"type": "text", "text": "ok"}], "end_turn"


@needs_claude
def test_after_compact_the_next_request_holds_the_digest_within_its_budget(
    tmp_path: Path,
) -> None:
    """A real ``/compact`` in one live Claude Code session (prompts on stdin, stream-json):
    the plugin's server stores the turns, Claude Code summarises through the fake model, the
    SessionStart hook (source ``compact``) injects the digest, and the next request to the model
    holds it, within its 800-token budget (docs/capture.md, "Resume after compaction")."""
    from ctx_tree_compose import estimate_tokens

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "notes.py").write_text(f'def rollout():\n    """{MARKER}: ship it."""\n')
    model = type(
        "Model",
        (_CompactingModel,),
        {"requests": [], "read_done": [], "read_path": str(project / "notes.py")},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = claude_env(
        home,
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
        ANTHROPIC_API_KEY="sk-ant-offline-fake",
    )
    assert CLAUDE is not None
    claude = subprocess.Popen(
        [CLAUDE, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
         "--verbose", "--include-hook-events", "--plugin-dir", str(PLUGIN),
         "--allowedTools", "Read"],
        cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert claude.stdin is not None and claude.stdout is not None
    events: list[dict] = []

    def turn(text: str) -> dict:
        """Send one user message; the events up to its result."""
        message = {"type": "user", "message": {"role": "user", "content": text}}
        claude.stdin.write(json.dumps(message) + "\n")
        claude.stdin.flush()
        for line in claude.stdout:
            events.append(json.loads(line))
            if events[-1].get("type") == "result":
                return events[-1]
        raise AssertionError(f"Claude Code ended during {text!r}")

    try:
        assert turn(f"Why does the rollout fail ({PROMPT_MARKER})?")["subtype"] == "success"
        assert turn("And what does notes.py say?")["subtype"] == "success"
        # The plugin's server stores what the hooks spooled within a second or two and writes
        # the digest; an interactive session has that time while the user types.
        digests = home / ".ctx-tree" / "spool"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            written = [p.read_text() for p in digests.glob("*/digest/latest.txt")]
            if (
                written
                and "- notes.py (id" in written[0]
                and "what does notes.py say" in written[0]
            ):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"no digest of both turns in 20 s: {written}")
        before = len(model.requests)
        assert turn("/compact")["subtype"] == "success"
        summarised = len(model.requests)
        assert turn("go on")["result"] == "ok"
    finally:
        claude.stdin.close()
        try:
            claude.wait(timeout=30)
        finally:
            if claude.poll() is None:
                claude.kill()
            server.shutdown()
            server.server_close()

    assert any(e.get("subtype") == "compact_boundary" for e in events), "no compaction"
    asks = [json.dumps(r["body"].get("messages")) for r in model.requests[before:summarised]]
    assert any("Please provide your summary" in a for a in asks)  # the fake model summarised
    (compacted,) = [
        e
        for e in hook_responses(events, "SessionStart")
        if e["hook_name"] == "SessionStart:compact"
    ]
    injected = json.loads(compacted["output"])["hookSpecificOutput"]["additionalContext"]
    assert injected.startswith("ctx-tree resume digest of this session")
    assert re.search(rf"- Why does the rollout fail \({PROMPT_MARKER}\)\? \(id \w+\)", injected)
    assert re.search(r"- notes\.py \(id \w+\)", injected)
    assert estimate_tokens(injected) <= 800
    # The next request to the model (the one carrying the next prompt) holds the digest, whole.
    after = next(
        body
        for r in model.requests[summarised:]
        if '"go on' in (body := json.dumps(r["body"])) and "messages" in r["body"]
    )
    assert "SUMMARY-7f3a" in after
    assert json.dumps(injected)[1:-1] in after
