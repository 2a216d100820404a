"""``ctx-tree walk``: the walkers run once from the CLI, one summary line each."""

from __future__ import annotations

from pathlib import Path

from ctx_tree_schema import NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store

BIG = "src/app.py:10:    handle_request(session, payload)  # the real match\n" * 2


def add_pending(store: Store, content: str, *, source: str, **meta) -> str:
    node = NewNode(
        NodeKind.TOOL_OUTPUT, content, source_uri=source, status=NodeStatus.PENDING, metadata=meta
    )
    return store.insert([node])[0]


def test_cli_walk_prints_one_line_per_walker(tmp_path: Path) -> None:
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.cli.maintenance import walk

    root = tmp_path / "proj"
    root.mkdir()
    app = App(root=root, home=tmp_path / "home")
    try:
        add_pending(app.store, BIG, source="grep://1")
        add_pending(app.store, "", source="grep://2", tool="ctx_tree_grep")
        out = walk(app)
        lines = out.splitlines()
        assert lines[0] == "capture:    nothing spooled"
        assert lines[1] == (
            "filter:     2 promoted (1 ranked low: 1 too small, 0 noise; 0 superseded an older copy)"
        )
        assert lines[2] == "staleness:  checked 0 file roots: none changed"
        assert lines[3].startswith("pruner:     0 pruned (0 stale, 0 superseded), 0 deleted")
        assert lines[4] == "embedding:  off (no embedding provider configured)"
        assert lines[5] == "dedupe:     off (no embedding provider configured)"
        assert lines[6] == "summarizer: off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
        assert lines[7].startswith("(") and str(app.store_file) in lines[7]
        assert walk(app, "filter").splitlines()[0] == "filter: nothing pending"
    finally:
        app.close()


def test_walk_offers_every_walker_the_walkers_package_runs() -> None:
    # The CLI lists the walker names itself (importing the walkers for its parser would slow
    # every command); this keeps the two lists one.
    import argparse

    from ctx_tree_mcp.capture.ingest import WALKER
    from ctx_tree_mcp.cli.commands import _walk_args
    from ctx_tree_walkers import WALKER_NAMES

    parser = argparse.ArgumentParser()
    _walk_args(parser)
    (choices,) = [a.choices for a in parser._actions if a.dest == "walker"]
    assert list(choices) == [WALKER, *WALKER_NAMES, "all"]
