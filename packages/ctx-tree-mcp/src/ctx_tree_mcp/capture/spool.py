"""The server's half of the capture spool: claim the events the plugin's hooks wrote, give
back what was not stored, keep the state file the SessionStart hook reads, and describe and
sweep whole spools (docs/capture.md).

The protocol both halves follow (layout, event format, versions, ages, the root and its key,
the refused-command markers) is ``ctx_tree_mcp.wire.spool``. The server's own part of the
layout::

    <root key>/cur/   claimed by an ingester (a rename to ``<pid>~<name>``), deleted once
                      stored; given back to ``new/`` when the ingester stops, or as soon as its
                      process is gone
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctx_tree_mcp.wire.payload import clean
from ctx_tree_mcp.wire.spool import (
    SPOOL_MAX_AGE_S,
    SPOOL_VERSION,
    mark_refused,
    refused_marker,
    root_key,
    take_refused,
    waiting,
)

__all__ = [
    "CLAIM_TIMEOUT_S",
    "ORPHAN_AGE_S",
    "SPOOL_MAX_AGE_S",
    "SPOOL_VERSION",
    "SpoolInfo",
    "claim",
    "describe",
    "done",
    "list_spools",
    "mark_refused",
    "read_event",
    "record_root",
    "refused_marker",
    "release",
    "release_all",
    "remove",
    "requeue_stale",
    "secure",
    "sweep_spools",
    "take_refused",
    "waiting",
    "write_state",
]

#: A claimed file older than this (its ingester died) goes back to ``new/``.
CLAIM_TIMEOUT_S = 120
#: A spool whose project directory is gone (a deleted worktree) is swept after this long idle.
ORPHAN_AGE_S = 24 * 3600


def _private_dir(path: Path) -> None:
    """Create ``path`` (and parents) as needed; leave it mode 0700 whatever the umask."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o777 != 0o700:
        os.chmod(path, 0o700)


def secure(base: Path) -> None:
    """Put the spool directories that exist back to 0700 (a copy or a loose umask widened them)."""
    for path in (base.parent, base, base / "new", base / "cur", base / "tmp"):
        with contextlib.suppress(OSError):
            if path.stat().st_mode & 0o777 != 0o700:
                os.chmod(path, 0o700)


def _write_private(path: Path, data: bytes) -> None:
    """Write ``path`` atomically with mode 0600 (temp file + rename)."""
    _private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)


#: The events this process has claimed and not yet stored or given back.
_claims: set[Path] = set()
_claims_lock = threading.Lock()
_on_stop: list[object] = []


def _claimer(name: str) -> tuple[int | None, str]:
    """``(pid, event name)`` of a ``cur/`` entry (``<pid>~<name>``); pid None for an entry
    claimed by an older ctx-tree (no pid in its name)."""
    pid, sep, rest = name.partition("~")
    if sep and pid.isdigit():
        return int(pid), rest
    return None, name


def _alive(pid: int) -> bool:
    """True when process ``pid`` exists (in this pid namespace)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def claim(base: Path, name: str) -> Path | None:
    """Take ``new/<name>`` for this ingester (an atomic rename into ``cur/<pid>~<name>``); None
    when another ingester took it first. Until it is stored (deleted) or given back
    (:func:`release`), a stop of the server gives it back (``ending.on_stop``)."""
    _private_dir(base / "cur")
    target = base / "cur" / f"{os.getpid()}~{name}"
    with _claims_lock:
        if not _on_stop:
            from ctx_tree_mcp import ending

            _on_stop.append(ending.on_stop(release_all, order=ending.LAST))
        try:
            os.rename(base / "new" / name, target)
        except FileNotFoundError:
            return None
        with contextlib.suppress(OSError):
            os.utime(target)  # its age in cur/ counts from the claim, not from the hook's write
        _claims.add(target)
    return target


def done(claimed: Path) -> None:
    """The claimed event is stored (or dropped): delete its file."""
    with _claims_lock:
        _claims.discard(claimed)
        claimed.unlink(missing_ok=True)


def release(base: Path, claimed: Path) -> None:
    """Give a claimed event back (the store was busy): it is retried on the next run."""
    with _claims_lock:
        _claims.discard(claimed)
        with contextlib.suppress(OSError):
            os.rename(claimed, base / "new" / _claimer(claimed.name)[1])


def release_all() -> int:
    """Give back every event this process claimed and has not stored (the server is
    stopping); returns how many."""
    with _claims_lock:
        claims = list(_claims)
        _claims.clear()
    moved = 0
    for claimed in claims:
        with contextlib.suppress(OSError):
            os.rename(claimed, claimed.parent.parent / "new" / _claimer(claimed.name)[1])
            moved += 1
    return moved


def requeue_stale(base: Path, now: float | None = None) -> int:
    """Move claimed events back to ``new/`` whose claiming process is gone, or that were
    claimed more than :data:`CLAIM_TIMEOUT_S` ago (an ingester that hung, or an entry without
    a pid); never this process's own claims. Returns how many."""
    now = time.time() if now is None else now
    moved = 0
    try:
        entries = list(os.scandir(base / "cur"))
    except OSError:
        return 0
    with _claims_lock:
        ours = {claimed.name for claimed in _claims}
    for entry in entries:
        if entry.name in ours:
            continue
        pid, name = _claimer(entry.name)
        with contextlib.suppress(OSError):
            gone = pid is not None and pid != os.getpid() and not _alive(pid)
            if gone or now - entry.stat().st_mtime > CLAIM_TIMEOUT_S:
                os.rename(entry.path, base / "new" / name)
                moved += 1
    return moved


