"""The real server over stdio when its store is deleted while it runs: the next call notices,
opens a new store, and a note it reports saved is on disk."""

from __future__ import annotations

import shutil

import apsw
from e2e_support import run_client, text_of


def test_a_store_deleted_under_a_running_server_is_noticed(project, home):
    async def body(c):
        out = {"first": await c.call_tool("ctx_tree_note", {"content": "before the delete"})}
        [store_dir] = list(home.glob("*/store.db"))
        shutil.rmtree(store_dir.parent)
        out["second"] = await c.call_tool("ctx_tree_note", {"content": "after the delete"})
        out["read"] = await c.call_tool(
            "ctx_tree_read", {"path": "pkg/decoder.py", "symbol": "JSONDecoder"}
        )
        out["search"] = await c.call_tool("ctx_tree_search", {"query": "delete"})
        return out

    out = run_client(project, home, "legacy", body)
    assert text_of(out["second"]).startswith("note saved") and not out["second"].is_error
    assert "class JSONDecoder" in text_of(out["read"])
    assert "after the delete" in text_of(out["search"])
    assert "before the delete" not in text_of(out["search"])
    [db] = list(home.glob("*/store.db"))
    con = apsw.Connection(str(db))
    notes = [r[0] for r in con.execute("SELECT content FROM nodes WHERE kind = 'note'")]
    con.close()
    assert notes == ["after the delete"]
