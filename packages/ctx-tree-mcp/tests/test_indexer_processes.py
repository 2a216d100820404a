"""The project index's worker processes die with the process that started them: a real
``ctx-tree-mcp`` stopped by SIGTERM, or killed outright by SIGKILL, in the middle of indexing a
project large enough for the worker pool, leaves no process behind (docs/index.md)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from test_mcp_server_stop import Server, gone, wait_for

STDLIB = Path(os.__file__).parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def descendants(pid: int) -> set[int]:
    """Every live process under ``pid`` (children, their children, ...), zombies left out."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture
def big_project(tmp_path: Path) -> tuple[Path, Path]:
    """300 stdlib modules: more than the pool's threshold, a few seconds of chunking."""
    root, home = tmp_path / "proj", tmp_path / "home"
    home.mkdir()
    files = sorted(p for p in STDLIB.glob("*.py"))[:300]
    for p in files:
        dst = root / "lib" / p.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dst)
    return root, home


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_no_index_worker_outlives_the_server(big_project: tuple[Path, Path], how: str) -> None:
    root, home = big_project
    server = Server(root, home)
    pid = server.proc.pid

    def workers() -> set[int]:
        return {p for p in descendants(pid) if "multiprocessing" in _cmdline(p)}

    started: set[int] = set()
    try:
        assert wait_for(lambda: len(workers()) > 0, timeout=60), "no index worker started"
        started = descendants(pid)  # the workers, multiprocessing's resource tracker, ...
        server.proc.send_signal(getattr(signal, how))
        server.proc.wait(timeout=20)
        assert wait_for(lambda: all(gone(p) for p in started), timeout=10), [
            (p, _cmdline(p)) for p in started if not gone(p)
        ]
    finally:
        _kill_left(started | descendants(pid))


def test_a_worker_being_started_when_the_pool_is_killed_dies_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stop path kills the pool (``WorkerPool.kill``) while a worker's start is under way
    (its process exists, the start has not returned: a loaded machine): that worker dies too.
    Before, kill saw only the workers already started and the one starting outlived the
    server (``test_no_index_worker_outlives_the_server[SIGTERM]`` failed now and then)."""
    import threading
    import time
    from multiprocessing.context import SpawnProcess

    from ctx_tree_mcp.engines.files.index_pool import WorkerPool

    (tmp_path / "a.py").write_text("x = 1\n")
    pids: list[int] = []
    under_way = threading.Event()
    launch = SpawnProcess._Popen

    def slow_launch(process_obj: object) -> object:
        """The process runs; its start returns 0.5 s later."""
        popen = launch(process_obj)
        pids.append(popen.pid)
        under_way.set()
        time.sleep(0.5)
        return popen

    monkeypatch.setattr(SpawnProcess, "_Popen", staticmethod(slow_launch))
    pool = WorkerPool(1, str(tmp_path), 100_000, 5.0)
    killer = threading.Thread(target=lambda: under_way.wait(60) and pool.kill())
    killer.start()
    try:
        # the pool's own sends and reads may meet the killed worker
        with contextlib.suppress(OSError, EOFError):
            list(pool.run([[("a.py", 0, "")]], threading.Event()))
        killer.join(60)
        assert pids, "no worker started"
        assert wait_for(lambda: gone(pids[0]), timeout=10), _cmdline(pids[0])
    finally:
        _kill_left(set(pids))
        pool.close(now=True)


def test_no_worker_outlives_ctx_tree_index(big_project: tuple[Path, Path]) -> None:
    """``ctx-tree index`` killed mid-run: its workers end too."""
    import subprocess

    root, home = big_project
    env = {"CTX_TREE_HOME": str(home), "PATH": os.environ["PATH"], "HOME": str(home)}
    cli = str(Path(sys.executable).parent / "ctx-tree")
    proc = subprocess.Popen([cli, "index"], cwd=root, env=env, stdout=subprocess.DEVNULL)
    started: set[int] = set()
    try:
        assert wait_for(
            lambda: any("multiprocessing" in _cmdline(p) for p in descendants(proc.pid)),
            timeout=60,
        ), "no index worker started"
        started = descendants(proc.pid)
        proc.kill()
        proc.wait(timeout=10)
        assert wait_for(lambda: all(gone(p) for p in started), timeout=10), [
            (p, _cmdline(p)) for p in started if not gone(p)
        ]
    finally:
        _kill_left(started | descendants(proc.pid))
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _kill_left(pids: set[int]) -> None:
    """A failing test leaves nothing running."""
    for p in pids:
        if not gone(p):
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)


def test_sigint_mid_index_exits_within_the_hosts_grace(big_project: tuple[Path, Path]) -> None:
    """Claude Code sends SIGINT, SIGTERM 100 ms later and SIGKILL 400 ms after that: the server
    exits on the SIGINT, with the index's workers busy and the capture walker holding a spool
    claim, having written its counters and given its claims back, and leaves no worker."""
    from ctx_tree_mcp.capture import spool
    from test_mcp_server_stop import saved_tokens, spool_events, stored_prompts

    root, home = big_project
    server = Server(root, home)
    pid = server.proc.pid
    started: set[int] = set()
    try:
        answer = server.request(
            "tools/call", {"name": "ctx_tree_read", "arguments": {"path": "lib/abc.py"}}
        )
        assert not answer["result"].get("isError")
        base = spool_events(home, root, 400)
        assert wait_for(
            lambda: any("multiprocessing" in _cmdline(p) for p in descendants(pid)), timeout=60
        ), "no index worker started"
        assert wait_for(lambda: (base / "cur").is_dir() and os.listdir(base / "cur"), 30)
        started = descendants(pid)
        took = server.stop("SIGINT")
        # generous for a loaded machine; before: 1-3 s here (the index's batch, then its
        # workers joined, the walkers' batch, the store closed)
        assert took < 1.0, took
        assert server.proc.returncode == 128 + signal.SIGINT
        assert saved_tokens(root, home) > 0
        assert os.listdir(base / "cur") == []
        assert stored_prompts(root, home) + len(spool.waiting(base)) >= 400
        assert wait_for(lambda: all(gone(p) for p in started), timeout=5), [
            (p, _cmdline(p)) for p in started if not gone(p)
        ]
    finally:
        _kill_left(started | descendants(pid))
