"""The real server over stdio when `ctx-tree forget` deletes its store while it runs: the next
call notices, opens a new store, and a note it reports saved is on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import apsw
from e2e_support import run_client, server_env, text_of

CLI = str(Path(sys.executable).parent / "ctx-tree")


def test_a_store_deleted_under_a_running_server_is_noticed(project, home):
    async def body(c):
        out = {"first": await c.call_tool("ctx_tree_note", {"content": "before the delete"})}
        forgot = subprocess.run(
            [CLI, "forget", "--yes", str(project)],
            env=server_env(home),
            capture_output=True,
            text=True,
        )
        out["forget"] = forgot.stdout
        assert forgot.returncode == 0, forgot.stderr
        out["second"] = await c.call_tool("ctx_tree_note", {"content": "after the delete"})
        out["read"] = await c.call_tool(
            "ctx_tree_read", {"path": "pkg/decoder.py", "symbol": "JSONDecoder"}
        )
        out["search"] = await c.call_tool("ctx_tree_search", {"query": "delete"})
        return out

    out = run_client(project, home, "legacy", body)
    assert out["forget"].startswith(f"forgot {project.resolve()}: removed ")
    assert text_of(out["second"]).startswith("note saved") and not out["second"].is_error
    assert "class JSONDecoder" in text_of(out["read"])
    assert "after the delete" in text_of(out["search"])
    assert "before the delete" not in text_of(out["search"])
    [db] = list(home.glob("*/store.db"))
    con = apsw.Connection(str(db))
    notes = [r[0] for r in con.execute("SELECT content FROM nodes WHERE kind = 'note'")]
    con.close()
    assert notes == ["after the delete"]
