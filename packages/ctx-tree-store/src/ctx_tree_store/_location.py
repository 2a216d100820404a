"""Where a project's store lives (docs/data-model.md, "Store identity"):
``$CTX_TREE_HOME/<project-hash>/store.db``.

The project hash is ``sha256(project directory)[:16]``, where the project directory is the
nearest directory at or above the workspace holding ``.git`` (a repository's top level, a
worktree's or a submodule's), else the workspace itself; absolute, symlinks resolved. It
depends on no commit, so ``git init``, the first commit and merges of unrelated histories
keep the store; a move or a clone elsewhere starts a fresh one.

ctx-tree 0.1.0 keyed git projects by ``sha256(top level + ":" + first root commit)``;
:func:`resolve_store_path` adopts such a store (renames its directory) the first time the
project is opened without one.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
from pathlib import Path

DEFAULT_HOME = "~/.ctx-tree"
STORE_FILE = "store.db"

log = logging.getLogger(__name__)


def ctx_tree_home() -> Path:
    """``$CTX_TREE_HOME`` when set (and non-empty), else ``~/.ctx-tree``; expanded, absolute."""
    return Path(os.environ.get("CTX_TREE_HOME") or DEFAULT_HOME).expanduser().resolve()


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def project_dir(workspace: Path) -> Path:
    """The directory that names the project: the nearest one at or above ``workspace`` holding
    ``.git`` (directory or file), else ``workspace``; resolved."""
    workspace = Path(workspace).resolve()
    for candidate in (workspace, *workspace.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return workspace


def project_hash(workspace: Path) -> str:
    """16 hex chars: ``sha256(str(project_dir(workspace)))[:16]``."""
    return _digest(str(project_dir(workspace)))


def store_path(workspace: Path, home: Path | None = None) -> Path:
    """``<home>/<project_hash(workspace)>/store.db`` (the file may not exist yet; no side
    effects: :func:`resolve_store_path` also adopts a 0.1.0 store)."""
    return (home or ctx_tree_home()) / project_hash(workspace) / STORE_FILE


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def legacy_hashes(workspace: Path) -> list[str]:
    """The hashes ctx-tree 0.1.0 could have given this project: ``top level:root commit`` for
    every root commit of ``HEAD`` (a merge of unrelated histories adds roots and could change
    which one 0.1.0 picked), and the workspace path when it is not the project directory.
    Needs ``git`` for the first kind; [] without it."""
    workspace = Path(workspace).resolve()
    top = project_dir(workspace)
    out: list[str] = []
    if os.path.lexists(top / ".git"):
        roots = _git(["rev-list", "--max-parents=0", "HEAD"], top)
        out += [_digest(f"{top}:{sha}") for sha in (roots or "").split()]
    if workspace != top:
        out.append(_digest(str(workspace)))
    return out


def _last_used(directory: Path) -> float:
    times = []
    for name in (STORE_FILE, STORE_FILE + "-wal"):
        with contextlib.suppress(OSError):
            times.append((directory / name).stat().st_mtime)
    return max(times, default=0.0)


def resolve_store_path(workspace: Path, home: Path | None = None) -> Path:
    """:func:`store_path`, after adopting a store written under a 0.1.0 hash of this project
    when the project has none yet: its directory is renamed to the current hash (the most
    recently used one when there are several; the others stay, listed by ``ctx-tree
    stores``). A process still using the old directory keeps working (the files move, their
    inodes stay)."""
    home = home or ctx_tree_home()
    target = store_path(workspace, home)
    if target.exists():
        return target
    legacy = [
        home / h
        for h in dict.fromkeys(legacy_hashes(workspace))
        if h != target.parent.name and (home / h / STORE_FILE).exists()
    ]
    if not legacy:
        return target
    chosen = max(legacy, key=_last_used)
    try:
        if target.parent.exists():
            target.parent.rmdir()  # an empty directory left by a failed open
        os.rename(chosen, target.parent)
    except OSError as exc:  # another process adopted it first, or a store appeared meanwhile
        log.debug("store %s not adopted: %s", chosen, exc)
    else:
        log.info("adopted the store %s of this project as %s", chosen, target.parent)
    return target
