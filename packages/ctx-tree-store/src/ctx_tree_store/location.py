"""Where a project's store lives (docs/configuration.md): ``$CTX_TREE_HOME/<project-hash>/store.db``."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

DEFAULT_HOME = "~/.ctx-tree"


def ctx_tree_home() -> Path:
    """``$CTX_TREE_HOME`` when set (and non-empty), else ``~/.ctx-tree``; expanded, absolute."""
    return Path(os.environ.get("CTX_TREE_HOME") or DEFAULT_HOME).expanduser().resolve()


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def project_hash(workspace: Path) -> str:
    """16 hex chars identifying the project (docs/configuration.md).

    ``sha256(git_root + ":" + first_commit_sha)[:16]`` when ``workspace`` is inside a git
    repository with at least one commit; otherwise ``sha256(absolute_workspace_path)[:16]``.
    Without a ``git`` executable the fallback applies (docs/walkers.md soft dependency).
    """
    workspace = Path(workspace).resolve()
    root = _git(["rev-parse", "--show-toplevel"], workspace)
    first = _git(["rev-list", "--max-parents=0", "HEAD"], workspace) if root else None
    if root and first:
        # Several roots (merged histories): the spec's command prints them all; use the first line.
        key = f"{root}:{first.splitlines()[0]}"
    else:
        key = str(workspace)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def store_path(workspace: Path, home: Path | None = None) -> Path:
    """``<home>/<project_hash(workspace)>/store.db`` (the file may not exist yet)."""
    return (home or ctx_tree_home()) / project_hash(workspace) / "store.db"
