"""Start-up over real stdio: the snapshot answers equal the SDK server's, for every protocol
version; a call made before the handover is answered once, normally; batches and a failed
start get error answers, never silence or a hang."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.serve.instant import Session, load_snapshot
from ctx_tree_mcp.serve.snapshot import REBUILD, handshake_lines
from e2e_support import SERVER, server_env

SNAPSHOT = load_snapshot()
VERSIONS = [*SNAPSHOT["versions"], "1999-01-01"]  # the last: not supported, so negotiated


def talk(lines: list[str], answers: int, project: Path, home: Path, **env: str) -> list[dict]:
    """Write ``lines`` to a fresh ``ctx-tree-mcp``; the first ``answers`` messages it writes."""
    proc = subprocess.Popen(
        [SERVER], cwd=project, env=server_env(home, **env), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()
        out = [json.loads(proc.stdout.readline()) for _ in range(answers)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return out


def instant(lines: list[str]) -> list[dict]:
    out: list[dict] = []
    session = Session(SNAPSHOT, lambda text: out.append(json.loads(text)))
    for line in lines:
        session.receive(line)
    return out


@pytest.mark.parametrize("version", VERSIONS)
def test_snapshot_answers_equal_the_sdk_server(version: str, project: Path, home: Path) -> None:
    lines = handshake_lines(version)
    sdk = talk(lines, 3, project, home, CTX_TREE_INSTANT="0")  # the SDK's own stdio server
    fast = instant(lines)
    norm = lambda msgs: json.dumps(sorted(msgs, key=lambda m: m["id"]), sort_keys=True)  # noqa: E731
    assert norm(fast) == norm(sdk), f"the start-up snapshot is stale: run `{REBUILD}`"
    assert fast[0]["result"]["protocolVersion"] == (
        version if version in SNAPSHOT["versions"] else SNAPSHOT["latest"]
    )


def test_a_call_before_the_handover_is_answered_once(project: Path, home: Path) -> None:
    call = {"name": "ctx_tree_read", "arguments": {"path": "pkg/decoder.py"}}
    bad = {"name": "ctx_tree_read", "arguments": {"path": "pkg/decoder.py", "bogus": 1}}
    lines = [
        *handshake_lines("2025-06-18")[:2],
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": call}),
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": bad}),
        '[{"jsonrpc":"2.0","id":9,"method":"ping"}]',
    ]
    t0 = time.perf_counter()
    out = talk(lines, 4, project, home)
    by_id = {m["id"]: m for m in out}
    assert sorted(by_id, key=str) == [1, 5, 6, None]  # initialize answered once, not twice
    assert "def " in by_id[5]["result"]["content"][0]["text"]
    assert not by_id[5]["result"]["isError"]
    refused = by_id[6]["result"]
    assert refused["isError"] and refused["content"][0]["text"].startswith(
        "bogus: unknown argument"
    )
    assert by_id[None]["error"]["code"] == -32600
    assert time.perf_counter() - t0 < 60


def test_a_server_that_cannot_start_answers_with_the_reason(project: Path, home: Path) -> None:
    (project / ".ctx-tree").mkdir()
    (project / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": "big"}}')
    lines = [
        *handshake_lines("2025-06-18")[:3],
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ctx_tree_recent","arguments":{}}}',
    ]
    out = talk(lines, 3, project, home)
    by_id = {m["id"]: m for m in out}
    assert "result" in by_id[1] and "result" in by_id[2]  # the handshake still works
    error = by_id[5]["error"]
    assert "could not start" in error["message"] and "configuration" in error["message"]


def test_a_client_that_stops_reading_ends_the_server_as_on_a_hangup(
    project: Path, home: Path
) -> None:
    """The client closes its end of the server's stdout and keeps stdin open: the server
    ends as on a SIGHUP, exit status 129, without a traceback for the answers it could not
    write (docs/architecture.md, "What ends when the server ends"). Stdin stays open so
    that its end of input cannot end the server first (exit 0): only the hang-up can."""
    proc = subprocess.Popen(
        [SERVER], cwd=project, env=server_env(home), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    lines = handshake_lines("2025-06-18")
    proc.stdin.write((lines[0] + "\n").encode())
    proc.stdin.flush()
    assert b'"result"' in proc.stdout.readline()
    proc.stdout.close()  # the client stops reading
    with contextlib.suppress(BrokenPipeError):  # the server may be gone already
        proc.stdin.write("".join(line + "\n" for line in lines[1:]).encode())
        proc.stdin.flush()
    try:
        assert proc.wait(timeout=60) == 128 + signal.SIGHUP
    finally:
        proc.kill()  # nothing once it has exited
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    err = proc.stderr.read().decode()
    assert "Traceback" not in err, err
