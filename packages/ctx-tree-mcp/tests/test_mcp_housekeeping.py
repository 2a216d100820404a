"""``ctx-tree stores``, ``forget`` and ``doctor``: real stores, real processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.doctor import doctor
from ctx_tree_mcp.cli.maintenance import forget, stores
from ctx_tree_mcp.tools.note import note
from ctx_tree_store import Store, list_stores

CLI = "from ctx_tree_mcp.cli.main import main; main()"


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CTX_TREE_HOME": str(home)}
    env.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], capture_output=True, text=True, env=env, cwd=cwd
    )


def _project(tmp_path: Path, name: str, notes: int) -> App:
    root = tmp_path / name
    root.mkdir()
    app = App(root, home=tmp_path / "home")
    for i in range(notes):
        note(app, f"{name} note {i}")
    return app


def test_stores_lists_every_store_with_project_size_nodes_and_last_use(tmp_path: Path):
    a, b = _project(tmp_path, "alpha", 1), _project(tmp_path, "beta", 3)
    a.close()
    b.close()
    junk = tmp_path / "home" / "0000000000000000"
    junk.mkdir()
    (junk / "store.db").write_bytes(b"not a database at all" * 100)
    text = stores(tmp_path / "home", current=a.store_file)
    alpha = next(line for line in text.splitlines() if str(a.root) in line)
    beta = next(line for line in text.splitlines() if str(b.root) in line)
    assert alpha.startswith("* ") and " 2 " in alpha  # session + note
    assert " 4 " in beta and not beta.startswith("*")
    assert "0000000000000000" in text and "not a database" in text
    assert "3 stores" in text and "* this project" in text and "(gone)" not in text
    shutil.rmtree(b.root)  # a project deleted or moved: its store is an orphan
    text = stores(tmp_path / "home", current=a.store_file)
    orphan = next(line for line in text.splitlines() if str(b.root) in line)
    assert orphan.split()[0:2] == [str(b.root), "(gone)"] and "ctx-tree forget STORE" in text
    assert "removed" in forget(b.store_file.parent, tmp_path / "home")
    # Listing wrote nothing: no WAL or shared-memory file appeared next to closed stores.
    assert not list((tmp_path / "home").glob("*/store.db-*"))


def test_forget_removes_the_store_of_a_project_and_its_0_1_0_leftovers(tmp_path: Path):
    app = _project(tmp_path, "alpha", 2)
    app.close()
    other = _project(tmp_path, "beta", 1)
    other.close()
    text = forget(app.root, tmp_path / "home")
    assert text.startswith(f"forgot {app.root}: removed {app.store_file.parent} (3 nodes,")
    assert not app.store_file.parent.exists()
    assert [s.project for s in list_stores(tmp_path / "home")] == [str(other.root)]
    assert "nothing to forget" in forget(app.root, tmp_path / "home")


def test_forget_while_a_process_uses_the_store_then_that_process_starts_a_new_one(
    tmp_path: Path,
):
    app = _project(tmp_path, "alpha", 1)
    done = cli(tmp_path / "home", "forget", "--yes", str(app.root))
    assert done.returncode == 0 and done.stdout.startswith("forgot "), done.stderr
    app.stores.check()  # what the server does before its next call
    assert note(app, "after forget").startswith("note saved")
    with Store.open(app.store_file) as store:
        assert [n.content for n in store.recent(kind="note")] == ["after forget"]
    app.close()


def test_doctor_passes_on_this_machine_and_names_each_failure_with_its_fix(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    home = tmp_path / "home"
    report, status = doctor(root, home, startup=False)
    for name in ("python", "rg", "grammars", "store", "config"):
        assert f"ok    {name}" in report
    store = next(x for x in report.splitlines() if x.startswith("ok    store"))
    assert "nothing stored yet for this project: `ctx-tree index` stores" in store, store
    assert status == (1 if "FAIL" in report else 0)
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "config.json").write_text('{"capture": {"maxBytes": "big"}}')
    app = App(root, home=home)
    app.store.close()
    os.chmod(app.store_file.parent, 0o755)
    report, status = doctor(root, home, startup=False)
    assert status == 1 and "FAIL  config" in report and "FAIL  store" in report
    config_line = report.splitlines().index(
        next(x for x in report.splitlines() if "FAIL  config" in x)
    )
    assert "fix: " in report.splitlines()[config_line + 1]
    assert report.rstrip().endswith("checks failed")


def test_doctor_fails_on_a_misspelt_config_key_and_names_it(tmp_path: Path):
    """A misspelt key is a setting silently not applied: doctor names it, not "valid"."""
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True)
    (root / ".ctx-tree" / "config.json").write_text('{"captur": {"bash": false}}')
    report, status = doctor(root, tmp_path / "home", startup=False)
    line = next(x for x in report.splitlines() if " config " in x)
    assert status == 1 and line.startswith("FAIL") and "captur" in line, report


def test_doctor_checks_the_plugins_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "ctx-tree"}')
    (plugin / "hooks").mkdir()
    hook = plugin / "hooks" / "capture.py"
    hooks = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Read",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/capture.py",
                        }
                    ],
                }
            ]
        }
    }
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(plugin))
    report, status = doctor(tmp_path, tmp_path / "home", startup=False)
    assert "FAIL  hooks" in report and "capture.py" in report and status == 1
    hook.write_text("print()\n")
    report, _ = doctor(tmp_path, tmp_path / "home", startup=False)
    assert "ok    hooks      1 hook commands" in report
    (plugin / "hooks" / "hooks.json").write_text("{not json")
    report, _ = doctor(tmp_path, tmp_path / "home", startup=False)
    assert "FAIL  hooks" in report and "not a valid hooks file" in report


def test_the_doctor_verb_measures_start_up_and_sets_the_exit_status(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    done = cli(tmp_path / "home", "doctor", "--root", str(root))
    line = next(x for x in done.stdout.splitlines() if "start-up" in x)
    assert " ms from spawn to initialize answered" in line
    assert done.returncode == (1 if "FAIL" in done.stdout else 0)
    assert not (tmp_path / "home").exists() or not list((tmp_path / "home").glob("*/store.db"))


def test_doctor_checks_the_embedding_provider_and_the_store_s_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A provider that does not answer, or a store of another model's vectors, is a FAIL with
    its fix; a working one is named with its vectors' length; none configured, no line."""
    from ctx_tree_mcp.cli.reembed import reembed
    from mcp_fakes import closed_port_url, fake_server

    for name in (
        "CTX_TREE_EMBEDDING_PROVIDER",
        "CTX_TREE_EMBEDDING_URL",
        "CTX_TREE_EMBEDDING_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".ctx-tree").mkdir(parents=True)
    config = root / ".ctx-tree" / "config.json"

    def configure(url: str, model: str) -> None:
        block = {"provider": "openai", "baseUrl": url}
        config.write_text(json.dumps({"embeddingModel": model, "embedding": block}))

    report, _ = doctor(root, home, startup=False)
    assert " embedding " not in report
    with fake_server() as fake:
        configure(f"{fake.url}/v1", "model-a")
        report, status = doctor(root, home, startup=False)
        assert "ok    embedding  openai model-a at" in report and "dimensions in" in report
        app = App(root, home=home)
        try:
            note(app, "vectors of model a")
            reembed(app, progress=False)
        finally:
            app.close()
        configure(f"{fake.url}/v1", "model-b")
        report, status = doctor(root, home, startup=False)
        line = next(x for x in report.splitlines() if " embedding " in x)
        assert status == 1 and line.startswith("FAIL") and "'model-a'" in line, report
        assert "fix: ctx-tree reembed" in report
    configure(closed_port_url(), "model-a")
    report, status = doctor(root, home, startup=False)
    line = next(x for x in report.splitlines() if " embedding " in x)
    assert status == 1 and line.startswith("FAIL") and "unreachable" in line, report
    assert "fix: start the provider" in report


def _spool_event(home: Path, root: Path, text: str, name: str = "00000000000000000001-1.json"):
    """One event written as the plugin's hook writes it (its own program, real payload)."""
    hook = Path(__file__).resolve().parents[3] / "plugin" / "hooks" / "ctx_tree_hook.py"
    payload = {"session_id": "s1", "cwd": str(root), "prompt": text}
    env = {**os.environ, "CTX_TREE_HOME": str(home), "CLAUDE_PROJECT_DIR": str(root)}
    subprocess.run(
        [sys.executable, "-I", "-S", str(hook), "prompt"],
        input=json.dumps(payload).encode(),
        env=env,
        check=True,
        timeout=30,
    )


def test_forget_removes_the_spool_so_waiting_captures_do_not_come_back(tmp_path: Path):
    from ctx_tree_mcp.app import spool_dir
    from ctx_tree_mcp.capture.ingest import ingest

    home = tmp_path / "home"
    app = _project(tmp_path, "gamma", 1)
    _spool_event(home, app.root, "a prompt still waiting in the spool zebra")
    assert (spool_dir(home, app.root) / "root").read_text() == str(app.root.resolve())
    app.close()
    text = forget(app.root, home)
    assert "removed its capture spool" in text and "1 events not yet ingested" in text
    assert not spool_dir(home, app.root).exists()
    again = App(app.root, home=home)
    try:
        report = ingest(again)
        assert report.stored == 0
        assert again.store.search("zebra") == []
    finally:
        again.close()


def test_stores_lists_spools_and_a_server_sweeps_orphaned_and_old_ones(tmp_path: Path):
    from ctx_tree_mcp.app import spool_dir
    from ctx_tree_mcp.capture.spool import list_spools, sweep_spools

    home = tmp_path / "home"
    live_root, gone_root, old_root = (tmp_path / n for n in ("live", "gone", "old"))
    for r in (live_root, gone_root, old_root):
        r.mkdir()
        _spool_event(home, r, f"prompt of {r.name}")
    shutil.rmtree(gone_root)  # a deleted worktree
    text = stores(home)
    assert "capture spools" in text
    assert f"{gone_root.resolve()} (gone)" in text and str(live_root.resolve()) in text
    now = __import__("time").time()
    day = 86400
    two_days_ago = now - 2 * day
    for r in (gone_root,):
        for p in spool_dir(home, r).rglob("*"):
            os.utime(p, (two_days_ago, two_days_ago))
        os.utime(spool_dir(home, r), (two_days_ago, two_days_ago))
    eight_days_ago = now - 8 * day
    for p in [*spool_dir(home, old_root).rglob("*"), spool_dir(home, old_root)]:
        os.utime(p, (eight_days_ago, eight_days_ago))
    swept = sweep_spools(home, now=now)
    assert {s.path for s in swept} == {spool_dir(home, gone_root), spool_dir(home, old_root)}
    assert [s.path for s in list_spools(home)] == [spool_dir(home, live_root)]


def test_forget_asks_on_a_terminal_and_refuses_without_yes_otherwise(tmp_path: Path):
    import pty

    app = _project(tmp_path, "delta", 1)
    app.close()
    home = tmp_path / "home"
    refused = cli(home, "forget", str(app.root))
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    assert app.store_file.exists()
    # on a terminal: asked, and a "n" keeps everything
    env = {**os.environ, "CTX_TREE_HOME": str(home)}
    env.pop("CLAUDE_PROJECT_DIR", None)
    for answer, kept in ((b"n\n", True), (b"y\n", False)):
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(sys.executable, [sys.executable, "-c", CLI, "forget", str(app.root)], env)
        out = b""
        os.write(fd, answer)
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.waitpid(pid, 0)
        assert b"for good? [y/N]" in out
        assert app.store_file.exists() is kept, out


def test_doctor_names_a_config_that_is_not_json_once_with_the_files_fix(tmp_path: Path):
    """A file that does not parse is reported by the config check alone, with the fix for a
    file (not for a key); the checks that need the config skip instead of failing unnamed."""
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True)
    home = tmp_path / "home"
    App(root, home=home).store.close()  # a store: the index check runs
    (root / ".ctx-tree" / "config.json").write_text("{bad")
    report, status = doctor(root, home, startup=False)
    failed = [x for x in report.splitlines() if x.startswith("FAIL")]
    assert status == 1 and len(failed) == 1 and "FAIL  config" in failed[0], report
    assert "invalid JSON at line 1" in failed[0] and "<lambda>" not in report
    assert "fix: fix the file (one JSON object, UTF-8) or delete it" in report
