"""Real Claude Code, offline: finding the CLI, its environment, and a scripted fake Anthropic
Messages API on 127.0.0.1 (no key, no network). Shared by ``test_e2e_plugin.py`` and
``test_e2e_claude_hooks.py``.

Claude Code comes from the npm registry (``uv run nox -s plugin`` installs it into
``.nox/claude-code``); set ``CTX_TREE_CLAUDE=/path/to/claude`` to use another one, or
``CTX_TREE_CLAUDE=`` (empty) to turn these tests off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugin"


def _find_claude() -> tuple[str | None, str]:
    env = os.environ.get("CTX_TREE_CLAUDE")
    if env is not None:
        if not env:
            return (
                None,
                "CTX_TREE_CLAUDE is empty: Claude Code tests turned off (nox -s plugin runs them)",
            )
        return (
            (env, "") if shutil.which(env) else (None, f"CTX_TREE_CLAUDE={env} is not executable")
        )
    local = ROOT / ".nox" / "claude-code" / "node_modules" / ".bin" / "claude"
    if local.exists():
        return str(local), ""
    return None, "Claude Code not installed: run `uv run nox -s plugin` or set CTX_TREE_CLAUDE"


CLAUDE, WHY = _find_claude()
needs_claude = pytest.mark.skipif(CLAUDE is None, reason=WHY)


def claude_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment minus ctx-tree's and Claude's variables, under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTX_TREE_", "CLAUDE"))}
    env.pop("ANTHROPIC_API_KEY", None)
    if "UV_CACHE_DIR" not in env and shutil.which("uv"):
        # Claude Code runs under a throw-away HOME; keep uv's real cache.
        cache = subprocess.run(["uv", "cache", "dir"], capture_output=True, text=True)
        if cache.returncode == 0:
            env["UV_CACHE_DIR"] = cache.stdout.strip()
    env.update(
        HOME=str(home),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        MCP_CONNECTION_NONBLOCKING="0",  # -p: wait for MCP servers before the first turn
        **extra,
    )
    return env


def run_claude(
    *args: str, cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


class FakeAnthropic(BaseHTTPRequestHandler):
    """Messages API: the first turn answers with a ``tool_use`` for each ``(name, input)`` of
    ``tool_uses`` whose tool the request offers; the turn carrying the tool results answers a
    text (quoting them when ``quote_results``). Every request body is kept in ``requests``."""

    tool_uses: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    quote_results: ClassVar[bool] = True
    requests: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        type(self).requests.append({"path": self.path, "body": body})
        if "count_tokens" in self.path:
            return self._send(json.dumps({"input_tokens": 10}).encode(), "application/json")
        blocks, stop = self._plan(body)
        # A fresh id per answer: Claude Code merges the assistant messages of one id into one.
        msg = {"id": f"msg_fake_{len(type(self).requests)}", "type": "message", "role": "assistant",
               "model": body.get("model", "claude-fake"), "content": blocks,
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip
        if not body.get("stream"):
            return self._send(json.dumps(msg).encode(), "application/json")
        events = [("message_start", {"message": {**msg, "content": [], "stop_reason": None}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start, delta = (
                    {"type": "text", "text": ""},
                    {"type": "text_delta", "text": b["text"]},
                )
            else:
                start = {**b, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            events += [("content_block_start", {"index": i, "content_block": start}),
                       ("content_block_delta", {"index": i, "delta": delta}),
                       ("content_block_stop", {"index": i})]  # fmt: skip
        events += [("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 5}}),
                   ("message_stop", {})]  # fmt: skip
        sse = "".join(f"event: {n}\ndata: {json.dumps({'type': n, **d})}\n\n" for n, d in events)
        self._send(sse.encode(), "text/event-stream")

    def _plan(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        content = (body.get("messages") or [{}])[-1].get("content")
        results = [
            c
            for c in (content if isinstance(content, list) else [])
            if isinstance(c, dict) and c.get("type") == "tool_result"
        ]
        if results:
            if not self.quote_results:
                return [{"type": "text", "text": f"Done: {len(results)} results."}], "end_turn"
            texts = []
            for c in results:
                text = c.get("content")
                if isinstance(text, list):
                    text = " ".join(x.get("text", "") for x in text if isinstance(x, dict))
                texts.append(str(text))
            return [{"type": "text", "text": "TOOL_RESULT_SEEN: " + " ".join(texts)}], "end_turn"
        offered = {t.get("name") for t in body.get("tools") or []}
        uses = [
            {"type": "tool_use", "id": f"toolu_fake_{i}", "name": name, "input": tool_input}
            for i, (name, tool_input) in enumerate(self.tool_uses)
            if name in offered
        ]
        if uses:
            return uses, "tool_use"
        return [{"type": "text", "text": "ok"}], "end_turn"

    def _send(self, data: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def fake_api(
    tool_uses: list[tuple[str, dict[str, Any]]], *, quote_results: bool = True
) -> Iterator[tuple[str, type[FakeAnthropic]]]:
    """Serve a fresh :class:`FakeAnthropic` on 127.0.0.1; yields ``(base URL, handler class)``."""
    handler = type(
        "Fake",
        (FakeAnthropic,),
        {"tool_uses": tool_uses, "quote_results": quote_results, "requests": []},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def stream_events(run: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The JSON events of a ``--output-format stream-json`` run."""
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def tool_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        c
        for e in events
        if e.get("type") == "user"
        for c in e.get("message", {}).get("content") or []
        if isinstance(c, dict) and c.get("type") == "tool_result"
    ]
