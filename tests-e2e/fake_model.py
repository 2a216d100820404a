"""A scripted fake model API on 127.0.0.1 for driving real agent hosts offline.

It speaks OpenAI Responses (``/v1/responses``), OpenAI Chat Completions
(``/v1/chat/completions``) and Gemini (``:generateContent`` / ``:streamGenerateContent``), SSE or
JSON, plus ``/v1/models``. The script is the same on every wire: the number of tool results
already in the conversation picks the step.

1. call the offered tool whose name ends with ``ctx_tree_read`` with ``{"path": READ_PATH}``;
2. call the host's shell tool (whichever of :data:`SHELL_TOOLS` is offered; its arguments built
   from the tool's schema) with ``SHELL_COMMAND``; skipped when no shell tool is offered;
3. answer ``FINAL_TEXT``.

Every request body is kept in :attr:`FakeModel.requests` (a list of dicts), so a test can check
what reached the model (tool results, hook context). Requests without tools (titles,
classifiers) get ``ok``, or for a Gemini request with a response schema, JSON filling it.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SHELL_TOOLS = (
    "exec_command",
    "shell",
    "run_shell_command",
    "bash",
    "run_commands",
    "execute_command",
    "Bash",
)
FINAL_TEXT = "FAKE_MODEL_DONE: the answer"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "result", "response"):
            if key in value:
                return _text(value[key])
        return json.dumps(value)
    return "" if value is None else str(value)


def _tools(tools: Any, namespace: str | None = None) -> list[tuple[str, str | None, dict]]:
    """(name, namespace, parameters schema) of every offered tool, inside namespaces and
    Gemini functionDeclarations."""
    out: list[tuple[str, str | None, dict]] = []
    for t in tools or []:
        if not isinstance(t, dict):
            continue
        nested = False
        for key in ("functionDeclarations", "function_declarations", "tools"):
            if isinstance(t.get(key), list):
                out += _tools(t[key], t.get("name") if key == "tools" else None)
                nested = True
        if nested:
            continue
        fn = t.get("function") if isinstance(t.get("function"), dict) else t
        if isinstance(fn.get("name"), str):
            schema = (
                fn.get("parameters") or fn.get("parametersJsonSchema") or fn.get("input_schema")
            )
            out.append((fn["name"], namespace, schema if isinstance(schema, dict) else {}))
    return out


def _fill(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "ok"
    kind = schema.get("type")
    kind = kind.lower() if isinstance(kind, str) else kind
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: _fill(props.get(k, {})) for k in schema.get("required") or []}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return "ok"


def shell_arguments(schema: dict, command: str) -> dict:
    """Arguments for a shell tool given its schema: ``cmd``, ``commands`` or ``command``."""
    props = schema.get("properties") or {}
    args = _fill(schema) if isinstance(schema, dict) else {}
    args = args if isinstance(args, dict) else {}
    if "cmd" in props:
        args["cmd"] = command
    elif "commands" in props:
        args["commands"] = [command]
    elif (props.get("command") or {}).get("type") == "array":
        args["command"] = ["bash", "-lc", command]
    else:
        args["command"] = command
    for key in ("description", "explanation"):
        if key in props:
            args[key] = "run the command"
    if "requires_approval" in props:
        args["requires_approval"] = False
    return args


class FakeModel:
    """The fake on a free port; ``url`` is ``http://127.0.0.1:PORT``. Stop with :meth:`close`."""

    def __init__(self, read_path: str, shell_command: str | None) -> None:
        self.read_path, self.shell_command = read_path, shell_command
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(_Handler):
            model = fake

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def step(self, results: list[str], tools: Any) -> tuple[str, Any, Any]:
        """("call", (name, namespace), arguments) or ("text", text, None)."""
        offered = _tools(tools)
        if not offered:
            return "text", "ok", None
        if not results:
            for name, ns, _schema in offered:
                if name.endswith("ctx_tree_read"):
                    return "call", (name, ns), {"path": self.read_path}
        if len(results) == 1 and self.shell_command:
            for wanted in SHELL_TOOLS:
                for name, ns, schema in offered:
                    if name == wanted:
                        return "call", (name, ns), shell_arguments(schema, self.shell_command)
        return "text", FINAL_TEXT, None

    def all_text(self, start: int = 0) -> str:
        with self.lock:
            return "\n".join(json.dumps(r) for r in self.requests[start:])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    model: FakeModel

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, obj: Any, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: Any, event: str | None = None) -> None:
        head = f"event: {event}\n" if event else ""
        payload = data if isinstance(data, str) else json.dumps(data)
        self.wfile.write(f"{head}data: {payload}\n\n".encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        if self.path.split("?")[0].endswith("/models"):
            model = {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}
            return self._json(
                {"object": "list", "data": [model], "models": [{"name": "models/fake-model"}]}
            )
        self._json({}, 404)

    def do_POST(self) -> None:
        try:
            self._post()
        except Exception:  # shown by pytest -s; the host sees a dropped connection
            import traceback

            traceback.print_exc()
            raise

    def _post(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        with self.model.lock:
            self.model.requests.append({"path": self.path, "body": body})
        path = self.path.split("?")[0]
        if path.endswith("/responses"):
            return self.openai_responses(body)
        if path.endswith("/chat/completions"):
            return self.chat(body)
        if ":countTokens" in path:
            return self._json({"totalTokens": 10})
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return self.gemini(body, stream=":streamGenerateContent" in path)
        self._json({})

    def openai_responses(self, body: dict) -> None:
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        results = [
            _text(i.get("output"))
            for i in items
            if i.get("type") in ("function_call_output", "custom_tool_call_output")
        ]
        kind, what, args = self.model.step(results, body.get("tools"))
        n = len(results)
        if kind == "call":
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                    "name": what[0], "arguments": json.dumps(args), "status": "completed"}  # fmt: skip
            if what[1]:
                item["namespace"] = what[1]
        else:
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": what, "annotations": []}]}  # fmt: skip
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}  # fmt: skip
        resp = {"id": f"resp_{n}", "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": "fake-model", "output": [item], "usage": usage}  # fmt: skip
        if not body.get("stream"):
            return self._json(resp)
        self._sse_start()
        start = {**resp, "status": "in_progress", "output": []}
        self._sse({"type": "response.created", "response": start}, "response.created")
        self._sse({"type": "response.output_item.added", "output_index": 0, "item": item},
                  "response.output_item.added")  # fmt: skip
        if kind == "text":
            self._sse({"type": "response.output_text.delta", "item_id": item["id"],
                       "output_index": 0, "content_index": 0, "delta": what},
                      "response.output_text.delta")  # fmt: skip
        self._sse({"type": "response.output_item.done", "output_index": 0, "item": item},
                  "response.output_item.done")  # fmt: skip
        self._sse({"type": "response.completed", "response": resp}, "response.completed")

    def chat(self, body: dict) -> None:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        results = [_text(m.get("content")) for m in messages if m.get("role") == "tool"]
        kind, what, args = self.model.step(results, body.get("tools"))
        n = len(results)
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if kind == "call":
            call = {"id": f"call_{n}", "type": "function",
                    "function": {"name": what[0], "arguments": json.dumps(args)}}  # fmt: skip
            message, finish = (
                {"role": "assistant", "content": None, "tool_calls": [call]},
                "tool_calls",
            )
        else:
            message, finish = {"role": "assistant", "content": what}, "stop"
        base = {"id": f"chatcmpl-{n}", "created": int(time.time()), "model": "fake-model"}
        if not body.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            return self._json(
                {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
        self._sse_start()
        base["object"] = "chat.completion.chunk"
        if kind == "call":
            delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **call}]}
        else:
            delta = {"role": "assistant", "content": what}
        self._sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        self._sse(
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": usage,
            }
        )
        self._sse("[DONE]")

    def gemini(self, body: dict, stream: bool) -> None:
        parts = [
            p
            for c in body.get("contents") or []
            for p in c.get("parts") or []
            if isinstance(p, dict)
        ]
        results = [
            _text(p["functionResponse"].get("response")) for p in parts if "functionResponse" in p
        ]
        kind, what, args = self.model.step(results, body.get("tools"))
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if kind == "call":
            out = [{"functionCall": {"name": what[0], "args": args}}]
        elif schema:
            out = [{"text": json.dumps(_fill_all(schema))}]
        else:
            out = [{"text": what}]
        resp = {"candidates": [{"content": {"role": "model", "parts": out}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                "modelVersion": "fake-model"}  # fmt: skip
        if not stream:
            return self._json(resp)
        self._sse_start()
        self._sse(resp)


def _fill_all(schema: Any) -> Any:
    """Like :func:`_fill`, but every property (Gemini's classifiers read optional ones too)."""
    if isinstance(schema, dict) and (
        schema.get("type") in ("object", "OBJECT") or "properties" in schema
    ):
        props = schema.get("properties") or {}
        return {k: _fill_all(v) for k, v in props.items()}
    return _fill(schema)
