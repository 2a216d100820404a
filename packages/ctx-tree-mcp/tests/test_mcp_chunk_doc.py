"""Reading a file stores each symbol's doc summary in its first chunk node's metadata."""

from __future__ import annotations

from ctx_tree_mcp.tools.read import read

SOURCE = '''"""Module docstring."""
import os


@register
def add_help(program):
    """Adds default help command.

    Args:
        program: the program.
    """
    return program


def bare():
    return os.sep


def leak():
    """Reads AKIAABCDEFGHIJKLMNOP from the environment."""
'''


def test_reading_a_python_file_stores_the_doc_of_each_symbol(app, root):
    (root / "cli.py").write_text(SOURCE)
    read(app, "cli.py")
    uri = "file://" + str((root / "cli.py").resolve())
    chunks = {}
    for suffix in ("add_help", "bare", "leak", "L1-4"):
        node = app.store.latest_by_source(f"{uri}#{suffix}")
        assert node is not None, suffix
        chunks[suffix] = node.metadata
    assert chunks["add_help"]["doc"] == "Adds default help command."
    assert chunks["add_help"]["symbol"] == "add_help"
    assert "doc" not in chunks["bare"]
    assert "doc" not in chunks["L1-4"]  # the module docstring is no symbol's
    # the doc is taken from the redacted text: no secret reaches the metadata
    assert chunks["leak"]["doc"] == "Reads [REDACTED:aws_access_key] from the environment."
