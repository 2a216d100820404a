"""Recall over stdio: search filters and modes, compose, neighbors, path_to_root, recent, note, get."""

from __future__ import annotations

import re

from e2e_support import run_client, text_of

ID = re.compile(r"node_id=([0-9A-Z]{26})")


def tokens(text: str) -> int:
    from ctx_tree_compose import estimate_tokens

    return estimate_tokens(text)


def test_recall_tools_end_to_end(project, home):
    async def body(c):
        out = {}
        await c.call_tool("ctx_tree_read", {"path": "pkg/decoder.py"})
        await c.call_tool("ctx_tree_grep", {"pattern": "def py_scanstring"})
        out["note"] = await c.call_tool(
            "ctx_tree_note", {"content": "scanstring handles escapes", "title": "finding"}
        )
        out["search"] = await c.call_tool(
            "ctx_tree_search", {"query": "scanstring escape", "limit": 5}
        )
        out["semantic"] = await c.call_tool("ctx_tree_search", {"query": "x", "mode": "semantic"})
        out["hybrid"] = await c.call_tool("ctx_tree_search", {"query": "x", "mode": "hybrid"})
        out["badfilter"] = await c.call_tool(
            "ctx_tree_search", {"query": "x", "filters": {"kind": ["nope"]}}
        )
        out["notes_only"] = await c.call_tool(
            "ctx_tree_search", {"query": "scanstring", "filters": {"kind": ["note"]}}
        )
        first_file_hit = next(
            ln for ln in text_of(out["search"]).splitlines() if "pkg/decoder.py:" in ln
        )
        seed = ID.search(first_file_hit).group(1)
        out["compose"] = await c.call_tool(
            "ctx_tree_compose", {"seed_ids": [seed], "query": "scanstring", "budget_tokens": 600}
        )
        out["compose_bad"] = await c.call_tool(
            "ctx_tree_compose", {"seed_ids": ["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]}
        )
        out["neighbors"] = await c.call_tool("ctx_tree_neighbors", {"node_id": seed, "depth": 2})
        out["neighbors_deep"] = await c.call_tool(
            "ctx_tree_neighbors", {"node_id": seed, "depth": 6}
        )
        out["path"] = await c.call_tool("ctx_tree_path_to_root", {"node_id": seed})
        out["recent"] = await c.call_tool("ctx_tree_recent", {"kind": "note", "limit": 5})
        out["get"] = await c.call_tool("ctx_tree_get", {"node_id": seed, "budget_tokens": 100})
        return out

    out = run_client(project, home, "legacy", body)
    assert "note saved: node_id=" in text_of(out["note"])
    hits = [ln for ln in text_of(out["search"]).splitlines() if re.match(r"\d+\. ", ln)]
    assert any("pkg/decoder.py:" in h for h in hits) and any("note finding" in h for h in hits)
    for key in ("semantic", "hybrid"):  # no provider configured: keyword hits and a note
        assert not out[key].is_error
        assert "no embedding provider is configured" in text_of(out[key])
    assert out["badfilter"].is_error and "filters" in text_of(out["badfilter"])
    notes = text_of(out["notes_only"])
    assert "note finding" in notes and "file_chunk" not in notes.split("-- ctx-tree")[0]
    composed = text_of(out["compose"])
    assert tokens(composed) <= 600
    assert (
        "included:" in composed or "truncated:" in composed
    ) and "## pkg/decoder.py:" in composed
    assert out["compose_bad"].is_error and "seed_ids" in text_of(out["compose_bad"])
    assert "via=parent" in text_of(out["neighbors"])
    assert out["neighbors_deep"].is_error and "depth" in text_of(out["neighbors_deep"])
    chain = [ln for ln in text_of(out["path"]).splitlines() if re.match(r"\d+\. ", ln)]
    assert len(chain) == 2 and "(file root)" in chain[1]
    assert "note finding" in text_of(out["recent"])
    page = text_of(out["get"])
    assert tokens(page) <= 100 and "ctx_tree_get(node_id=" in page
