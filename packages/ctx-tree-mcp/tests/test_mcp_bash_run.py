"""Running a command for ctx_tree_bash: real shells and real processes."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.engines.shell.run import output_text, run_command, user_shell

#: Process checks read /proc (Linux, where CI runs); elsewhere those tests are skipped.
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _run(command: str, cwd: Path, timeout_s: float = 30, keep: int = 100_000, **kw):
    return run_command(command, cwd, timeout_s=timeout_s, keep_bytes=keep, **kw)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it is not running
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_stdout_and_stderr_interleave_in_order_and_the_exit_code_comes_back(
    tmp_path: Path,
) -> None:
    r = _run("echo one; echo two >&2; echo three; echo four >&2; exit 7", tmp_path)
    assert output_text(r)[0] == "one\ntwo\nthree\nfour\n"
    assert r.exit_code == 7 and r.signal is None and not r.timed_out


def test_runs_in_the_given_directory_with_the_users_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    r = _run("pwd", tmp_path)
    assert output_text(r)[0].strip() == str(tmp_path.resolve())
    assert r.shell == "/bin/sh"
    monkeypatch.setenv("SHELL", str(tmp_path / "no-such-shell"))
    assert user_shell() == "/bin/sh"
    monkeypatch.delenv("SHELL")
    assert user_shell() == "/bin/sh"


def test_a_command_reading_stdin_ends_at_once(tmp_path: Path) -> None:
    start = time.monotonic()
    r = _run("cat; read line; echo after-read", tmp_path, timeout_s=20)
    assert time.monotonic() - start < 5
    assert output_text(r)[0] == "after-read\n" and not r.timed_out


@needs_proc
def test_timeout_kills_the_whole_group_and_keeps_what_came_before(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"echo before; sleep 100 & echo $! > {pids}; (sleep 100; echo never) & sleep 100"
    start = time.monotonic()
    r = _run(command, tmp_path, timeout_s=1)
    took = time.monotonic() - start
    assert r.timed_out and took < 2.5, took
    assert output_text(r)[0] == "before\n"
    assert r.exit_code is None and r.signal is not None
    assert not _alive(int(pids.read_text()))
    assert not _group_members(r)


def _group_members(r) -> list[int]:
    """Processes of any group whose leader was our shell (none may remain)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == r.pgid:
            out.append(int(stat.parent.name))
    return out


@needs_proc
def test_a_process_ignoring_sigterm_is_killed(tmp_path: Path) -> None:
    start = time.monotonic()
    r = _run("trap '' TERM; echo armed; sleep 100", tmp_path, timeout_s=1)
    assert r.timed_out and time.monotonic() - start < 3
    assert not _group_members(r)


@needs_proc
def test_background_processes_are_ended_when_the_shell_exits(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    start = time.monotonic()
    r = _run(f"sleep 100 > /dev/null & echo $! > {pids}; (sleep 100) & echo done", tmp_path)
    assert time.monotonic() - start < 3
    assert r.exit_code == 0 and r.stragglers and not r.timed_out
    assert output_text(r)[0] == "done\n"
    assert not _alive(int(pids.read_text()))


def test_cancel_ends_the_command(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    start = time.monotonic()
    r = _run("echo started; sleep 100", tmp_path, timeout_s=60, cancel=cancel)
    assert r.cancelled and time.monotonic() - start < 3
    assert output_text(r)[0] == "started\n"


def test_binary_and_non_utf8_output_decodes(tmp_path: Path) -> None:
    r = _run(r"printf 'ok\n\377\376\000\001bin\n\033[31mred\033[0m\n50%%\r100%%\n'", tmp_path)
    text, binary = output_text(r)
    assert binary
    assert text.split("\n") == ["ok", "\ufffd\ufffd\ufffd\ufffdbin", "red", "100%", ""]
    r = _run("head -c 20000 /dev/urandom", tmp_path)
    text, binary = output_text(r)
    assert binary and r.total_bytes == 20000
    text.encode("utf-8")  # always valid text


def test_only_head_and_tail_are_kept_in_memory(tmp_path: Path) -> None:
    r = _run("seq 1 200000", tmp_path, keep=1000)
    assert r.total_bytes == 1_288_895
    assert len(r.head) == 1000 and len(r.tail) == 1000 and r.dropped_bytes == 1_288_895 - 2000
    text, _ = output_text(r)
    assert text.startswith("1\n2\n") and text.endswith("199999\n200000\n")


def test_problem_lines_of_the_dropped_middle_are_kept(tmp_path: Path) -> None:
    script = "seq 1 50000; echo 'src/a.c:3:1: error: boom'; seq 1 50000; echo 'FAILED: x'"
    r = _run(script, tmp_path, keep=2000)
    assert r.dropped_bytes > 500_000
    assert r.middle == ["src/a.c:3:1: error: boom"]
    text, _ = output_text(r)
    assert "src/a.c:3:1: error: boom\n" in text and text.endswith("FAILED: x\n")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _detached(pids: Path) -> str:
    """A ``sleep 30`` in a session of its own that writes its pid to ``pids`` once it is
    there (``setsid`` first, then the pid, then ``exec``: the pid is the sleep's)."""
    return f"setsid sh -c 'echo $$ > {pids}; exec sleep 30'"


def _until(pids: Path) -> str:
    """Shell that waits until ``pids`` holds the pid, so the command ends only after its
    child left the group (else a loaded machine ends the group before ``setsid`` ran)."""
    return f"while [ ! -s {pids} ]; do sleep 0.01; done"


@needs_proc
@pytest.mark.parametrize("out", ["", " > /dev/null 2>&1"], ids=["holds the output", "quiet"])
def test_a_process_that_left_the_group_is_ended_and_reported(tmp_path: Path, out: str) -> None:
    """``setsid cmd &`` leaves the command's process group, where the group's end and the
    reaper did not reach it: it ran on, without a word when its output was redirected
    (``(cmd &)`` was ended and reported). Its command's tag finds it: ended, and counted."""
    pids = tmp_path / "pids"
    start = time.monotonic()
    r = _run(f"{_detached(pids)}{out} & {_until(pids)}; echo done", tmp_path, timeout_s=20)
    pid = int(pids.read_text())
    try:
        assert time.monotonic() - start < 5
        assert r.exit_code == 0 and not r.timed_out and r.left_group == 1, r
        assert not r.escaped and output_text(r)[0] == "done\n"
        assert not _alive(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
    r = _run("sleep 30 > /dev/null & echo quiet", tmp_path)
    assert r.stragglers and not r.escaped and r.left_group == 0


@needs_proc
def test_a_process_that_left_the_group_and_cleared_its_environment_is_reported(
    tmp_path: Path,
) -> None:
    """Without its tag nothing finds it; while it holds the output that much is said."""
    pids = tmp_path / "pids"
    r = _run(f"env -i {_detached(pids)} & {_until(pids)}; echo done", tmp_path, timeout_s=20)
    try:
        assert r.escaped and r.left_group == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pids.read_text()), 9)  # the sleep this test started
