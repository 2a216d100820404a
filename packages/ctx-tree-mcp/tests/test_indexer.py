"""The project index (indexer.py, docs/index.md): listing, caps, incremental runs, the status
machine, the worker processes, the CLI verb and the server's background thread."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.files import filecache
from ctx_tree_mcp.engines.files.indexer import IndexState, index_project, list_files, status_lines
from ctx_tree_mcp.policy.names import file_uri
from ctx_tree_mcp.serve.lifecycle import walkers_lifespan

STDLIB = Path(os.__file__).parent


def _project(tmp_path: Path, config: dict | None = None) -> App:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "retry.py").write_text(
        "def retry_with_backoff(call, attempts=3):\n    return call()\n"
    )
    (root / "README.md").write_text("# Demo\n\nThe retry logic lives in src/retry.py.\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "generated.py").write_text("def ignored_generated(): pass\n")
    (root / "run.log").write_text("ignored log line\n")
    (root / ".env").write_text("API_TOKEN=abc\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    home = tmp_path / "home"
    home.mkdir()
    if config is not None:
        (home / "config.json").write_text(json.dumps(config))
    return App(root=root, home=home)


def _live_paths(app: App) -> set[str]:
    uri = file_uri(app.root.resolve()) + "/"
    return {u[len(uri) :] for u in app.store.file_versions(uri)}


@pytest.mark.parametrize("git", [True, False])
def test_index_lists_text_files_minus_ignored_and_denylisted(tmp_path: Path, git: bool) -> None:
    app = _project(tmp_path)
    try:
        if git:
            subprocess.run(["git", "init", "-q", str(app.root)], check=True)
        state = index_project(app.store, app.root, app.policy, app.config, workers=1)
        assert _live_paths(app) == {"src/retry.py", "README.md", ".gitignore"}
        assert state.stored == 3 and state.skipped == 1  # the PNG is not text
        hits = app.store.search("retry_with_backoff")
        assert any(h.node.metadata.get("relpath") == "src/retry.py" for h in hits)
        assert not app.store.search("ignored_generated")
    finally:
        app.close()


def test_an_empty_file_is_unchanged_on_the_next_run(tmp_path: Path) -> None:
    app = _project(tmp_path)
    (app.root / "src" / "__init__.py").write_bytes(b"")
    try:
        first = index_project(app.store, app.root, app.policy, app.config, workers=1)
        assert first.stored == 4
        again = index_project(app.store, app.root, app.policy, app.config)
        assert (again.todo, again.stored, again.unchanged, again.skipped) == (0, 0, 4, 1)
    finally:
        app.close()


def test_index_is_incremental_and_follows_the_status_machine(tmp_path: Path) -> None:
    app = _project(tmp_path)
    try:
        first = index_project(app.store, app.root, app.policy, app.config, workers=1)
        again = index_project(app.store, app.root, app.policy, app.config, state=first)
        assert (again.stored, again.unchanged, again.skipped) == (0, 3, 1)
        # another process (the CLI run again): the PNG is not opened again either
        other = index_project(app.store, app.root, app.policy, app.config)
        assert (other.todo, other.unchanged, other.skipped) == (0, 3, 1)
        target = app.root / "src" / "retry.py"
        old_root = app.store.latest_by_source(file_uri(target))
        target.write_text("def retry_forever(call):\n    while True:\n        call()\n")
        os.utime(target, ns=(time.time_ns(), time.time_ns() + 5_000_000))
        edited = index_project(app.store, app.root, app.policy, app.config)
        assert edited.stored == 1
        assert app.store.get(old_root.id).status.value == "superseded"
        assert app.store.search("retry_forever")
        # a read after the index is served from the store, not parsed again
        resolved, st = app.policy.resolve_file("src/retry.py")
        assert filecache.load(app, resolved, st).cached
        (app.root / "README.md").unlink()
        gone = index_project(app.store, app.root, app.policy, app.config)
        assert gone.gone == 1
        readme = app.store.latest_by_source(file_uri(app.root / "README.md"))
        assert readme.status.value == "stale"
    finally:
        app.close()


def test_caps_cut_the_listing(tmp_path: Path) -> None:
    app = _project(tmp_path, {"index": {"maxFiles": 2, "maxFileBytes": 40}})
    try:
        (app.root / "a.txt").write_text("small\n")
        (app.root / "big.txt").write_text("x" * 41)
        listing = list_files(app.root, app.policy, app.config)
        # none refers to another: shallow paths first, in name order; README.md, big.txt and
        # src/retry.py (> 40 bytes) left out, and counted whether before the cap or after
        assert [f[0] for f in listing.files] == [".gitignore", "a.txt"]
        assert listing.capped and listing.too_big == 3
        state = index_project(app.store, app.root, app.policy, app.config)
        assert state.capped and state.stored == 2
        assert _live_paths(app) == {".gitignore", "a.txt"}
    finally:
        app.close()


def test_worker_processes_store_what_the_thread_stores(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    for i, src in enumerate(sorted((STDLIB / "json").glob("*.py")) * 20):
        shutil.copy(src, root / f"m{i:03d}_{src.name}")
    app = App(root=root, home=tmp_path / "home")
    try:
        state = index_project(app.store, root, app.policy, app.config, workers=2)
        assert state.stored == state.listed >= 64
        decoder = next(root.glob("*_decoder.py"))
        one = app.store.latest_by_source(file_uri(decoder))
        assert one.status.value == "live" and one.metadata["symbols"]
        assert app.store.search("JSONDecodeError")
    finally:
        app.close()


def test_cli_index_and_stats(tmp_path: Path, monkeypatch, capsys) -> None:
    from ctx_tree_mcp.cli.main import main

    app = _project(tmp_path)
    app.close()
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))
    assert main(["index", "--root", str(app.root)]) in (0, None)
    out = capsys.readouterr().out
    assert "3 stored" in out
    assert main(["stats", "--root", str(app.root)]) in (0, None)
    out = capsys.readouterr().out
    assert "index: on; 3 files live" in out
    assert "index: last run" in out


def test_server_indexes_in_the_background_and_can_be_switched_off(tmp_path: Path) -> None:
    on = _project(tmp_path / "on", {"index": {"pollMs": 0}})
    off = _project(tmp_path / "off", {"index": {"enabled": False}})

    async def main(app: App) -> IndexState | None:
        async with walkers_lifespan(app)(None) as state:
            index = state["index"]
            if index is None:
                return None
            for _ in range(500):
                if index.state.phase == "ready":
                    break
                await asyncio.sleep(0.02)
            return index.state

    try:
        state = asyncio.run(main(on))
        assert state is not None and state.phase == "ready" and state.stored == 3
        assert _live_paths(on) == {"src/retry.py", "README.md", ".gitignore"}
        assert any("last run" in line for line in status_lines(on.store, on.root, on.config))
        assert asyncio.run(main(off)) is None
        assert _live_paths(off) == set()
    finally:
        on.close()
        off.close()


def test_the_watcher_reindexes_an_edit_quickly(tmp_path: Path) -> None:
    app = _project(tmp_path, {"index": {"pollMs": 0}})  # no polling: only the watcher
    target = app.root / "src" / "retry.py"

    async def main() -> float:
        async with walkers_lifespan(app)(None) as state:
            index = state["index"]
            for _ in range(500):
                if index.state.phase == "ready":
                    break
                await asyncio.sleep(0.02)
            assert index.state.watcher == "watchfiles"
            await asyncio.sleep(0.2)  # the watcher is up
            started = time.monotonic()
            target.write_text("def watched_edit_symbol():\n    return 1\n")
            while not app.store.search("watched_edit_symbol"):
                assert time.monotonic() - started < 10
                await asyncio.sleep(0.02)
            return time.monotonic() - started

    try:
        took = asyncio.run(main())
        assert took < 5  # typically well under a second
    finally:
        app.close()


def test_index_yields_to_tool_calls_but_is_not_starved(tmp_path: Path) -> None:
    """Calls back to back (a call always just ended): each write waits its longest quiet
    wait, and the workers pause before each file, yet the run completes."""
    from ctx_tree_mcp.engines.files import indexer

    app = _project(tmp_path)
    for i in range(70):  # above the worker pool's threshold: 2 batches of writes
        (app.root / "src" / f"m{i}.py").write_text(f"def f_{i}():\n    return {i}\n")
    try:
        started = time.monotonic()
        state = index_project(
            app.store, app.root, app.policy, app.config, workers=2, idle_for=lambda: 0.0
        )
        took = time.monotonic() - started
        assert state.stored == 73 and state.phase == "ready"
        assert took >= 2 * indexer.QUIET_MAX_WAIT_S  # it waited before both writes
    finally:
        app.close()


def test_beyond_the_cap_the_index_keeps_what_was_read_and_the_most_referenced(
    tmp_path: Path,
) -> None:
    """maxFiles 4 over 14 files: the file the agent read (deep, referenced by none) and the
    three most imported modules are indexed; before, the 4 shallowest paths were."""
    from ctx_tree_mcp.tools.registry import run_tool

    app = _project(tmp_path, {"index": {"maxFiles": 4}})
    root = app.root
    (root / "lib" / "deep" / "er").mkdir(parents=True)
    (root / "lib" / "deep" / "er" / "notes.py").write_text("def read_by_the_agent():\n    pass\n")
    (root / "lib" / "core.py").write_text("def core():\n    pass\n")
    (root / "lib" / "deep" / "helpers.py").write_text("def helper():\n    pass\n")
    (root / "lib" / "pkg").mkdir()
    (root / "lib" / "pkg" / "__init__.py").write_text("def pkg_init():\n    pass\n")
    for i in range(5):  # core imported 5 times, pkg 3 times, helpers twice
        body = "from lib import core\n" + ("import pkg\n" if i < 3 else "")
        body += "from lib.deep.helpers import helper\n" if i < 2 else ""
        (root / "lib" / f"user{i}.py").write_text(body + f"x = {i}\n")
    try:
        asyncio.run(run_tool(app, "ctx_tree_read", {"path": "lib/deep/er/notes.py"}))
        state = index_project(app.store, app.root, app.policy, app.config)
        assert state.capped and state.listed == 4
        assert _live_paths(app) == {
            "lib/deep/er/notes.py",  # what the agent touched
            "lib/core.py",
            "lib/pkg/__init__.py",
            "lib/deep/helpers.py",
        }
        # an edit of a kept file is picked up; the ranks are computed once per state
        (root / "lib" / "core.py").write_text("def core_edited():\n    pass\n")
        again = index_project(app.store, app.root, app.policy, app.config, state=state)
        assert again.stored == 1 and app.store.search("core_edited")
    finally:
        app.close()


def test_a_tool_call_sets_the_clock_the_index_workers_pause_by(tmp_path: Path):
    """While a tool call runs the shared clock reads inf (the workers pause before their next
    file), and after it the call's end: no thread of the server polls to tell them."""
    import math
    import multiprocessing
    import threading

    from ctx_tree_mcp.tools.registry import run_tool

    app = _project(tmp_path)
    try:
        clock = multiprocessing.get_context("spawn").Value("d", 0.0, lock=False)
        app.calls.shared = clock
        seen: list[float] = []
        call = threading.Thread(
            target=lambda: asyncio.run(run_tool(app, "ctx_tree_bash", {"command": "sleep 0.6"}))
        )
        call.start()
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            if app.calls.busy():
                seen.append(clock.value)
            time.sleep(0.01)
        call.join(30)
        assert seen == [math.inf]
        assert clock.value == app.calls.last_end and clock.value <= time.monotonic()
    finally:
        app.close()


