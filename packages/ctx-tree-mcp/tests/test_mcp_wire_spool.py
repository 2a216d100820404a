"""The spool protocol's rules both sides follow (``ctx_tree_mcp.wire.spool``): the project root
and its key, the settings a hook reads, the writer and the sweep."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import project_root as server_root
from ctx_tree_mcp.wire import spool

PLUGIN = Path(__file__).resolve().parents[3] / "plugin"


def test_the_root_is_the_hosts_variable_then_the_given_cwd_then_this_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    (tmp_path / "link").symlink_to(a)
    monkeypatch.chdir(c)
    env = {"GEMINI_PROJECT_DIR": str(tmp_path / "link")}
    assert spool.project_root(cwd=b, environ=env) == str(a)  # real path
    assert spool.project_root(cwd=b, environ={}) == str(b)
    assert spool.project_root(environ={}) == str(c)
    assert spool.project_root(explicit="~", environ=env) == os.path.realpath(
        os.path.expanduser("~")
    )


def test_a_plugin_directory_is_never_the_root(tmp_path: Path) -> None:
    """A host that starts hooks or servers in the plugin directory: $PWD names the project,
    else the parent process's directory (here: this test's), never the plugin itself."""
    project = tmp_path / "project"
    project.mkdir()
    assert spool.is_plugin_dir(PLUGIN) and not spool.is_plugin_dir(project)
    assert spool.project_root(cwd=PLUGIN, environ={"PWD": str(project)}) == str(project)
    parent = os.path.realpath("/proc/%d/cwd" % os.getppid())
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc here")
    assert spool.project_root(cwd=PLUGIN, environ={"PWD": str(PLUGIN)}) == parent


def test_the_server_and_the_hook_find_the_same_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app.project_root is the wire's rule: for every case the hook's root (from a payload's
    cwd) is the server's (from its own cwd)."""
    project = tmp_path / "project"
    project.mkdir()
    for variable in spool.PROJECT_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for where, pwd in ((project, None), (PLUGIN, str(project))):
        monkeypatch.chdir(where)
        if pwd:
            monkeypatch.setenv("PWD", pwd)
        assert str(server_root()) == spool.project_root(cwd=where) == str(project.resolve())
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    assert str(server_root()) == spool.project_root(cwd=tmp_path) == str(project.resolve())


def test_root_keys_follow_links_and_bytes(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    key = spool.root_key(tmp_path / "real")
    assert key == spool.root_key(str(tmp_path / "link")) and len(key) == 16
    odd = os.fsdecode(bytes(tmp_path) + b"/caf\xe9")
    assert len(spool.root_key(odd)) == 16  # a name that is not UTF-8 has a key too


def test_settings_merge_per_section_and_ignore_what_is_malformed(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "root"
    (root / ".ctx-tree").mkdir(parents=True)
    home.mkdir()
    (home / "config.json").write_text(
        json.dumps({"capture": {"bash": False}, "steer": {"readLines": 9}})
    )
    (root / ".ctx-tree" / "config.json").write_text(
        json.dumps({"capture": {"maxBytes": 10, "web": "no", "grep": False}})
    )
    got = spool.settings(str(home), str(root))
    assert got["capture"]["bash"] is True  # the project's section replaces the global one whole
    assert got["capture"]["grep"] is False
    assert got["capture"]["maxBytes"] == 100000  # under its minimum: absent
    assert got["capture"]["web"] is True  # wrong type: absent
    assert got["steer"]["readLines"] == 9
    assert spool.settings(str(home), str(root)) is got  # read once per process and project
    (root / ".ctx-tree" / "config.json").write_text("{not json")
    spool._SETTINGS.clear()
    assert spool.settings(str(home), str(root))["capture"]["bash"] is False


def test_an_event_is_written_whole_and_private(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "root"
    root.mkdir()
    base = spool.spool_dir(home, root)
    path = spool.write_event(base, root, b'{"v": 1}')
    assert Path(path).read_bytes() == b'{"v": 1}' and os.listdir(Path(base) / "tmp") == []
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert all(stat.S_IMODE(os.stat(p).st_mode) == 0o700 for p in (home, home / "spool", base))
    assert (Path(base) / "root").read_text() == str(root)
    assert spool.waiting(base) == [Path(path).name]


def test_the_sweep_takes_only_what_waited_too_long(tmp_path: Path) -> None:
    base = tmp_path / "spool" / "k"
    for sub in ("new", "tmp"):
        (base / sub).mkdir(parents=True)
    old, fresh = time.time() - spool.SPOOL_MAX_AGE_S - 60, time.time()
    files = {
        base / "new" / "1.json": old,
        base / "new" / "2.json": fresh,
        base / "tmp" / "3.json": time.time() - spool.TMP_MAX_AGE_S - 60,
        base / "refused-s1": old,
        base / "state.json": old,
    }
    for path, when in files.items():
        path.write_text("")
        os.utime(path, (when, when))
    assert spool.sweep(base) == 3
    assert sorted(p.name for p in base.rglob("*") if p.is_file()) == ["2.json", "state.json"]


def test_a_refused_mark_is_taken_once(tmp_path: Path) -> None:
    base = tmp_path / "home" / "spool" / "k"
    spool.mark_refused(base, "se/ss:1")
    assert [p.name for p in base.iterdir()] == ["refused-sess1"]
    assert stat.S_IMODE(base.stat().st_mode) == 0o700
    assert spool.take_refused(base, "se/ss:1") and not spool.take_refused(base, "se/ss:1")
