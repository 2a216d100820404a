"""E2E fixtures: a real project tree and the real ``ctx-tree-mcp`` over stdio with the official client."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
STDLIB = Path(os.__file__).parent


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
    return h


def server_env(home: Path, **extra: str) -> dict[str, str]:
    env = {"CTX_TREE_HOME": str(home), "PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    env.update(extra)
    return env


def run_client(project: Path, home: Path, mode: str, body: Callable[[Any], Any], **env: str) -> Any:
    """Start the server in ``project`` and run ``await body(client)``; returns its result."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=SERVER, cwd=str(project), env=server_env(home, **env))

    async def main() -> Any:
        async with Client(params, mode=mode) as client:
            return await body(client)

    return asyncio.run(main())


def text_of(result: Any) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def store_rows(home: Path) -> int:
    """Total nodes in every store under ``home`` (0 when none exists)."""
    import apsw

    total = 0
    for db in home.glob("*/store.db"):
        con = apsw.Connection(str(db))
        total += con.execute("SELECT count(*) FROM nodes").get
        con.close()
    return total