def test_a_worker_pauses_while_a_call_runs_and_a_quiet_spell_after(monkeypatch):
    import math
    import multiprocessing

    from ctx_tree_mcp.engines.files import index_pool as indexer

    clock = multiprocessing.get_context("spawn").Value("d", 0.0, lock=False)
    monkeypatch.setattr(indexer, "_calls_until", clock)

    def paused() -> float:
        t = time.monotonic()
        indexer._pause_for_calls()
        return time.monotonic() - t

    assert paused() < indexer.QUIET_S  # no call for long: no pause
    clock.value = math.inf  # a call runs: at most WORKER_MAX_PAUSE_S, so the index goes on
    assert indexer.WORKER_MAX_PAUSE_S <= paused() < indexer.WORKER_MAX_PAUSE_S + 1.0
    clock.value = time.monotonic()  # a call just ended: the quiet spell
    assert indexer.QUIET_S * 0.9 <= paused() < indexer.WORKER_MAX_PAUSE_S + 1.0


def test_a_file_that_becomes_a_directory_is_gone(tmp_path: Path) -> None:
    app = _project(tmp_path)
    try:
        (app.root / "docs").write_text("The flamingoparagraph of the old docs file.\n")
        index_project(app.store, app.root, app.policy, app.config, workers=1)
        assert app.store.search("flamingoparagraph")
        (app.root / "docs").unlink()
        (app.root / "docs").mkdir()
        (app.root / "docs" / "guide.md").write_text("# Guide\n\nA heronparagraph now.\n")
        state = index_project(app.store, app.root, app.policy, app.config, workers=1)
        assert (state.stored, state.gone) == (1, 1)
        assert not app.store.search("flamingoparagraph")
        assert app.store.search("heronparagraph")
    finally:
        app.close()


