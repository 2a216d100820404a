"""A project's store identity under ordinary git operations, and adoption of 0.1.0 stores."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store, project_dir, project_hash, resolve_store_path, store_path

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def git(cwd: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit(repo: Path, name: str, date: str = "2026-01-01T00:00:00Z") -> str:
    (repo / name).write_text(name)
    git(repo, "add", name)
    git(repo, "commit", "-qm", name, date=date)
    return git(repo, "rev-parse", "HEAD")


def sha16(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def test_the_hash_is_the_project_directory_through_init_commit_and_merges(tmp_path: Path):
    repo = tmp_path / "proj"
    (repo / "sub").mkdir(parents=True)
    before = project_hash(repo)
    assert before == sha16(str(repo.resolve()))
    git(repo, "init", "-q", "-b", "main")
    assert project_hash(repo) == before == project_hash(repo / "sub")
    commit(repo, "first")
    assert project_hash(repo) == before
    # An unrelated history with an OLDER root commit, merged in.
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    commit(other, "ancient", date="2001-01-01T00:00:00Z")
    git(repo, "fetch", "-q", str(other), "main")
    git(repo, "merge", "-q", "--allow-unrelated-histories", "-m", "merge", "FETCH_HEAD")
    assert len(git(repo, "rev-list", "--max-parents=0", "HEAD").split()) == 2
    assert project_hash(repo) == before == project_hash(repo / "sub")
    assert project_dir(repo / "sub") == repo.resolve()


def test_a_worktree_is_its_own_project(tmp_path: Path):
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "first")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    assert project_dir(tmp_path / "wt") == (tmp_path / "wt").resolve()
    assert project_hash(tmp_path / "wt") != project_hash(repo)


def _legacy_store(home: Path, key: str, text: str) -> Path:
    path = home / sha16(key) / "store.db"
    with Store.open(path) as store:
        store.insert([NewNode(NodeKind.NOTE, text)])
    return path


def test_a_0_1_0_store_keyed_by_the_first_commit_is_adopted(tmp_path: Path):
    home, repo = tmp_path / "home", tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    first = commit(repo, "first")
    legacy = _legacy_store(home, f"{repo.resolve()}:{first}", "kept across the upgrade")
    path = resolve_store_path(repo, home)
    assert path == store_path(repo, home) and path.exists() and not legacy.exists()
    with Store.open(path) as store:
        assert [n.content for n in store.recent()] == ["kept across the upgrade"]
    assert resolve_store_path(repo, home) == path  # idempotent


def test_after_an_unrelated_merge_the_store_of_any_root_is_adopted(tmp_path: Path):
    home, repo, other = tmp_path / "home", tmp_path / "proj", tmp_path / "other"
    repo.mkdir()
    other.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "first")
    git(other, "init", "-q", "-b", "main")
    old_root = commit(other, "ancient", date="2001-01-01T00:00:00Z")
    git(repo, "fetch", "-q", str(other), "main")
    git(repo, "merge", "-q", "--allow-unrelated-histories", "-m", "merge", "FETCH_HEAD")
    _legacy_store(home, f"{repo.resolve()}:{old_root}", "older root")
    time.sleep(0.01)
    newest = _legacy_store(home, f"{repo.resolve()}:{git(repo, 'rev-parse', 'HEAD~1')}", "newer")
    path = resolve_store_path(repo, home)
    with Store.open(path) as store:
        assert [n.content for n in store.recent()] == ["newer"]
    assert not newest.exists()
    assert (home / sha16(f"{repo.resolve()}:{old_root}") / "store.db").exists()  # left alone


def test_an_existing_store_is_never_replaced_by_a_legacy_one(tmp_path: Path):
    home, repo = tmp_path / "home", tmp_path / "proj"
    repo.mkdir()
    with Store.open(store_path(repo, home)) as store:
        store.insert([NewNode(NodeKind.NOTE, "current")])
    git(repo, "init", "-q", "-b", "main")
    first = commit(repo, "first")
    legacy = _legacy_store(home, f"{repo.resolve()}:{first}", "legacy")
    with Store.open(resolve_store_path(repo, home)) as store:
        assert [n.content for n in store.recent()] == ["current"]
    assert legacy.exists()
