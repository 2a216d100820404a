"""Helpers shared by the e2e tests (a uniquely named module, so no other conftest shadows it)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
#: Flags for a headless Debian chromium that reaches nothing but the page under test (the
#: inspector's browser test and bench/inspector.py).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
STDLIB = Path(os.__file__).parent


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


def list_tool_schemas(tmp: Path) -> dict[str, dict[str, Any]]:
    """``{tool name: input schema}`` from the real server's ``tools/list`` (official client)."""

    async def body(client: Any) -> dict[str, dict[str, Any]]:
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return run_client(tmp, home, "legacy", body)
