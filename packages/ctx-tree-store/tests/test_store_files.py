"""Files on disk (docs/security.md hardening) and where the store lives (docs/configuration.md)."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_store import ctx_tree_home, project_hash, store_path

SCRIPT = r"""
import os, sys
os.umask(0o000)
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store
store = Store.open(sys.argv[1])
store.insert([NewNode(NodeKind.NOTE, "secret-ish")])
modes = {}
for name in ("", "-wal", "-shm"):
    modes[name] = oct(os.stat(sys.argv[1] + name).st_mode & 0o777)
print(modes)
store.close()
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_permissions_whatever_the_umask(tmp_path: Path):
    home = tmp_path / "fresh-home"
    db = home / "abcdef0123456789" / "store.db"
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "{'': '0o600', '-wal': '0o600', '-shm': '0o600'}"
    assert mode(db.parent) == 0o700
    assert mode(home) == 0o700  # created by us, so private too
    assert mode(db) == 0o600


def test_permissions_are_repaired_on_open(tmp_path: Path):
    db = tmp_path / "h" / "store.db"
    subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db)], check=True, timeout=60, capture_output=True
    )
    os.chmod(db.parent, 0o755)
    os.chmod(db, 0o644)
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "0o644" not in out.stdout
    assert mode(db.parent) == 0o700 and mode(db) == 0o600


def test_home_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    assert ctx_tree_home() == (tmp_path / "h").resolve()
    monkeypatch.setenv("CTX_TREE_HOME", "")
    assert ctx_tree_home() == Path("~/.ctx-tree").expanduser().resolve()


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_project_hash_git_and_fallback(tmp_path: Path):
    plain = tmp_path / "plain"
    plain.mkdir()
    expected = hashlib.sha256(str(plain.resolve()).encode()).hexdigest()[:16]
    assert project_hash(plain) == expected
    repo = tmp_path / "repo"
    repo.mkdir()
    try:
        git(repo, "init", "-q")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git not available")
    assert project_hash(repo) == hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    (repo / "f").write_text("x")
    git(repo, "add", "f")
    git(repo, "commit", "-qm", "first")
    # The first commit does not change the hash: it names the repository's directory.
    want = hashlib.sha256(git(repo, "rev-parse", "--show-toplevel").encode()).hexdigest()[:16]
    (repo / "sub").mkdir()
    assert project_hash(repo) == want == project_hash(repo / "sub")
    assert store_path(repo, tmp_path / "home") == tmp_path / "home" / want / "store.db"
