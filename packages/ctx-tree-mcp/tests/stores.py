"""A project's store file damaged on purpose: what the tests of a store that cannot be opened
start from (docs/data-model.md, the table of store faults)."""

from __future__ import annotations

from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.note import note


def damage(path: Path) -> None:
    """Overwrite the first bytes of the store file ``path``: SQLite no longer reads it."""
    with open(path, "r+b") as f:
        f.write(b"garbage garbage garbage")


def damaged_store(root: Path, home: Path) -> Path:
    """The store file of ``root`` under ``home``, made (it holds one note) and then damaged;
    returns its path."""
    first = App(root, home=home)
    note(first, "seed")
    path = first.store_file
    first.close()
    damage(path)
    return path
