"""The live index outlives a watcher error (docs/index.md): a change to a file whose name is
not UTF-8 makes ``watchfiles`` raise; the index restarts its watcher and still stores what
changes after."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.serve.lifecycle import walkers_lifespan


def test_a_file_name_the_watcher_cannot_decode_does_not_stop_the_live_index(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def first_symbol():\n    return 1\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"index": {"pollMs": 0}}))  # watcher only
    app = App(root=root, home=home)
    bad = os.path.join(os.fsencode(root), b"caf\xe9.py")

    async def wait_for(symbol: str) -> None:
        started = time.monotonic()
        while not app.store.search(symbol):
            assert time.monotonic() - started < 15, f"{symbol} never indexed"
            await asyncio.sleep(0.05)

    async def main() -> None:
        async with walkers_lifespan(app)(None) as state:
            index = state["index"]
            await wait_for("first_symbol")
            assert index.state.watcher == "watchfiles"
            await asyncio.sleep(0.3)  # the watcher is up
            with open(bad, "wb") as f:  # watchfiles cannot decode this name
                f.write(b"def undecodable_name_symbol():\n    return 1\n")
            await asyncio.sleep(0.5)
            (root / "b.py").write_text("def after_the_bad_name():\n    return 2\n")
            await wait_for("after_the_bad_name")
            assert index._thread is not None and index._thread.is_alive()

    try:
        asyncio.run(main())
    finally:
        app.close()


def test_when_live_updates_stop_stats_and_doctor_say_so(tmp_path: Path) -> None:
    """pollMs 0 and no watcher: the index runs once, then says live updates stopped."""
    from ctx_tree_mcp.engines.files import indexer
    from ctx_tree_mcp.engines.files.indexer import status_lines

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def first_symbol():\n    return 1\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"index": {"pollMs": 0}}))
    app = App(root=root, home=home)
    service = indexer.IndexService(app.stores, app.root, app.policy, app.config, app.calls)
    service._watch = lambda _root: None  # type: ignore[method-assign]  # no watcher here
    try:
        service.start()
        assert service._thread is not None
        service._thread.join(30)
        assert not service._thread.is_alive()
        lines = status_lines(app.store, app.root, app.config)
        assert any(
            "live updates stopped (index.pollMs is 0)" in line and "`ctx-tree index`" in line
            for line in lines
        ), lines
    finally:
        service.stop()
        app.close()
