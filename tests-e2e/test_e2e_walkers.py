"""The walkers inside the real ``ctx-tree-mcp`` over stdio (official MCP client).

The server is started with a ``config.json`` in ``CTX_TREE_HOME`` that makes the filter sweep
every 100 ms; the store is inspected with a separate read-only SQLite connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import apsw
import pytest

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
NODE_ID = re.compile(r"node ([0-9A-HJKMNP-TV-Z]{26})")


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    for i in range(3):
        (root / f"mod{i}.py").write_text(
            f'def handle_request_{i}(request):\n    """Serve request {i}."""\n'
            f"    return dispatch(request, {i})\n"
        )
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(
        json.dumps(
            {
                "walkers": {"filterIntervalMs": 100, "stalenessIntervalMs": 200},
                # these tests count what reads store; the index has its own test below
                "index": {"enabled": False},
            }
        )
    )
    return root, home


def params(root: Path, home: Path) -> Any:
    from mcp import StdioServerParameters

    env = {"CTX_TREE_HOME": str(home), "PATH": os.environ["PATH"], "HOME": str(home)}
    return StdioServerParameters(command=SERVER, cwd=str(root), env=env)


def text_of(result: Any) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def db_of(home: Path) -> Path:
    (db,) = home.glob("*/store.db")
    return db


def query(home: Path, sql: str, args: tuple = ()) -> list[tuple]:
    con = apsw.Connection(str(db_of(home)), flags=apsw.SQLITE_OPEN_READONLY)
    con.set_busy_timeout(5000)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def status_row(home: Path, node_id: str) -> tuple[str, int, int]:
    (row,) = query(
        home, "SELECT status, created_at, updated_at FROM nodes WHERE id = ?", (node_id,)
    )
    return row


def grep_node(home: Path, glob: str | None = None) -> str:
    """The id of the grep output node (of ``glob``): an answer that showed every match names
    no node (docs/tools.md, "Footer and manifest")."""
    rows = query(
        home,
        "SELECT id FROM nodes WHERE kind = 'tool_output' AND "
        # (a file chunk's metadata is a packed BLOB, not JSON: docs/data-model.md)
        "json_extract(CASE typeof(metadata) WHEN 'text' THEN metadata END, '$.file_glob') IS ? "
        "ORDER BY created_at DESC, id DESC",
        (glob,),
    )
    return rows[0][0]


def test_grep_node_goes_pending_to_live_within_a_second(setup) -> None:
    from mcp import Client

    root, home = setup

    async def main() -> None:
        async with Client(params(root, home), mode="legacy") as client:
            answer = text_of(await client.call_tool("ctx_tree_grep", {"pattern": "handle_request"}))
            assert "handle_request" in answer
            node_id = grep_node(home)
            captured = time.monotonic()
            first = status_row(home, node_id)[0]
            assert first in ("pending", "live")  # the walker may already have run
            hits = text_of(await client.call_tool("ctx_tree_search", {"query": "handle_request"}))
            assert node_id in hits  # searchable at once, pending or not
            while (row := status_row(home, node_id))[0] != "live":
                assert time.monotonic() - captured < 1.0, f"still {row[0]} after 1 s"
                await asyncio.sleep(0.02)
            _, created_at, updated_at = row
            assert updated_at >= created_at  # promoted after capture (same ms possible)
            assert updated_at - created_at < 1000
            # An identical grep is the same capture: answered with the live node's id, no new row.
            again = text_of(await client.call_tool("ctx_tree_grep", {"pattern": "handle_request"}))
            assert again == answer and grep_node(home) == node_id
            assert query(home, "SELECT count(*) FROM nodes WHERE kind = 'tool_output'") == [(1,)]
            assert status_row(home, node_id)[0] == "live"
            leases = query(home, "SELECT name FROM leases ORDER BY name")
            assert ("walker:filter",) in leases

    asyncio.run(main())
    # The server shut down cleanly: its leases are released.
    assert query(home, "SELECT name, holder FROM leases") == []


def test_server_indexes_the_project_from_start(setup) -> None:
    """With the index on, a file never read is found by search, and an edit is re-indexed."""
    from mcp import Client

    root, home = setup
    (home / "config.json").write_text(json.dumps({"index": {"pollMs": 200}}))

    async def until_hit(client: Any, query_text: str) -> str:
        deadline = time.monotonic() + 30
        while True:
            found = text_of(await client.call_tool("ctx_tree_search", {"query": query_text}))
            if "mod2.py:" in found:
                return found
            assert time.monotonic() < deadline, found
            await asyncio.sleep(0.1)

    async def main() -> None:
        async with Client(params(root, home), mode="legacy") as client:
            await until_hit(client, "handle_request_2")
            (root / "mod2.py").write_text("def brand_new_symbol_xyz():\n    return 2\n")
            await until_hit(client, "brand_new_symbol_xyz")

    asyncio.run(main())
    runs = query(home, "SELECT summary FROM walker_runs WHERE walker = 'index'")
    assert runs and "3 stored" in runs[0][0]


def test_edit_marks_read_file_stale_in_the_running_server(setup) -> None:
    from mcp import Client

    root, home = setup

    async def main() -> None:
        async with Client(params(root, home), mode="legacy") as client:
            await client.call_tool("ctx_tree_read", {"path": "mod1.py"})
            roots = query(
                home,
                "SELECT id FROM nodes WHERE kind = 'file_chunk' AND parent_id IS NULL "
                "AND status = 'live'",
            )
            assert len(roots) == 1
            path = root / "mod1.py"
            path.write_text(path.read_text() + "# edited\n")
            deadline = time.monotonic() + 5  # staleness every 200 ms after a 200 ms start delay
            while status_row(home, roots[0][0])[0] != "stale":
                assert time.monotonic() < deadline, "file root not marked stale"
                await asyncio.sleep(0.05)
            chunk_statuses = query(
                home, "SELECT DISTINCT status FROM nodes WHERE parent_id = ?", (roots[0][0],)
            )
            assert chunk_statuses == [("stale",)]

    asyncio.run(main())


def test_three_servers_share_one_filter(setup) -> None:
    """Three servers on one project store: one holds the filter lease and promotes every
    server's greps; the holder does not change while it is alive."""
    from mcp import Client

    root, home = setup

    async def main() -> None:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(Client(params(root, home), mode="legacy"))
                for _ in range(3)
            ]
            ids = []
            for i, client in enumerate(clients):
                answer = text_of(
                    await client.call_tool(
                        "ctx_tree_grep", {"pattern": "request", "glob": f"mod{i}.py"}
                    )
                )
                assert "request" in answer
                ids.append(grep_node(home, f"mod{i}.py"))
            holders = set()
            deadline = time.monotonic() + 3
            while True:
                holders |= {
                    h
                    for (h,) in query(
                        home, "SELECT holder FROM leases WHERE name = 'walker:filter'"
                    )
                }
                if all(status_row(home, i)[0] == "live" for i in ids):
                    break
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            for _ in range(10):  # stable over a second of filter ticks
                holders |= {
                    h
                    for (h,) in query(
                        home, "SELECT holder FROM leases WHERE name = 'walker:filter'"
                    )
                }
                await asyncio.sleep(0.1)
            assert len(holders) == 1, holders
            pids = {h.split(":")[1] for h in holders}
            assert len(pids) == 1

    asyncio.run(main())
    assert query(home, "SELECT * FROM leases") == []