def read_event(path: Path) -> dict[str, Any] | None:
    """The event in ``path``, or None when it is not a spool event of this version. Every
    string is :func:`~ctx_tree_mcp.wire.payload.clean` (an older hook spooled halves of
    UTF-16 surrogate pairs as they came: they become U+FFFD, the event is kept)."""
    try:
        event = json.loads(path.read_bytes().decode("utf-8", "surrogatepass"))
    except (OSError, ValueError):
        return None
    if not isinstance(event, dict) or event.get("v") != SPOOL_VERSION:
        return None
    cleaned: dict[str, Any] = _cleaned(event)
    return cleaned


def _cleaned(value: Any) -> Any:
    """``value`` (decoded JSON) with every string cleaned of lone surrogates."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    return value


def write_state(base: Path, counts: dict[str, int], last_capture_at: int | None) -> None:
    """``state.json``: node counts by kind (``file`` = file roots) for the SessionStart note."""
    state = {
        "counts": counts,
        "last_capture_at": last_capture_at,
        "updated_at": int(time.time() * 1000),
    }
    _write_private(base / "state.json", json.dumps(state).encode())


def record_root(base: Path, root: os.PathLike[str] | str) -> None:
    """Write ``base/root`` (the project root's real path) when it is missing or differs."""
    data = os.path.realpath(os.fspath(root)).encode("utf-8", "surrogateescape")
    with contextlib.suppress(OSError):
        if (base / "root").read_bytes() == data:
            return
    with contextlib.suppress(OSError):
        if base.is_dir():
            _write_private(base / "root", data)


@dataclass(frozen=True, slots=True)
class SpoolInfo:
    """One project's spool: its folder, the project root it belongs to (None when unknown),
    how many events wait in ``new/`` and ``cur/``, and its last write (epoch seconds)."""

    path: Path
    project: str | None
    waiting: int
    last_write: float

    @property
    def orphaned(self) -> bool:
        """The project directory it belongs to is gone."""
        return self.project is not None and not os.path.isdir(self.project)


def _project_of(base: Path) -> str | None:
    with contextlib.suppress(OSError):
        text = (base / "root").read_bytes().decode("utf-8", "surrogateescape").strip()
        if text and root_key(text) == base.name:
            return text
    # no root file (an older hook): an event's cwd, when it is the root itself
    for sub in ("new", "cur"):
        for name in sorted(_names(base / sub), reverse=True)[:5]:
            event = read_event(base / sub / name)
            cwd = event.get("cwd") if event else None
            if isinstance(cwd, str) and root_key(cwd) == base.name:
                return os.path.realpath(cwd)
    return None


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def describe(base: Path) -> SpoolInfo:
    """:class:`SpoolInfo` of the spool folder ``base``."""
    newest = 0.0
    waiting = 0
    for folder in (base, base / "new", base / "cur", base / "tmp"):
        for name in [""] if folder == base else _names(folder):
            with contextlib.suppress(OSError):
                newest = max(newest, (folder / name).stat().st_mtime)
            if name.endswith(".json") and folder.name in ("new", "cur"):
                waiting += 1
    return SpoolInfo(base, _project_of(base), waiting, newest)


def list_spools(home: Path) -> list[SpoolInfo]:
    """Every project spool under ``home/spool``, most recently written first."""
    found = [
        describe(Path(home) / "spool" / name)
        for name in _names(Path(home) / "spool")
        if len(name) == 16 and (Path(home) / "spool" / name).is_dir()
    ]
    return sorted(found, key=lambda s: -s.last_write)


def remove(base: Path) -> int:
    """Delete the spool folder ``base`` with everything in it (renamed away first, so no
    ingester claims from a half-deleted one); returns how many events were waiting."""
    import shutil

    if not base.is_dir():
        return 0
    waiting = describe(base).waiting
    trash = base.with_name(f".gone-{base.name}-{os.getpid()}")
    try:
        os.rename(base, trash)
    except OSError:
        return 0
    shutil.rmtree(trash, ignore_errors=True)
    return waiting


def sweep_spools(home: Path, now: float | None = None, keep: Path | None = None) -> list[SpoolInfo]:
    """Delete the spools of ``home`` that nothing wrote to for :data:`SPOOL_MAX_AGE_S`, and
    those whose project directory is gone and idle for :data:`ORPHAN_AGE_S` (a deleted
    worktree); ``keep`` (this project's spool) is never swept. Returns what was deleted."""
    now = time.time() if now is None else now
    gone = []
    for info in list_spools(home):
        if keep is not None and info.path == keep:
            continue
        idle = now - info.last_write
        if idle > SPOOL_MAX_AGE_S or (info.orphaned and idle > ORPHAN_AGE_S):
            remove(info.path)
            gone.append(info)
    return gone
