"""The reaper: ends the command process groups of a server that is gone, however it ended.

``run.py`` starts this file once per server process (``python -I -S reaper.py``, standard
library only, in its own session so a signal to the server's process group does not reach
it) with a pipe on its stdin that only the server holds open. The server writes ``+PGID``
when a ``ctx_tree_bash`` command starts and ``-PGID`` once its group is ended. When the pipe
reaches end-of-file (the server exited, was killed, even by SIGKILL, which nothing can catch)
every group still listed gets SIGTERM, then SIGKILL after :data:`GRACE_S`, and the reaper
exits. Portable to every POSIX system; it also ends the background processes a command left
in its group, which a parent-death signal on the shell alone would not.
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
    stream = sys.stdin.buffer
    for line in stream:
        text = line.strip().decode("ascii", "replace")
        if len(text) > 1 and text[1:].isdigit():
            pgid = int(text[1:])
            if text[0] == "+" and pgid > 1:
                groups.add(pgid)
            elif text[0] == "-":
                groups.discard(pgid)
    if groups:
        end_groups(groups)


if __name__ == "__main__":
    main()
