"""The start-up path: answers from the snapshot, buffering, handover and failure."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from ctx_tree_mcp.serve.instant import INTERNAL_ERROR, INVALID_REQUEST, Session, load_snapshot

HEAVY = ("mcp", "mcp_types", "pydantic", "pydantic_core", "apsw", "tree_sitter", "anyio",
         "ctx_tree_store", "ctx_tree_chunk", "ctx_tree_walkers", "ctx_tree_schema")  # fmt: skip


def test_the_start_up_path_imports_nothing_heavy() -> None:
    code = (
        "import sys, ctx_tree_mcp.serve.instant as i; i.load_snapshot();"
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Engine:
    """Records what the session hands over (the real one is tested over stdio, tests-e2e)."""

    def __init__(self) -> None:
        self.fed: list[dict] = []
        self.drop: dict = {}
        self.closed = False

    def feed(self, line: str) -> None:
        self.fed.append(json.loads(line))

    def close(self) -> None:
        self.closed = True


def init(version: str, i: int = 1) -> str:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "initialize", "params": params})


INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
CALL = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ctx_tree_recent","arguments":{}}}'


@pytest.fixture
def session() -> tuple[Session, list[dict]]:
    out: list[dict] = []
    return Session(load_snapshot(), lambda text: out.append(json.loads(text))), out


@pytest.mark.parametrize("version", [*load_snapshot()["versions"], "1999-01-01"])
def test_initialize_negotiates_like_the_sdk(session, version: str) -> None:
    s, out = session
    snap = load_snapshot()
    s.receive(init(version))
    s.receive(INITIALIZED)
    s.receive('{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
    s.receive('{"jsonrpc":"2.0","id":3,"method":"ping"}')
    want = version if version in snap["versions"] else snap["latest"]
    assert [m["id"] for m in out] == [1, 2, 3]
    assert out[0]["result"]["protocolVersion"] == want
    assert out[0]["result"] == snap["answers"][want]["initialize"]
    assert out[1]["result"]["tools"][0]["name"] == "ctx_tree_read"
    assert out[2]["result"] == {} and not s.pending


def test_a_call_waits_for_the_handover_then_goes_to_the_sdk_in_order(session) -> None:
    s, out = session
    s.receive(init("2025-06-18", i="a"))
    s.receive(INITIALIZED)
    s.receive(CALL)
    s.receive('{"jsonrpc":"2.0","id":8,"method":"tools/list"}')  # queued behind the call
    assert [m["id"] for m in out] == ["a"] and len(s.pending) == 2
    engine = Engine()
    assert s.handover(engine)
    assert [m.get("id", m["method"]) for m in engine.fed] == [
        "a",
        "notifications/initialized",
        7,
        8,
    ]
    assert engine.drop == {"a": out[0]["result"]}  # its duplicate answer is dropped
    s.receive('{"jsonrpc":"2.0","id":9,"method":"ping"}')
    assert engine.fed[-1]["id"] == 9 and len(out) == 1  # the SDK answers everything now
    s.end_of_input()
    assert engine.closed


def test_batches_are_invalid_requests(session) -> None:
    s, out = session
    s.receive('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert out == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": INVALID_REQUEST, "message": out[0]["error"]["message"]},
        }
    ]
    assert "batch" in out[0]["error"]["message"]


def test_a_failed_handover_answers_waiting_and_later_requests_with_the_reason(session) -> None:
    s, out = session
    s.receive(init("2025-06-18"))
    s.receive(CALL)
    s.fail("ImportError: no module named mcp")
    s.receive('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}')
    errors = [m for m in out if "error" in m]
    assert [m["id"] for m in errors] == [7, 8]
    assert all(
        m["error"]["code"] == INTERNAL_ERROR and "no module named mcp" in m["error"]["message"]
        for m in errors
    )
    assert not s.handover(Engine())  # too late: the session stays failed
    s.end_of_input()
    assert s.done.is_set()


def test_anything_unusual_is_left_to_the_sdk(session) -> None:
    s, out = session
    s.receive(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
    )
    s.receive("not json")
    s.receive('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}')
    assert out == [] and len(s.pending) == 3


def test_the_snapshot_is_what_the_sdk_server_answers_today(tmp_path) -> None:
    from ctx_tree_mcp.serve.snapshot import REBUILD, record_answers

    snap = load_snapshot()
    for version in snap["versions"]:
        assert record_answers(version, str(tmp_path)) == snap["answers"][version], (
            f"the start-up snapshot is stale: run `{REBUILD}`"
        )


def test_a_lone_surrogate_escape_reaches_the_tool_instead_of_going_unanswered() -> None:
    """pydantic's JSON parser rejects ``"\\ud800"``; the SDK would then answer nothing and the
    host waits for its timeout. The line still becomes the request, for the tool to refuse."""
    from ctx_tree_mcp.serve.handover import parse_message

    line = (
        '{"jsonrpc":"2.0","id":5,"method":"tools/call",'
        '"params":{"name":"ctx_tree_read","arguments":{"path":"\\ud800.py"}}}'
    )
    message = parse_message(line)
    assert message.id == 5 and message.params["arguments"]["path"] == "\ud800.py"
    with pytest.raises(ValueError, match="Invalid JSON"):
        parse_message("not json")


def test_an_unknown_argument_is_refused_before_serving() -> None:
    """A host config passing a flag the server does not know hears why, instead of a server
    that ignores it: exit 2, the argument named on stderr, nothing on stdout (the protocol)."""
    code = "import sys; sys.argv = ['ctx-tree-mcp', '--bogus']; from ctx_tree_mcp.serve.instant import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, input="", timeout=60
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "ctx-tree-mcp: unknown argument '--bogus'" in done.stderr and "--help" in done.stderr


def test_a_bare_server_routes_for_the_project_it_serves(tmp_path, monkeypatch) -> None:
    """No --root and no host variable: routing starts for the root the server picks (the
    working directory here), as doctor says it does (docs/routing.md)."""
    from types import SimpleNamespace

    from ctx_tree_mcp.app import PROJECT_VARIABLES
    from ctx_tree_mcp.route import service
    from ctx_tree_mcp.serve.handover import serve_session

    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))
    for name in PROJECT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    started: list[str] = []
    monkeypatch.setattr(
        service,
        "start",
        lambda root, *a, **k: (
            started.append(str(root)) or SimpleNamespace(decide=lambda args: "ROUTED")
        ),
    )
    session = Session(load_snapshot(), lambda text: None)
    monkeypatch.setattr(session, "handover", lambda engine: False)  # ends before serving
    serve_session(session, None)
    assert started == [str(project.resolve())]
    assert session.route_decide({"tool": "Bash"}) == "ROUTED"
