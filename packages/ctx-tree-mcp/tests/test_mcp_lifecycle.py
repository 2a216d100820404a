"""ctx_tree_mcp.serve.lifecycle: the coordinator starts with the MCP server and stops with it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.serve.lifecycle import walkers_lifespan
from ctx_tree_mcp.serve.server import build_server
from ctx_tree_schema import Filters


def fast_app(tmp_path: Path) -> App:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def alpha_beta(x):\n    return x * 2  # doubles the input value\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"walkers": {"filterIntervalMs": 50}}))
    return App(root=root, home=home)


def test_server_lifespan_runs_the_filter_and_releases_leases(tmp_path: Path) -> None:
    from mcp import Client

    app = fast_app(tmp_path)

    async def main() -> None:
        server = build_server(app)
        async with Client(server, mode="legacy") as client:
            result = await client.call_tool("ctx_tree_grep", {"pattern": "alpha_beta|return"})
            assert not result.is_error
            (node,) = app.store.recent(filters=Filters(kind=("tool_output",)))
            deadline = time.monotonic() + 2
            while app.store.get(node.id).status.value != "live":
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
        # after the server stopped, its lease is free for anyone at once
        assert app.store.acquire_lease("walker:filter", "someone-else", 1000)

    try:
        asyncio.run(main())
    finally:
        app.close()


def test_lifespan_state_and_clean_stop(tmp_path: Path) -> None:
    app = fast_app(tmp_path)

    async def main() -> None:
        async with walkers_lifespan(app)(None) as state:
            service = state["walkers"]
            for _ in range(100):
                if service.coordinator and service.coordinator.state["filter"].runs:
                    break
                await asyncio.sleep(0.02)
            assert service.coordinator.state["filter"].runs >= 1
        assert service.coordinator.stopping
        assert service.coordinator._store is None  # its own connection is closed

    try:
        asyncio.run(main())
    finally:
        app.close()


def test_walkers_that_cannot_start_do_not_stop_the_server(tmp_path: Path, caplog) -> None:
    app = fast_app(tmp_path)
    (app.home / "config.json").write_text("{broken")  # the config cannot be read

    async def main() -> None:
        async with walkers_lifespan(app)(None) as state:
            await asyncio.sleep(0.1)
            assert state["walkers"].coordinator is None

    asyncio.run(main())
    assert "walkers not started" in caplog.text


def test_stop_before_the_coordinator_was_built(tmp_path: Path) -> None:
    app = fast_app(tmp_path)

    async def main() -> None:
        async with walkers_lifespan(app)(None):
            pass  # leave at once: the build may still be running in its thread

    asyncio.run(main())
    app.close()
