"""What ends when the server ends: a real ``ctx-tree-mcp`` process stopped by SIGINT, SIGTERM,
SIGKILL or stdin EOF saves its counters, ends its commands and gives back its spool claims."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_store import Store, resolve_store_path

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")


def gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie waiting for its reaper has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def wait_for(predicate, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


_started: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _no_server_left():
    """A test that fails midway leaves no server (nor its command) running."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Server:
    """A real server over pipes, driven with raw JSON-RPC lines."""

    def __init__(self, root: Path, home: Path, **more: str) -> None:
        env = {"CTX_TREE_HOME": str(home), "PATH": os.environ["PATH"], "HOME": str(home), **more}
        self.proc = subprocess.Popen(
            [SERVER],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _started.append(self.proc)
        self.next_id = 1
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, name: str, arguments: dict) -> int:
        """Send a tools/call; returns its id (the answer is not awaited)."""
        self.next_id += 1
        params = {"name": name, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params})
        return self.next_id

    def request(self, method: str, params: dict) -> dict:
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def stop(self, how: str) -> float:
        """Stop the server ``how`` (a signal name, ``claude`` for SIGINT then SIGTERM 100 ms
        later, ``eof``, or ``stdout``: its output's reader closed); returns the seconds until
        it exited."""
        start = time.monotonic()
        if how == "eof":
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        elif how == "stdout":  # the client stops reading (and keeps the server's stdin open)
            assert self.proc.stdout is not None
            self.proc.stdout.close()
        elif how == "claude":
            self.proc.send_signal(signal.SIGINT)
            time.sleep(0.1)
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
        else:
            self.proc.send_signal(getattr(signal, how))
        try:
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return time.monotonic() - start


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 1\n" * 300)
    home = tmp_path / "home"
    home.mkdir()
    return root, home


def saved_tokens(root: Path, home: Path) -> int:
    with Store.open_readonly(resolve_store_path(root, home)) as store:
        return store.counters().get("tokens_served", 0)


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "SIGHUP", "claude", "eof", "stdout"])
def test_a_stopped_server_saves_its_counters_and_ends_its_command(
    project: tuple[Path, Path], how: str
) -> None:
    root, home = project
    server = Server(root, home)
    answer = server.request("tools/call", {"name": "ctx_tree_read", "arguments": {"path": "a.py"}})
    assert not answer["result"].get("isError")
    pids = root / "pids"
    server.call(
        "ctx_tree_bash",
        {"command": f"sleep 300 & echo $$ $! > {pids}.tmp; mv {pids}.tmp {pids}; wait"},
    )
    assert wait_for(pids.exists, 60)
    shell, background = map(int, pids.read_text().split())
    took = server.stop(how)
    # within the host's grace: Claude Code's SIGTERM comes 100 ms after its SIGINT
    assert took < 3.0, server.proc.stderr.read().decode() if server.proc.stderr else ""
    assert wait_for(lambda: gone(shell) and gone(background), 3.0)
    if how == "stdout":  # before: it lived on until its stdin closed
        assert server.proc.returncode == 128 + signal.SIGHUP
    elif how != "eof":
        assert server.proc.returncode == 128 + (
            signal.SIGINT if how == "claude" else getattr(signal, how)
        )
    assert saved_tokens(root, home) > 0  # before, 0 for every signal


def test_the_sdk_only_server_also_ends_when_its_output_is_not_read(
    project: tuple[Path, Path],
) -> None:
    """``CTX_TREE_INSTANT=0`` (the SDK's own stdio server from the start) watches its
    output the same way."""
    root, home = project
    server = Server(root, home, CTX_TREE_INSTANT="0")
    server.request("tools/call", {"name": "ctx_tree_read", "arguments": {"path": "a.py"}})
    assert server.stop("stdout") < 3.0
    assert server.proc.returncode == 128 + signal.SIGHUP
    assert saved_tokens(root, home) > 0


def test_sigint_alone_ends_the_server_at_once(project: tuple[Path, Path]) -> None:
    root, home = project
    server = Server(root, home)
    server.request("tools/call", {"name": "ctx_tree_read", "arguments": {"path": "a.py"}})
    assert server.stop("SIGINT") < 1.0  # before: no exit in 15 s with a command running
    assert saved_tokens(root, home) > 0


def test_a_killed_server_leaves_no_command_running(project: tuple[Path, Path]) -> None:
    root, home = project
    server = Server(root, home)
    pids = root / "pids"
    server.call(
        "ctx_tree_bash",
        {"command": f"sleep 300 & echo $$ $! > {pids}.tmp; mv {pids}.tmp {pids}; wait"},
    )
    assert wait_for(pids.exists, 60)
    shell, background = map(int, pids.read_text().split())
    server.stop("SIGKILL")  # nothing in the server runs: the reaper ends the group
    # (a loaded machine may take seconds to start the reaper's interpreter)
    assert wait_for(lambda: gone(shell) and gone(background), 15.0), subprocess.run(
        ["ps", "-o", "pid,ppid,pgid,stat,cmd", "-e"], capture_output=True, text=True
    ).stdout


