"""Running one shell command: the user's shell, its own process group, a hard timeout.

The command runs as ``$SHELL -c COMMAND`` (``/bin/sh`` when ``$SHELL`` is unset or not
executable) in the project root, with no terminal: stdin from ``/dev/null`` (a command that
reads stdin sees end-of-file at once), an environment where editors fail at once and pagers
print through (:data:`NON_INTERACTIVE`), stdout and stderr on one pipe (so they interleave in the order written),
in a new session and process group. At the timeout the whole group gets SIGTERM, then SIGKILL
after :data:`KILL_GRACE_S`; processes the command left in the background when its shell
exited are ended the same way. Only the first and last ``keep_bytes`` bytes of output are
kept in memory; the rest is counted.

A command never outlives the server (docs/architecture.md#what-ends-when-the-server-ends):
a stop signal ends every running group (:func:`end_running`, called by ``ending.py``); the
reaper (``reaper.py``, one per server, started before the first command) ends them when the
server is gone however it ended, SIGKILL included. No ``preexec_fn`` (a parent-death signal
set with ``prctl`` in the child): in a threaded server the forked child deadlocked in it
before ``exec`` now and then, a copy of the server left running.

Blocking (a ``selectors`` loop); the MCP server runs it in a worker thread and sets
``cancel`` when the client cancels the call.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ctx_tree_mcp import ending
from ctx_tree_mcp.engines.shell.digest import PROBLEM_BYTES, problem_lines
from ctx_tree_mcp.engines.shell.record import MIDDLE_LINES

__all__ = [
    "KILL_GRACE_S",
    "RunResult",
    "end_running",
    "output_text",
    "run_command",
    "running_groups",
    "user_shell",
]

#: Seconds between SIGTERM and SIGKILL for the command's process group.
KILL_GRACE_S = 0.5
#: Seconds to wait for the output pipe to close after the shell exited, before background
#: processes still holding it are ended.
STRAGGLER_GRACE_S = 0.2
_READ = 1 << 16
log = logging.getLogger(__name__)


@dataclass(slots=True)
class RunResult:
    """A finished command. ``head`` holds the first ``keep_bytes`` bytes of output and
    ``tail`` the last ones after it (empty when nothing was dropped between them)."""

    head: bytes
    tail: bytes
    total_bytes: int
    #: Lines reporting a problem from the bytes dropped between head and tail (the first few).
    middle: list[str]
    exit_code: int | None  #: None when the shell was killed by a signal
    signal: int | None  #: the signal that ended the shell, if one did
    timed_out: bool
    cancelled: bool
    stragglers: bool  #: background processes were still running when the shell exited
    #: The output pipe was still open after the group ended: a process that left the group
    #: and cleared its environment (so its command's tag is gone) holds it; it keeps running
    #: and what it prints later is not read.
    escaped: bool
    duration_ms: int
    shell: str
    pgid: int  #: the command's process group (ended: nothing of it is left running)
    #: One line the answer shows under the status (e.g. it ran outside the host's sandbox).
    note: str | None = None
    #: Processes the command started that had left its process group (``setsid cmd &``),
    #: found by its tag and ended with it.
    left_group: int = 0

    @property
    def dropped_bytes(self) -> int:
        """Bytes of output kept neither in the head nor in the tail."""
        return self.total_bytes - len(self.head) - len(self.tail)


def user_shell() -> str:
    """``$SHELL`` when it names an executable file, else ``/bin/sh``."""
    shell = os.environ.get("SHELL", "")
    if shell and os.path.isabs(shell) and os.access(shell, os.X_OK) and Path(shell).is_file():
        return shell
    return "/bin/sh"


class _Collector:
    """Keeps the first ``keep`` bytes and the last ``keep`` bytes after them, and from the
    bytes dropped between them the first lines that report a problem."""

    def __init__(self, keep: int) -> None:
        self.keep = max(keep, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.middle: list[str] = []
        self._carry = b""

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 3 * self.keep:  # drop (and scan) in large blocks
                cut = len(self.tail) - self.keep
                self._scan(bytes(self.tail[:cut]))
                del self.tail[:cut]

    def _scan(self, dropped: bytes) -> None:
        """Keep problem lines of a dropped block (one bytes search first: most hold none)."""
        data = self._carry + dropped
        end = data.rfind(b"\n") + 1
        self._carry = data[end:][-4096:]
        if len(self.middle) >= MIDDLE_LINES:
            return
        if PROBLEM_BYTES.search(data[:end].lower()) or b"\nE  " in data[:end]:
            found, _ = problem_lines(data[:end].decode("utf-8", "replace"), MIDDLE_LINES)
            self.middle += found[: MIDDLE_LINES - len(self.middle)]

    def parts(self) -> tuple[bytes, bytes]:
        return bytes(self.head), bytes(self.tail[-self.keep :]) if self.tail else b""


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs. A zombie does not count: an orphan
    whose new parent (PID 1 in some containers) is slow to reap it would otherwise hold every
    call for both kill graces (Linux: read from ``/proc``)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a member changed user (setuid): cannot signal
        return False
    return not sys.platform.startswith("linux") or _live_member(pgid)


def _live_member(pgid: int) -> bool:
    """Whether ``/proc`` shows a process of group ``pgid`` that is not a zombie (True when
    ``/proc`` cannot be read: then the signal's answer stands)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


def _end_group(pgid: int, proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the group, then SIGKILL whatever is left after :data:`KILL_GRACE_S`."""
    for sig, grace in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, KILL_GRACE_S)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        end = time.monotonic() + grace
        while time.monotonic() < end:
            proc.poll()  # reap the shell so it does not count as alive
            if not _group_alive(pgid):
                return
            time.sleep(0.01)


#: The line the editor stand-in prints (``git`` runs ``GIT_EDITOR`` through the shell).
NO_EDITOR = "ctx-tree: no editor can run here (no terminal): pass the text on the command line"
#: What a command's environment gets over the server's: nothing waits for a person
#: (docs/tools.md#ctx_tree_bash). An editor fails at once (``false``; git's prints
#: :data:`NO_EDITOR`), pagers print through (``cat``), git and ssh never prompt.
NON_INTERACTIVE = {
    "GIT_EDITOR": f"echo '{NO_EDITOR}' >&2; false",
    "GIT_SEQUENCE_EDITOR": f"echo '{NO_EDITOR}' >&2; false",
    "EDITOR": "false",
    "VISUAL": "false",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "false",
    "SSH_ASKPASS": "false",
    "GCM_INTERACTIVE": "never",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "NPM_CONFIG_YES": "true",
}


def command_env() -> dict[str, str]:
    """The environment a command runs with: the server's, plus :data:`NON_INTERACTIVE`."""
    return {**os.environ, **NON_INTERACTIVE}


def wanted_a_person(text: str) -> bool:
    """True when ``text`` (a command's output) shows that it asked for an editor or a
    terminal prompt that cannot run here."""
    return (
        NO_EDITOR in text
        or "problem with the editor" in text
        or ("terminal prompts disabled" in text)
    )


#: Run by ``/bin/sh`` before the user's shell: wait for the go on the gate's pipe (its
#: stdin), then become ``$0 -c $1`` (the user's shell and the command) with stdin from
#: ``/dev/null``. End-of-file on the pipe (the server died first) ends it with 126, nothing run.
_GATE = 'read -r go || exit 126; exec "$0" -c "$1" </dev/null'

#: The process groups of the commands running now, by pgid.
_running: dict[int, subprocess.Popen[bytes]] = {}
_running_lock = threading.Lock()
_reaper: list[subprocess.Popen[bytes]] = []


def running_groups() -> list[int]:
    """The process group ids of the commands running now."""
    with _running_lock:
        return list(_running)


def end_running(kill: bool = False) -> None:
    """Signal every running command's process group: SIGTERM, or SIGKILL with ``kill``. The
    runner of each then sees its shell end and reaps it. Never raises."""
    sig = signal.SIGKILL if kill else signal.SIGTERM
    for pgid in running_groups():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def _start_reaper() -> None:
    """Start this process's reaper unless it runs (before the first command starts, so the
    command's ``+PGID`` follows its start at once). One that cannot start is logged and
    commands run without it."""
    with _running_lock:
        if not _reaper:
            script = Path(__file__).with_name("reaper.py")
            try:
                _reaper.append(
                    subprocess.Popen(
                        [sys.executable, "-I", "-S", str(script)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL,
                        start_new_session=True,
                        close_fds=True,
                    )
                )
            except OSError as exc:
                log.warning(
                    "the command reaper did not start (%s): commands may outlive a killed server",
                    exc,
                )
                return


def _tell_reaper(line: str) -> None:
    """Send ``+PGID`` / ``-PGID`` to this process's reaper (nothing when it did not start); a
    reaper that went away is logged once."""
    with _running_lock:
        if not _reaper:
            return
        stdin = _reaper[0].stdin
        if stdin is None or stdin.closed:
            return
        try:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except OSError as exc:
            log.warning(
                "the command reaper is gone (%s): commands may outlive a killed server", exc
            )
            stdin.close()


def run_command(
    command: str,
    cwd: Path,
    *,
    timeout_s: float,
    keep_bytes: int,
    cancel: threading.Event | None = None,
) -> RunResult:
    """Run ``command`` with the user's shell in ``cwd`` until it ends or ``timeout_s`` seconds.

    Raises ``OSError`` when the shell cannot be started (nothing ran). Never leaves a
    process of the command's group running.
    """
    from ctx_tree_mcp.engines.shell.reaper import TAG_VAR

    shell = user_shell()
    _start_reaper()
    start = time.monotonic()
    deadline = start + timeout_s
    # every process the command starts inherits its tag, in its group or out of it (setsid)
    tag = f"{os.getpid()}.{secrets.token_hex(6)}"
    # The command waits at a gate until the reaper knows its group: a server killed before
    # that closes the gate's pipe and the command never starts (nothing to outlive it).
    gate_r, gate_w = os.pipe()
    try:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", _GATE, shell, command],
            cwd=str(cwd),
            stdin=gate_r,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**command_env(), TAG_VAR: tag},
        )
    except OSError:
        os.close(gate_w)
        raise
    finally:
        os.close(gate_r)
    pgid = proc.pid
    with _running_lock:
        _running[pgid] = proc
    _tell_reaper(f"+{pgid} {tag}")
    try:
        os.write(gate_w, b"go\n")
    except OSError:  # pragma: no cover - the gate's shell is already gone
        pass
    finally:
        os.close(gate_w)
    if ending.stopping():  # started as the server ends: end_running may have missed it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    out = _Collector(keep_bytes)
    timed_out = cancelled = stragglers = escaped = False
    left_group = 0
    scanned = False
    exited_at: float | None = None
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            eof = False
            while not eof:
                now = time.monotonic()
                if exited_at is None and proc.poll() is not None:
                    exited_at = now
                if exited_at is not None and now - exited_at > STRAGGLER_GRACE_S:
                    stragglers = True
                    break
                if now >= deadline:
                    timed_out = True
                    break
                if cancel is not None and cancel.is_set():
                    cancelled = True
                    break
                for _ in sel.select(timeout=min(0.05, deadline - now)):
                    eof = not _read_some(fd, out)
            if not (timed_out or cancelled or stragglers):
                try:
                    proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:  # closed its stdout but kept running
                    timed_out = True
            ended = timed_out or cancelled or stragglers or _group_alive(pgid)
            if ended:
                stragglers = stragglers or not (timed_out or cancelled)
                _end_group(pgid, proc)
            left_group = _end_tagged(tag)  # what left the group (setsid) goes with it
            scanned = True
            if ended or left_group:
                escaped = not eof and not _drain(sel, fd, out)
    finally:
        if proc.poll() is None:
            _end_group(pgid, proc)
        proc.wait()
        proc.stdout.close()
        if not scanned:  # left early (an error): what left the group goes all the same
            _end_tagged(tag)
        with _running_lock:
            _running.pop(pgid, None)
        _tell_reaper(f"-{pgid}")
    code = proc.returncode
    head, tail = out.parts()
    return RunResult(
        head=head,
        tail=tail,
        total_bytes=out.total,
        middle=out.middle,
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        timed_out=timed_out,
        cancelled=cancelled,
        stragglers=stragglers and not (timed_out or cancelled),
        escaped=escaped,
        duration_ms=round((time.monotonic() - start) * 1000),
        shell=shell,
        pgid=pgid,
        left_group=left_group,
    )


def _end_tagged(tag: str) -> int:
    """End the processes still carrying command ``tag`` (they left its group: ``setsid``,
    a daemon's double fork; reaper.py finds them); how many there were."""
    from ctx_tree_mcp.engines.shell.reaper import end_pids, tagged

    found = tagged(tag)
    if found:
        end_pids(found)
    return len(found)


def _read_some(fd: int, out: _Collector) -> bool:
    """Read what is available; False at end-of-file."""
    try:
        chunk = os.read(fd, _READ)
    except BlockingIOError:
        return True
    if not chunk:
        return False
    out.add(chunk)
    return True


def _drain(sel: selectors.BaseSelector, fd: int, out: _Collector) -> bool:
    """Read what the ended processes left in the pipe (at most :data:`STRAGGLER_GRACE_S`);
    True when the pipe reached end-of-file (no process holds it any more)."""
    end = time.monotonic() + STRAGGLER_GRACE_S
    while time.monotonic() < end:
        if not sel.select(timeout=max(0.0, end - time.monotonic())):
            return False
        if not _read_some(fd, out):
            return True
    return False


def output_text(result: RunResult, raw: bool = False) -> tuple[str, bool]:
    """The output as text, and whether it looks binary.

    Undecodable bytes become U+FFFD; then the text is what a terminal shows
    (``terminal.screen_text``: sequences removed, redraws kept at their last frame, CRLF one
    line end, other control characters U+FFFD); with ``raw`` (``capture.rawTerminal``) as
    printed. When bytes were dropped between ``head`` and ``tail``
    the two are joined with a newline and the dropped part's problem lines (the caller's
    marker replaces that region: see ``record.keep_head_and_tail``).
    """
    if result.dropped_bytes:  # the dropped part's problem lines stand in for it
        middle = "".join(line + "\n" for line in result.middle)
        head, tail = result.head.decode("utf-8", "replace"), result.tail.decode("utf-8", "replace")
        text = f"{head}\n{middle}{tail}"
    else:
        text = (result.head + result.tail).decode("utf-8", "replace")
    sample = result.head[:8192]
    binary = b"\x00" in sample or text[:8192].count("\ufffd") > len(sample) // 10
    if raw:  # capture.rawTerminal: the bytes as printed
        return text, binary
    from ctx_tree_mcp.engines.shell.terminal import screen_text

    return screen_text(text), binary


def exit_status(result: RunResult) -> int:
    """The shell convention for ``result``: the command's exit code; 124 when it timed out
    (as GNU ``timeout``); 128 + N when signal N ended it."""
    if result.timed_out:
        return 124
    if result.exit_code is not None:
        return result.exit_code
    return 128 + (result.signal or 0)
