from __future__ import annotations

from pathlib import Path

import pytest
from ctx_tree_store import Store


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    return tmp_path / "home" / "proj" / "store.db"


@pytest.fixture
def store(store_file: Path):
    s = Store.open(store_file)
    yield s
    s.close()
