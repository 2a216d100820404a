from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ctx_tree_store import Store


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own CTX_TREE_HOME."""
    home = tmp_path / "ctx-home"
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    return home


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "ctx-home" / "0123456789abcdef" / "store.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    with Store.open(db_path) as s:
        yield s
