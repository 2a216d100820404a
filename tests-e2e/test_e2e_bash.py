"""ctx_tree_bash over stdio with the official MCP client: answers, refusals and timeouts as the
host sees them (``isError`` for a refused command, never for a failing one)."""

from __future__ import annotations

import time
from pathlib import Path

from e2e_support import run_client, text_of


def test_bash_over_stdio(project: Path, home: Path) -> None:
    async def body(c):
        ok = await c.call_tool("ctx_tree_bash", {"command": "echo hi; echo err >&2; exit 2"})
        refused = await c.call_tool("ctx_tree_bash", {"command": "FOO=1 /usr/bin/env"})
        bad = await c.call_tool("ctx_tree_bash", {"command": "true", "timeout_s": 0})
        start = time.monotonic()
        slow = await c.call_tool(
            "ctx_tree_bash", {"command": "echo early; sleep 100", "timeout_s": 1}
        )
        return ok, refused, bad, slow, time.monotonic() - start

    ok, refused, bad, slow, took = run_client(project, home, "auto", body)
    assert not ok.is_error and text_of(ok) == "exit 2\nhi\nerr\n"
    assert refused.is_error and "refused before running" in text_of(refused)
    assert bad.is_error and "timeout_s" in text_of(bad)
    assert not slow.is_error and text_of(slow).startswith("killed at the timeout")
    assert "early" in text_of(slow) and took < 3