def test_cli_search_without_a_server_drops_what_left_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctx_tree_mcp.cli.main import main

    app = _project(tmp_path)
    root = app.root
    app.close()
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(root)
    (root / "src" / "extra.py").write_text(
        "def pelican_deleted_function():\n    return 1\n\n\ndef kept_function():\n    return 2\n"
    )
    (root / "src" / "whole.py").write_text("def cormorant_whole_file():\n    return 3\n")
    main(["index"])
    main(["search", "pelican_deleted_function"])
    assert "src/extra.py" in capsys.readouterr().out
    later = time.time_ns() + 5_000_000
    (root / "src" / "extra.py").write_text("def kept_function():\n    return 2\n")
    os.utime(root / "src" / "extra.py", ns=(later, later))
    (root / "src" / "whole.py").unlink()
    main(["search", "pelican_deleted_function"])
    assert "def pelican_deleted_function" not in capsys.readouterr().out
    main(["search", "cormorant_whole_file"])
    assert "src/whole.py" not in capsys.readouterr().out
    main(["search", "kept_function"])  # the file's new version answers
    assert "src/extra.py" in capsys.readouterr().out


def _git(*args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "protocol.file.allow=always",
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            *args,
        ],
        check=True,
        capture_output=True,
    )


def test_files_of_an_initialised_submodule_are_indexed_and_an_empty_one_is_named(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "pkg" / "vendored.py").write_text("def albatross_in_submodule():\n    return 1\n")
    (lib / ".gitignore").write_text("*.tmp\n")
    (lib / "pkg" / "scratch.tmp").write_text("albatross ignored\n")
    _git("init", "-q", str(lib))
    _git("-C", str(lib), "add", ".")
    _git("-C", str(lib), "commit", "-qm", "lib")
    app = _project(tmp_path)
    try:
        _git("init", "-q", str(app.root))
        _git("-C", str(app.root), "submodule", "add", "-q", str(lib), "third_party/lib")
        _git("-C", str(app.root), "submodule", "add", "-q", str(lib), "third_party/empty")
        _git("-C", str(app.root), "commit", "-qm", "subs")
        _git("-C", str(app.root), "submodule", "deinit", "-q", "-f", "third_party/empty")
        state = index_project(app.store, app.root, app.policy, app.config, workers=1)
        assert "third_party/lib/pkg/vendored.py" in _live_paths(app)
        assert not any(p.endswith("scratch.tmp") for p in _live_paths(app))  # its .gitignore
        assert app.store.search("albatross_in_submodule")
        assert state.submodules_empty == ["third_party/empty"]
        from ctx_tree_mcp.engines.files.indexer import summary

        assert "1 submodule not checked out (third_party/empty)" in summary(state)
    finally:
        app.close()


