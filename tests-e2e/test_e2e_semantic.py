"""Semantic and hybrid search through the real server over stdio, with a fake OpenAI-compatible
embeddings server on 127.0.0.1: the embedding walker fills the vectors in the background, and a
provider that stops answering turns searches into keyword answers with a note."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from e2e_support import run_client, text_of


def bag_of_words(text: str, dims: int = 64) -> list[float]:
    vec = [0.0] * dims
    for word in re.findall(r"[a-z]+", text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % dims] += 1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


def start_fake() -> tuple[ThreadingHTTPServer, dict]:
    state = {"requests": 0, "down": False}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"] += 1
            if state["down"]:
                code, answer = 503, {"error": {"message": "down for maintenance"}}
            else:
                data = [
                    {"index": i, "embedding": bag_of_words(t)} for i, t in enumerate(body["input"])
                ]
                code, answer = 200, {"data": data, "model": body["model"]}
            raw = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, state


def test_semantic_and_hybrid_search_over_stdio_with_the_embedding_walker(project, home):
    httpd, state = start_fake()
    (home / "config.json").write_text(json.dumps({"walkers": {"embeddingIdleMs": 100}}))
    env = {
        "CTX_TREE_EMBEDDING_PROVIDER": "openai",
        "CTX_TREE_EMBEDDING_URL": f"http://127.0.0.1:{httpd.server_address[1]}/v1",
        "CTX_TREE_EMBEDDING_MODEL": "fake-bow",
    }

    async def body(c):
        await c.call_tool(
            "ctx_tree_note",
            {
                "content": "Failed uploads are attempted again with exponential backoff.",
                "title": "retry",
            },
        )
        await c.call_tool("ctx_tree_read", {"path": "pkg/decoder.py"})
        for _ in range(100):  # the walker embeds in the background
            answer = text_of(
                await c.call_tool(
                    "ctx_tree_search", {"query": "exponential backoff", "mode": "semantic"}
                )
            )
            if "not embedded yet" not in answer and "note retry" in answer:
                break
            await asyncio.sleep(0.2)
        hybrid = text_of(
            await c.call_tool("ctx_tree_search", {"query": "backoff", "mode": "hybrid", "limit": 3})
        )
        state["down"] = True
        fallback = await c.call_tool(
            "ctx_tree_search", {"query": "exponential backoff", "mode": "hybrid"}
        )
        return answer, hybrid, fallback

    try:
        semantic, hybrid, fallback = run_client(project, home, "legacy", body, **env)
    finally:
        httpd.shutdown()
    assert "(semantic)" in semantic and "note retry" in semantic.splitlines()[0]
    assert "note retry" in hybrid.splitlines()[0] and "(hybrid)" in hybrid
    assert not fallback.is_error
    text = text_of(fallback)
    assert "HTTP 503" in text and "keyword results" in text and "note retry" in text
    assert state["requests"] >= 3
