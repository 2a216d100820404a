from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App

STDLIB = Path(os.__file__).parent


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    (r / "src").mkdir(parents=True)
    shutil.copy(STDLIB / "json" / "decoder.py", r / "src" / "decoder.py")
    shutil.copy(STDLIB / "argparse.py", r / "src" / "argparse_copy.py")
    return r


@pytest.fixture
def app(root: Path, tmp_path: Path):
    a = App(root, home=tmp_path / "home")
    yield a
    a.close()


@pytest.fixture(autouse=True)
def _claude_settings_of_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's user settings (its permission rules apply to ctx_tree_bash) are the test's
    own, never those of the machine running the tests."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-user"))


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``(home, project root)`` of an install test: empty directories of the test's own; the
    hosts' home variables unset, so each host's files land under ``home``; ``PATH`` without a
    ``codex`` (its project trust is then only explained)."""
    home, root = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    root.mkdir()
    for name in ("CODEX_HOME", "XDG_CONFIG_HOME", "COPILOT_HOME", "CLINE_HOOKS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "store"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    return home, root
