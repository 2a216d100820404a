"""Fake Ollama, OpenAI-compatible and Anthropic servers on 127.0.0.1 (real HTTP, real sockets).

Each request is recorded (path, headers, JSON body). Embeddings are a deterministic bag of
words: every word (lower-cased, split on non-letters, with a crude plural strip) adds 1 to
``hash(word) % dims``, so texts sharing words point the same way. ``behaviour`` changes the
answers: ``delay_s``, ``status`` (an HTTP error), ``dims`` (wrong length), ``fail_after``
(requests answered before errors start, 503 or ``fail_status``), ``trickle_s`` (the body sent a byte at a time, this
many seconds apart), ``trickle_headers_s`` (the status line and headers sent so),
``bad_word`` (an HTTP 500 for a batch holding a text with that word, as Ollama answers a NaN),
``zero_word`` (an all-zero vector for such a text), ``max_inputs`` (HTTP 400 "too many inputs"
for a larger batch), ``busy`` (a list of ``(status, Retry-After or None)`` answered to the next
requests, one each), ``no_usage`` (an Anthropic answer without ``usage``). Each request records
its ``at`` (``time.monotonic()``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMS = 64


def bag_of_words(text: str, dims: int = DIMS) -> list[float]:
    vec = [0.0] * dims
    for word in re.findall(r"[a-z]+", text.lower()):
        word = word[:-1] if word.endswith("s") and len(word) > 3 else word
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % dims] += 1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


@dataclass
class Fake:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    behaviour: dict[str, Any] = field(default_factory=dict)
    summary_text: str = "A summary of the material."
    usage: tuple[int, int] = (120, 30)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"] == path]


def _handler(fake: Fake) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj).encode()
            try:
                if fake.behaviour.get("trickle_headers_s"):
                    head = (
                        f"HTTP/1.1 {code} OK\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(data)}\r\n\r\n"
                    ).encode()
                    for i in range(len(head)):
                        self.wfile.write(head[i : i + 1])
                        self.wfile.flush()
                        time.sleep(fake.behaviour["trickle_headers_s"])
                    self.wfile.write(data)
                    return
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                if fake.behaviour.get("trickle_s"):
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(fake.behaviour["trickle_s"])
                    return
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
            fake.requests.append(
                {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                    "at": time.monotonic(),
                }
            )
            b = fake.behaviour
            if b.get("busy"):
                status, after = b["busy"].pop(0)
                extra = {"Retry-After": after} if after is not None else {}
                self._send(status, {"error": {"message": "rate limited"}}, extra)
                return
            if b.get("delay_s"):
                time.sleep(b["delay_s"])
            answered = len(fake.requests) - 1
            if b.get("status") or (b.get("fail_after") is not None and answered >= b["fail_after"]):
                status = b.get("status") or b.get("fail_status") or 503
                self._send(status, {"error": {"message": "overloaded, try later"}})
                return
            dims = b.get("dims", DIMS)
            inputs = body.get("input") if isinstance(body.get("input"), list) else []
            if b.get("max_inputs") and len(inputs) > b["max_inputs"]:
                message = f"too many inputs: at most {b['max_inputs']} per request"
                self._send(400, {"error": {"message": message}})
                return
            if b.get("bad_word") and any(b["bad_word"] in t for t in inputs):
                message = "failed to encode response: json: unsupported value: NaN"
                self._send(500, {"error": message})
                return

            def vector(text: str) -> list[float]:
                if b.get("zero_word") and b["zero_word"] in text:
                    return [0.0] * dims
                return bag_of_words(text, dims)

            if self.path == "/api/embed":
                self._send(
                    200,
                    {
                        "model": body["model"],
                        "embeddings": [vector(t) for t in body["input"]],
                    },
                )
            elif self.path == "/v1/embeddings":
                data = [
                    {"object": "embedding", "index": i, "embedding": vector(t)}
                    for i, t in enumerate(body["input"])
                ]
                self._send(
                    200, {"object": "list", "data": list(reversed(data)), "model": body["model"]}
                )
            elif self.path == "/v1/messages":
                answer = {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": [{"type": "text", "text": fake.summary_text}],
                    "usage": {"input_tokens": fake.usage[0], "output_tokens": fake.usage[1]},
                }
                if b.get("no_usage"):
                    del answer["usage"]
                self._send(200, answer)
            else:
                self._send(404, {"error": "unknown route"})

    return Handler


@contextmanager
def fake_server() -> Iterator[Fake]:
    """A fake provider server on 127.0.0.1 (a free port), stopped on exit."""
    fake = Fake(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    httpd.daemon_threads = True
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()


def closed_port_url() -> str:
    """A loopback URL where nothing listens (connection refused at once)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