def test_a_killed_server_leaves_no_process_its_command_moved_out_of_its_group(
    project: tuple[Path, Path],
) -> None:
    """``setsid cmd &`` leaves the command's group, so ending the group missed it: the
    reaper finds it by its command's tag."""
    root, home = project
    server = Server(root, home)
    pids = root / "pids"
    server.call(
        "ctx_tree_bash",
        {
            "command": f"setsid sleep 300 > /dev/null 2>&1 & echo $! > {pids}.tmp; mv {pids}.tmp {pids}; wait"
        },
    )
    assert wait_for(pids.exists, 60)
    escaped = int(pids.read_text())
    server.stop("SIGKILL")
    assert wait_for(lambda: gone(escaped), 15.0)


def spool_events(home: Path, root: Path, count: int) -> Path:
    """``count`` distinct prompt events in the spool, as the hook writes them."""
    base = spool_dir(home, root)
    (base / "new").mkdir(parents=True, exist_ok=True)
    for i in range(count):
        event = {"v": 1, "kind": "prompt", "session_id": "s1", "prompt_id": f"p{i}"}
        event["text"] = f"question number {i} about the build"
        tmp = base / f"{i:06d}.tmp"
        tmp.write_text(json.dumps(event))
        tmp.rename(base / "new" / f"{i:06d}-1.json")
    return base


def stored_prompts(root: Path, home: Path) -> int:
    import apsw

    con = apsw.Connection(str(resolve_store_path(root, home)), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return con.execute("SELECT count(*) FROM nodes WHERE kind = 'prompt'").get
    finally:
        con.close()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_a_claim_is_not_stranded_when_the_server_stops(
    project: tuple[Path, Path], how: str
) -> None:
    root, home = project
    server = Server(root, home)
    server.request("tools/call", {"name": "ctx_tree_read", "arguments": {"path": "a.py"}})
    count = 400
    base = spool_events(home, root, count)
    # stop it while the capture walker holds a claim (it ingests one event at a time)
    assert wait_for(lambda: (base / "cur").is_dir() and os.listdir(base / "cur"), 20)
    server.stop(how)
    left = os.listdir(base / "cur")
    if how == "SIGKILL":  # nothing could run: a claim left names a process that is gone
        assert all(name.startswith(f"{server.proc.pid}~") for name in left)
        assert spool.requeue_stale(base) == len(left)  # at once, not after CLAIM_TIMEOUT_S
        assert os.listdir(base / "cur") == []
        # a claim stored just before the kill comes back once: at least once, never lost
        assert stored_prompts(root, home) + len(spool.waiting(base)) >= count
    else:
        assert left == []  # before: stranded in cur/ for CLAIM_TIMEOUT_S
        # none lost; the one event being stored as the signal came may also be given back
        assert count <= stored_prompts(root, home) + len(spool.waiting(base)) <= count + 1
        assert spool.waiting(base)  # it stopped early, leaving the rest queued
    # the next server takes the rest: each prompt stored exactly once (a given-back event that
    # was stored already is found unchanged, not stored again)
    again = Server(root, home)
    try:
        assert wait_for(lambda: not spool.waiting(base) and not os.listdir(base / "cur"), 60)
    finally:
        again.stop("eof")
    assert stored_prompts(root, home) == count


def test_claims_of_live_processes_stay_and_of_gone_ones_go_back(tmp_path: Path) -> None:
    base = tmp_path / "spool" / "k"
    (base / "cur").mkdir(parents=True)
    (base / "new").mkdir()
    ended = subprocess.Popen(["true"])
    ended.wait()
    running = subprocess.Popen(["sleep", "30"])
    try:
        (base / "cur" / f"{ended.pid}~1-a.json").write_text("{}")
        (base / "cur" / f"{running.pid}~2-b.json").write_text("{}")
        assert spool.requeue_stale(base) == 1
        assert spool.waiting(base) == ["1-a.json"]
        assert os.listdir(base / "cur") == [f"{running.pid}~2-b.json"]
        # a claim of a live process still goes back once it is older than the timeout
        assert spool.requeue_stale(base, now=time.time() + spool.CLAIM_TIMEOUT_S + 1) == 1
        assert spool.waiting(base) == ["1-a.json", "2-b.json"]
    finally:
        running.kill()
        running.wait()


def test_this_process_gives_its_claims_back_and_never_takes_its_own(tmp_path: Path) -> None:
    base = tmp_path / "spool" / "k"
    (base / "new").mkdir(parents=True)
    (base / "new" / "1-a.json").write_text("{}")
    claimed = spool.claim(base, "1-a.json")
    assert claimed is not None and claimed.name == f"{os.getpid()}~1-a.json"
    assert spool.requeue_stale(base, now=time.time() + 10 * spool.CLAIM_TIMEOUT_S) == 0
    assert spool.release_all() == 1
    assert spool.waiting(base) == ["1-a.json"] and os.listdir(base / "cur") == []