def test_a_file_that_stalls_its_worker_is_skipped_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose read never ends (a FIFO that took a listed file's place) costs the run
    index.fileTimeoutMs: its worker is replaced, the rest is stored, the file is named and
    not tried again until it changes."""
    from ctx_tree_mcp.engines.files import indexer

    app = _project(tmp_path, {"index": {"fileTimeoutMs": 2500}})
    for i in range(70):
        (app.root / "src" / f"m{i:02d}.py").write_text(f"def f_{i}():\n    return {i}\n")
    os.mkfifo(app.root / "src" / "stuck.py")
    real = indexer.list_files

    def with_the_fifo(*args, **kw):
        listing = real(*args, **kw)
        return indexer.Listing([*listing.files, ("src/stuck.py", 1, 1)], False, 0, [])

    monkeypatch.setattr(indexer, "list_files", with_the_fifo)
    try:
        started = time.monotonic()
        state = index_project(app.store, app.root, app.policy, app.config, workers=2)
        assert time.monotonic() - started < 60
        assert state.phase == "ready" and state.stored == 73 and "src/stuck.py" in state.slow
        assert "src/stuck.py" in indexer.summary(state)
        again = index_project(app.store, app.root, app.policy, app.config, workers=2)
        assert again.skipped >= 2 and "src/stuck.py" in again.slow  # not opened again
        # what is not indexed, and why, is said where a missing file would mislead
        from ctx_tree_mcp.tools.read import read
        from ctx_tree_mcp.tools.search import search

        said = "not indexed: 1 over index.fileTimeoutMs not indexed (src/stuck.py)"
        assert said in read(app, "src", budget_tokens=300)
        assert said in search(app, "nothing_is_named_so")
    finally:
        app.close()


def test_a_search_while_the_index_runs_says_how_far_it_is(tmp_path: Path) -> None:
    from ctx_tree_mcp.engines.files import indexer
    from ctx_tree_mcp.tools.search import search

    app = _project(tmp_path)
    seen: list[str] = []
    try:
        for i in range(120):
            (app.root / "src" / f"m{i:03d}.py").write_text(f"def f_{i}():\n    return {i}\n")

        def look(state: IndexState) -> None:
            if state.phase == "indexing" and not seen:
                seen.append(search(app, "nothing_is_named_so"))

        index_project(app.store, app.root, app.policy, app.config, workers=1, progress=look)
        assert "the project index is running: 0 of 124 files" in seen[0]
        assert indexer.not_indexed(app.store) == ""  # done, nothing left out
    finally:
        app.close()


def test_past_the_cap_source_goes_before_docs_and_vendored_or_fixture_files(
    tmp_path: Path,
) -> None:
    app = _project(tmp_path, {"index": {"maxFiles": 3}})
    root = app.root
    for rel in ("vendor/lib.py", "tests/fixtures/data.py", "web/app.min.js", "src/a.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    try:
        listing = list_files(root, app.policy, app.config)
        assert listing.capped
        assert [f[0] for f in listing.files] == ["src/a.py", "src/retry.py", ".gitignore"]
        app.config.data["index"]["maxFiles"] = 100
        order = [f[0] for f in list_files(root, app.policy, app.config).files]
        # uncapped, the same order: what is most useful is stored first
        assert order[:2] == ["src/a.py", "src/retry.py"]
        assert set(order[-4:-1]) == {"vendor/lib.py", "tests/fixtures/data.py", "web/app.min.js"}
        assert order[-1] == "logo.png"  # named like a binary: last
    finally:
        app.close()
