"""Secret file names in any letter case are refused by read and never shown by grep or search:
on macOS and Windows ``.ENV`` and ``ID_RSA`` are the same files as ``.env`` and ``id_rsa``."""

from __future__ import annotations

import asyncio

import pytest
from answers import match_count
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search

NAMES = [
    ".ENV",
    ".Env.Local",
    "ID_RSA",
    "deploy/Id_Ed25519.pub",
    "config/.ENV.production",
    "certs/Server.PEM",
    "keys/Signing.Key",
    ".SSH/config",
    "home/.AWS/Credentials",
    "Service-Account-prod.JSON",
    ".NPMRC",
    ".EnvRC",
]


@pytest.fixture
def secrets(root):
    for name in NAMES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("NEEDLE_CASE value=1\n")
    (root / "ok.txt").write_text("NEEDLE_CASE ok\n")
    return root


@pytest.mark.parametrize("name", NAMES)
def test_read_refuses_secret_names_in_any_case(app, secrets, name):
    with pytest.raises(ToolInputError, match="denylist"):
        read(app, name)


def test_grep_never_shows_them_and_stores_nothing_of_them(app, secrets):
    text = asyncio.run(grep(app, "NEEDLE_CASE"))
    assert "ok.txt" in text and match_count(text) == 1
    stored = app.store.con.execute(
        "SELECT group_concat(ctx_text(content) || ctx_meta(metadata, source_uri), '') FROM nodes"
    ).get
    for name in NAMES:
        assert name not in text and name not in stored


def test_search_hides_nodes_of_a_file_denied_later_in_another_case(app, root):
    (root / "Private-Notes.TXT").write_text("zebracorn plans\n")
    read(app, "Private-Notes.TXT")
    assert "Private-Notes.TXT" in search(app, "zebracorn")
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "path.deny").write_text("private-notes.txt\n")
    app.__dict__.pop("policy", None)  # a new server reads path.deny at start
    assert "Private-Notes.TXT" not in search(app, "zebracorn")
    with pytest.raises(ToolInputError, match="denylist"):
        read(app, "private-notes.txt")
