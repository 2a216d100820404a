"""The project root from the client's MCP roots (docs/install.md, "Project root"): a client
that declares the ``roots`` capability, with no ``--root`` or host variable given, gets the
server rooted at its first ``file://`` root, not at the directory the server started in."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ctx_tree_store import store_path
from e2e_support import SERVER, server_env, text_of


def run_with_roots(cwd: Path, home: Path, roots: list[str] | None, **env: str) -> str:
    """Start the server in ``cwd`` under a client listing ``roots`` (None: no roots
    capability); returns ``ctx_tree_read`` of ``marker.txt``."""
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=SERVER, cwd=str(cwd), env=server_env(home, **env))
    asked: list[int] = []

    async def list_roots(_context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in roots or []])

    async def main() -> str:
        callback = list_roots if roots is not None else None
        async with Client(params, mode="legacy", list_roots_callback=callback) as client:
            return text_of(await client.call_tool("ctx_tree_read", {"path": "marker.txt"}))

    text = asyncio.run(main())
    assert len(asked) == (1 if roots and "CLAUDE_PROJECT_DIR" not in env else 0)
    return text


def trees(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, elsewhere, home = tmp_path / "my project", tmp_path / "elsewhere", tmp_path / "home"
    for folder, word in ((project, "from-the-root"), (elsewhere, "from-the-cwd")):
        folder.mkdir()
        (folder / "marker.txt").write_text(f"{word}\n")
    home.mkdir()
    (home / "config.json").write_text('{"index": {"enabled": false}}')
    return project, elsewhere, home


def test_the_first_file_root_is_the_project_root(tmp_path: Path) -> None:
    project, elsewhere, home = trees(tmp_path)
    # a root that is no directory here is passed over
    roots = [(tmp_path / "gone").as_uri(), project.as_uri(), elsewhere.as_uri()]
    assert "from-the-root" in run_with_roots(elsewhere, home, roots)
    assert store_path(project, home).exists() and not store_path(elsewhere, home).exists()


def test_the_hosts_variable_beats_the_roots(tmp_path: Path) -> None:
    project, elsewhere, home = trees(tmp_path)
    text = run_with_roots(project, home, [elsewhere.as_uri()], CLAUDE_PROJECT_DIR=str(project))
    assert "from-the-root" in text


def test_no_roots_or_no_usable_root_leaves_the_cwd(tmp_path: Path) -> None:
    _project, elsewhere, home = trees(tmp_path)
    assert "from-the-cwd" in run_with_roots(elsewhere, home, None)
    gone = (tmp_path / "gone").as_uri()
    assert "from-the-cwd" in run_with_roots(elsewhere, home, [gone])
