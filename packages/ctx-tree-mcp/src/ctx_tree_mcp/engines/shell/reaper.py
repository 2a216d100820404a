"""The reaper: ends the command process groups of a server that is gone, however it ended.

``run.py`` starts this file once per server process (``python -I -S reaper.py``, standard
library only, in its own session so a signal to the server's process group does not reach
it) with a pipe on its stdin that only the server holds open. The server writes ``+PGID TAG``
when a ``ctx_tree_bash`` command starts and ``-PGID`` once its group is ended. When the pipe
reaches end-of-file (the server exited, was killed, even by SIGKILL, which nothing can catch)
every group still listed gets SIGTERM, then SIGKILL after :data:`GRACE_S`, and so does every
process carrying a listed group's tag; then the reaper exits. Portable to every POSIX system;
it also ends the background processes a command left in its group, which a parent-death
signal on the shell alone would not.

A process can leave its command's group (``setsid cmd &``, a daemon's double fork): each
command runs with its own tag in :data:`TAG_VAR`, which every process it starts inherits, so
:func:`tagged` finds them in ``/proc`` (Linux) wherever they went, unless one clears its
environment. ``run.py`` ends them when the command ends; this file when the server is gone.
"""

import os
import signal
import sys
import time

#: Seconds between SIGTERM and SIGKILL for the groups left running.
GRACE_S = 0.5


def _alive(pgid: int) -> bool:
    """True while a process of group ``pgid`` runs (zombies waiting for init do not count)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
                return True
    return False


#: The environment variable holding a command's tag (``run.py`` sets it).
TAG_VAR = "CTX_TREE_COMMAND"


def tagged(tag: str) -> list[int]:
    """The processes whose environment holds ``TAG_VAR=tag`` (not this one), from ``/proc``;
    none where there is no ``/proc``. A process of another user is not readable and not
    listed."""
    entry = f"\0{TAG_VAR}={tag}\0".encode()
    me = os.getpid()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = b"\0" + f.read()
        except OSError:
            continue
        if entry in env or env.endswith(entry[:-1]):
            found.append(int(name))
    return found


def end_pids(pids: list[int]) -> None:
    """SIGTERM ``pids``, then SIGKILL those still alive after :data:`GRACE_S`."""
    left = set(pids)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in list(left):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                left.discard(pid)
        end = time.monotonic() + GRACE_S
        while left and time.monotonic() < end:
            left = {p for p in left if _pid_alive(p)}
            time.sleep(0.01)
        if not left:
            return


def _pid_alive(pid: int) -> bool:
    """True while ``pid`` runs and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


def end_groups(groups: set[int]) -> None:
    """SIGTERM every group in ``groups``, then SIGKILL those still alive after :data:`GRACE_S`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pgid in list(groups):
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                groups.discard(pgid)
        end = time.monotonic() + GRACE_S
        while groups and time.monotonic() < end:
            groups.intersection_update({g for g in groups if _alive(g)})
            time.sleep(0.01)
        if not groups:
            return


def main() -> None:
    """Read ``+PGID`` / ``-PGID`` lines until end-of-file, then end the groups still listed."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # only the end of the pipe ends the reaper
    groups: set[int] = set()
    tags: dict[int, str] = {}
    stream = sys.stdin.buffer
    for line in stream:
        text, _, tag = line.strip().decode("ascii", "replace").partition(" ")
        if len(text) > 1 and text[1:].isdigit():
            pgid = int(text[1:])
            if text[0] == "+" and pgid > 1:
                groups.add(pgid)
                if tag:
                    tags[pgid] = tag
            elif text[0] == "-":
                groups.discard(pgid)
                tags.pop(pgid, None)
    if groups:
        end_groups(groups)
    for tag in tags.values():  # what left its group (setsid) carries its command's tag
        end_pids(tagged(tag))


if __name__ == "__main__":
    main()
