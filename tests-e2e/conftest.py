"""E2E fixtures: a real project tree and the real ``ctx-tree-mcp`` over stdio with the official client."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from e2e_support import STDLIB


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project root holding real source files (copies of stdlib modules) and a secret file."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    shutil.copy(STDLIB / "argparse.py", root / "pkg" / "argparse_copy.py")
    shutil.copy(STDLIB / "json" / "decoder.py", root / "pkg" / "decoder.py")
    (root / ".env").write_text("OPENAI_API_KEY=sk-live-abcdefghijklmnopqrstuvwx\n")
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    # what these tests count is what their calls store: the background index (on by default,
    # docs/index.md) is off here and has its own tests (test_e2e_walkers.py)
    (h / "config.json").write_text('{"index": {"enabled": false}}')
    return h
