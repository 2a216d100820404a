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
