"""No input crashes the server: thousands of random tool calls over stdio, then a valid read."""

from __future__ import annotations

import asyncio
import threading

import pytest
from e2e_support import SERVER, server_env, text_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TOOLS = {
    "ctx_tree_read": ["path", "symbol", "start_line", "end_line", "query", "budget_tokens"],
    "ctx_tree_grep": [
        "pattern",
        "path",
        "glob",
        "ignore_case",
        "fixed_strings",
        "context_lines",
        "after_context",
        "before_context",
        "numbers",
        "budget_tokens",
    ],
    "ctx_tree_search": ["query", "mode", "limit", "filters"],
    "ctx_tree_get": ["node_id", "offset", "budget_tokens"],
    "ctx_tree_note": ["content", "title", "parent_id"],
    "ctx_tree_compose": ["seed_ids", "query", "budget_tokens", "depth", "weights", "include_stale"],
    "ctx_tree_neighbors": ["node_id", "depth", "edge_kinds", "limit"],
    "ctx_tree_path_to_root": ["node_id"],
    "ctx_tree_recent": ["since", "kind", "limit"],
    "no_such_tool": ["x"],
}
NASTY = st.sampled_from(
    [
        "",
        ".",
        "..",
        "../x",
        ".env",
        "/proc/self/mem",
        "/dev/zero",
        "pkg",
        "pkg/decoder.py",
        "\x00",
        "(",
        "[",
        "*",
        '"',
        "NEAR",
        "AND",
        "a" * 5000,
        "pkg/argparse_copy.py",
        "JSONDecoder.decode",
        "\u202e\ud7ff",
        "~",
        "-x",
    ]
)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    NASTY,
)
VALUE = st.one_of(
    SCALAR, st.lists(SCALAR, max_size=4), st.dictionaries(st.text(max_size=8), SCALAR, max_size=3)
)


@st.composite
def tool_call(draw):
    name = draw(st.sampled_from(sorted(TOOLS)))
    keys = draw(st.lists(st.sampled_from([*TOOLS[name], "bogus"]), max_size=5, unique=True))
    return name, {k: draw(VALUE) for k in keys}


class Session:
    """One server and client living in a background event loop, shared by all examples."""

    def __init__(self, project, home):
        from mcp import Client, StdioServerParameters

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        params = StdioServerParameters(command=SERVER, cwd=str(project), env=server_env(home))
        ready = threading.Event()

        async def hold():
            self.stop = asyncio.Event()
            async with Client(params, mode="legacy") as client:  # entered and left in one task
                self.client = client
                ready.set()
                await self.stop.wait()

        self.holder = asyncio.run_coroutine_threadsafe(hold(), self.loop)
        assert ready.wait(60), "server did not start"

    def run(self, coro, timeout=60):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self):
        self.loop.call_soon_threadsafe(self.stop.set)
        self.holder.result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def session(project, home):
    s = Session(project, home)
    yield s
    s.close()


def test_random_calls_never_crash_the_server(session):
    answered = []

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(tool_call(), min_size=250, max_size=250))
    def batch(calls):
        for name, args in calls:
            result = session.run(session.client.call_tool(name, args))
            text = text_of(result)
            assert text.strip(), f"{name}({args!r}) answered no text"
            # An argument error names its argument; only an unhandled exception reaches the
            # server's catch-all, which answers "internal error (...)".
            assert not text.startswith("internal error"), f"{name}({args!r}): {text}"
            answered.append(result.is_error)

    batch()
    assert len(answered) >= 2000
    assert any(answered)  # most random calls are argument errors
    ok = session.run(
        session.client.call_tool(
            "ctx_tree_read", {"path": "pkg/decoder.py", "symbol": "JSONDecoder.decode"}
        )
    )
    assert not ok.is_error
    assert "def decode(self, s, _w=WHITESPACE.match):" in text_of(ok)
