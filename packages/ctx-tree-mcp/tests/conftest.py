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
