"""Store faults seen through the tools and the CLI: a full disk, a store deleted while the
process runs, a store that cannot be written. Each call fails alone with a clear message or
answers without storing; no traceback, no "internal error", no success for a lost write.

The full and read-only file systems are real: a tmpfs of a few MB and a read-only bind mount,
each in a private mount namespace of a child process (``mounts.py``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, fault_message
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search
from ctx_tree_store import Store, StoreFull, StoreGone, StoreUnwritable
from mounts import needs_mounts, private_mount
from stores import damage, damaged_store

CLI = "from ctx_tree_mcp.cli.main import main; main()"


def _notes(store_file: Path) -> list[str]:
    with Store.open(store_file) as store:
        rows = store.con.execute(
            "SELECT n.content FROM nodes n JOIN nodes s ON s.id = n.parent_id "
            "WHERE n.kind = 'note' AND s.kind = 'session' ORDER BY n.id"
        ).fetchall()
    return [r[0] for r in rows]


# -- disk full --------------------------------------------------------------------------------


def test_sqlite_full_on_the_first_capture_fails_that_call_alone(app: App):
    """SQLite's own SQLITE_FULL (a page cap on the connection) during the first capture."""
    # one 8 KB page of room: any capture of a file or a long note needs more
    pages = app.store.con.execute("PRAGMA page_count").get
    app.store.con.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(StoreFull) as info:
        read(app, "src/argparse_copy.py", symbol="ArgumentParser.parse_args")
    assert fault_message(info.value).startswith("disk full: ")
    with pytest.raises(StoreFull):
        read(app, "src/decoder.py")
    app.store.con.execute("PRAGMA max_page_count = 4294967294")
    assert "def parse_args" in read(app, "src/argparse_copy.py", symbol="ArgumentParser.parse_args")
    assert note(app, "kept once space came back").startswith("note saved")
    assert _notes(app.store_file) == ["kept once space came back"]


def test_the_server_answers_disk_full_as_a_tool_error_in_words(app: App):
    import asyncio

    from ctx_tree_mcp.serve.server import answer

    pages = app.store.con.execute("PRAGMA page_count").get
    app.store.con.execute(f"PRAGMA max_page_count = {pages + 1}")
    text, is_error = asyncio.run(
        answer(app, "ctx_tree_note", {"content": "a fact worth keeping " * 900})
    )
    assert is_error and text.startswith("disk full: ") and "internal error" not in text
    app.store.con.execute("PRAGMA max_page_count = 4294967294")
    text, is_error = asyncio.run(answer(app, "ctx_tree_note", {"content": "works again"}))
    assert not is_error and text.startswith("note saved")
    # a read on the full disk answers from memory, as on a read-only store
    pages = app.store.con.execute("PRAGMA page_count").get
    app.store.con.execute(f"PRAGMA max_page_count = {pages + 1}")
    text, is_error = asyncio.run(
        answer(app, "ctx_tree_read", {"path": "src/argparse_copy.py", "symbol": "ArgumentParser"})
    )
    assert not is_error and "class ArgumentParser" in text
    assert "nothing is being stored" in text and "disk is full" in text


def test_a_store_locked_past_the_busy_timeout_is_a_tool_error_in_words(app: App):
    """Another process holds the write lock longer than the busy timeout: the call fails
    alone, in words (not an internal error), and the next one works once the lock is gone."""
    import asyncio

    import apsw
    from ctx_tree_mcp.serve.server import answer

    assert note(app, "before the lock").startswith("note saved")
    app.store.con.set_busy_timeout(50)
    other = apsw.Connection(str(app.store_file))
    other.execute("BEGIN EXCLUSIVE")
    try:
        text, is_error = asyncio.run(answer(app, "ctx_tree_note", {"content": "while locked"}))
        assert is_error and "internal error" not in text
        assert "locked by another process" in text and "nothing of this call was saved" in text
        text, is_error = asyncio.run(
            answer(app, "ctx_tree_read", {"path": "src/decoder.py", "budget_tokens": 200})
        )
        assert is_error and "locked by another process" in text
    finally:
        other.execute("ROLLBACK")
        other.close()
    text, is_error = asyncio.run(answer(app, "ctx_tree_note", {"content": "after the lock"}))
    assert not is_error and text.startswith("note saved")
    assert _notes(app.store_file) == ["before the lock", "after the lock"]


FULL_DISK = r"""
import json, os, subprocess, sys
from pathlib import Path
from ctx_tree_mcp.app import App, fault_message
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_mcp.tools.read import read

root, home, cli = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
out = {}

def fill():
    fd = os.open(home / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError:
        pass
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    os.close(fd)

def step(name, fn):
    try:
        out[name] = ["ok", fn()]
    except Exception as exc:
        out[name] = ["error", type(exc).__name__, fault_message(exc) or str(exc)]

def run_cli(*args):
    env = dict(os.environ, CTX_TREE_HOME=str(home))
    done = subprocess.run([sys.executable, "-c", cli, "--root", str(root), *args],
                          capture_output=True, text=True, env=env)
    return [done.returncode, done.stdout, done.stderr]

app = App(root, home=home)
app.store
fill()
step("read_full", lambda: read(app, "src/argparse_copy.py", symbol="ArgumentParser.parse_args"))
step("read_full_again", lambda: read(app, "src/argparse_copy.py", symbol="HelpFormatter"))
out["cli_full"] = run_cli("read", "src/argparse_copy.py", "--symbol", "ArgumentParser")
os.unlink(home / "filler")
step("read_freed", lambda: read(app, "src/argparse_copy.py", symbol="ArgumentParser.parse_args"))
step("note_freed", lambda: note(app, "saved after space was freed"))
app.close()
out["cli_freed"] = run_cli("note", "a CLI note after space was freed")
print(json.dumps(out))
"""


@needs_mounts
def test_a_real_full_disk_fails_each_call_alone_and_recovers(root: Path, tmp_path: Path):
    home = tmp_path / "small-disk"
    home.mkdir()
    done = private_mount(
        'mount -t tmpfs -o size=3m tmpfs "$1" && exec "$2" -c "$3" "$4" "$1" "$5"',
        str(home),
        sys.executable,
        FULL_DISK,
        str(root),
        CLI,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for name in ("read_full", "read_full_again"):
        assert out[name][:2] == ["error", "StoreFull"], out[name]
        assert out[name][2].startswith("disk full: ") and "free space" in out[name][2]
    code, stdout, stderr = out["cli_full"]
    # the CLI's read answers from memory on the full disk, saying nothing is stored
    assert code == 0 and "class ArgumentParser" in stdout and "Traceback" not in stderr
    assert "nothing is being stored" in stdout and "disk is full" in stdout
    assert out["read_freed"][0] == "ok" and "def parse_args" in out["read_freed"][1]
    assert out["note_freed"][0] == "ok" and out["note_freed"][1].startswith("note saved")
    assert out["cli_freed"][0] == 0 and out["cli_freed"][1].startswith("note saved")


# -- store deleted while running ---------------------------------------------------------------


def test_a_store_deleted_between_calls_is_recreated_and_the_note_persists(app: App):
    assert note(app, "before the delete").startswith("note saved")
    shutil.rmtree(app.store_file.parent)
    app.stores.check()  # what the server does before every call
    assert note(app, "after the delete").startswith("note saved")
    assert _notes(app.store_file) == ["after the delete"]
    assert "class JSONDecoder" in read(app, "src/decoder.py", symbol="JSONDecoder")


def test_a_store_deleted_during_a_call_never_reports_the_note_saved(app: App):
    note(app, "first")
    app.store_file.unlink()
    with pytest.raises(StoreGone) as info:
        note(app, "second")  # the delete happened after this call's check
    assert "nothing was written" in fault_message(info.value)
    app.stores.check()
    assert note(app, "third").startswith("note saved")
    assert _notes(app.store_file) == ["third"]


def test_closing_after_the_store_was_deleted_loses_only_statistics(app: App):
    assert "class JSONDecoder" in read(app, "src/decoder.py", symbol="JSONDecoder")
    app.count("ctx_tree_read", reads=1, tokens_served=10)
    shutil.rmtree(app.store_file.parent)
    app.close()  # the counters could not be written: logged, not raised
    assert not app.stores.opened


# -- read-only store ---------------------------------------------------------------------------

READ_ONLY = r"""
import asyncio, json, os, subprocess, sys
from pathlib import Path
from ctx_tree_mcp.app import App, fault_message
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search

root, home, cli = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
out = {}

def step(name, fn):
    try:
        out[name] = ["ok", app.stores.answer(fn())]
    except Exception as exc:
        out[name] = ["error", type(exc).__name__, fault_message(exc) or str(exc)]

def run_cli(*args):
    env = dict(os.environ, CTX_TREE_HOME=str(home))
    done = subprocess.run([sys.executable, "-c", cli, "--root", str(root), *args],
                          capture_output=True, text=True, env=env)
    return [done.returncode, done.stdout, done.stderr]

app = App(root, home=home)
step("read", lambda: read(app, "src/decoder.py", symbol="JSONDecoder.decode"))
step("grep", lambda: asyncio.run(grep(app, "def raw_decode", "src")))
step("bash", lambda: bash(app, "echo hello from bash"))
step("search", lambda: search(app, "mounted read-only finding"))
step("note", lambda: note(app, "cannot be kept"))
app.close()
out["cli_read"] = run_cli("read", "src/decoder.py", "--symbol", "JSONDecoder")
out["cli_note"] = run_cli("note", "cannot be kept either")
out["cli_stats"] = run_cli("stats")
print(json.dumps(out))
"""


@needs_mounts
def test_a_read_only_store_still_answers_reads_greps_bash_and_searches(root: Path, tmp_path: Path):
    home = tmp_path / "home"
    writer = App(root, home=home)
    note(writer, "a mounted read-only finding worth keeping")
    writer.close()
    before = {p.name: p.read_bytes() for p in writer.store_file.parent.iterdir()}
    done = private_mount(
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3" "$4" "$1" "$5"',
        str(home),
        sys.executable,
        READ_ONLY,
        str(root),
        CLI,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    line = "ctx-tree: nothing is being stored: "
    for name, expected in (
        ("read", "def decode"),
        ("grep", "def raw_decode"),
        ("bash", "hello from bash"),
    ):
        assert out[name][0] == "ok", out[name]
        assert expected in out[name][1]
        assert [x for x in out[name][1].splitlines() if x.startswith(line)] == [
            out[name][1].splitlines()[-1]
        ]
        assert "Read-only file system" in out[name][1]
    assert out["search"][0] == "ok" and "mounted read-only finding" in out["search"][1]
    assert out["note"][:2] == ["error", "StoreUnwritable"]
    assert "the note was not saved" in out["note"][2]
    code, stdout, stderr = out["cli_read"]
    assert code == 0 and "class JSONDecoder" in stdout and line in stdout and stderr == ""
    code, stdout, stderr = out["cli_note"]
    assert code == 1 and "Traceback" not in stderr and "was not saved" in stderr
    assert out["cli_stats"][0] == 0 and "Traceback" not in out["cli_stats"][2]
    after = {p.name: p.read_bytes() for p in writer.store_file.parent.iterdir()}
    assert after == before


GONE_THEN_READ_ONLY = r"""
import json, shutil, subprocess, sys
from pathlib import Path
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_mcp.tools.read import read

root, home = Path(sys.argv[1]), Path(sys.argv[2])
app = App(root, home=home)
note(app, "before")
shutil.rmtree(app.store_file.parent)
for args in (["--bind", str(home), str(home)], ["-o", "remount,bind,ro", str(home)]):
    subprocess.run(["mount", *args], check=True)
app.stores.check()
print(json.dumps(app.stores.answer(read(app, "src/decoder.py", symbol="JSONDecoder"))))
"""


@needs_mounts
def test_a_deleted_store_that_cannot_be_made_again_falls_back_to_not_storing(
    root: Path, tmp_path: Path
):
    home = tmp_path / "home"
    home.mkdir()
    done = private_mount(
        'exec "$1" -c "$2" "$3" "$4"', sys.executable, GONE_THEN_READ_ONLY, str(root), str(home)
    )
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)
    assert "class JSONDecoder" in text
    assert text.splitlines()[-1].startswith("ctx-tree: nothing is being stored: ")
    assert "there is no store to search" in text


WRITABLE_AGAIN = r"""
import json, subprocess, sys
from pathlib import Path
import ctx_tree_mcp.store_handle as store_handle
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.note import note
from ctx_tree_store import StoreUnwritable

root, home = Path(sys.argv[1]), Path(sys.argv[2])
store_handle.STORE_RETRY_S = 0  # the test does not wait for the retry interval
app = App(root, home=home)
out = {}
try:
    note(app, "while read-only")
except StoreUnwritable as exc:
    out["during"] = str(exc)
subprocess.run(["mount", "-o", "remount,bind,rw", str(home)], check=True)
app.stores.check()
out["after"] = app.stores.answer(note(app, "once writable again"))
app.close()
print(json.dumps(out))
"""


@needs_mounts
def test_a_store_writable_again_is_used_again_by_the_same_process(root: Path, tmp_path: Path):
    """Nothing is stored while the store cannot be written; once it can (a remount, fixed
    permissions) the same server stores again instead of staying in memory for its life."""
    home = tmp_path / "home"
    writer = App(root, home=home)
    note(writer, "before")
    writer.close()
    done = private_mount(
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3" "$4" "$1"',
        str(home),
        sys.executable,
        WRITABLE_AGAIN,
        str(root),
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "the note was not saved" in out["during"]
    assert out["after"].startswith("note saved") and "nothing is being stored" not in out["after"]
    assert _notes(writer.store_file) == ["before", "once writable again"]


def test_a_damaged_store_is_answered_with_the_fix_not_an_internal_error(
    root: Path, tmp_path: Path, monkeypatch, capsys
):
    """A store file overwritten with garbage: reads still answer, saying nothing is stored and
    how to fix it (``ctx-tree forget``); a note fails in those words, over MCP and on the CLI,
    instead of 'internal error'; spooled captures wait; once the file is deleted the same
    process stores again."""
    import asyncio

    from ctx_tree_mcp.capture.ingest import ingest
    from ctx_tree_mcp.cli.main import main
    from ctx_tree_mcp.serve.server import answer

    home = tmp_path / "home"
    path = damaged_store(root, home)
    damaged = App(root, home=home)
    try:
        text, is_error = asyncio.run(answer(damaged, "ctx_tree_note", {"content": "x"}))
        assert is_error and "internal error" not in text and "ctx-tree forget" in text, text
        text, is_error = asyncio.run(
            answer(damaged, "ctx_tree_read", {"path": "src/decoder.py", "symbol": "JSONDecoder"})
        )
        assert not is_error and "class JSONDecoder" in text
        last = text.splitlines()[-1]
        assert last.startswith("ctx-tree: nothing is being stored: ") and "damaged" in last
        assert "ctx-tree forget" in last
        assert ingest(damaged).summary() == (
            "the store cannot be written: spooled events wait for it"
        )
        path.unlink()  # what ctx-tree forget does
        text, is_error = asyncio.run(answer(damaged, "ctx_tree_note", {"content": "after"}))
        assert not is_error and "nothing is being stored" not in text, text
    finally:
        damaged.close()
    again = App(root, home=home)
    try:
        assert "after" in search(again, "after")
    finally:
        again.close()
    damage(path)
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    with pytest.raises(SystemExit) as code:
        main(["--root", str(root), "note", "x"])
    err = capsys.readouterr().err
    assert code.value.code == 1 and "ctx-tree forget" in err and "internal error" not in err
    main(["--root", str(root), "stats"])
    assert "nothing is being stored" in capsys.readouterr().out


def test_a_home_that_is_a_file_still_answers_reads_and_greps(
    root: Path, tmp_path: Path, monkeypatch, capsys
):
    """``CTX_TREE_HOME`` naming a file (no directory can be made under it): reads and greps
    answer, saying nothing is stored, as for a read-only home; before, the config load said
    'cannot read: Not a directory; fix or remove that key' and the store an internal error."""
    from ctx_tree_mcp.cli.main import main

    home = tmp_path / "home-file"
    home.write_text("not a directory\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    main(["--root", str(root), "read", "src/decoder.py", "--lines", "1:3"])
    main(["--root", str(root), "grep", r"def raw_decode\b"])
    out = capsys.readouterr().out
    assert "\n1\t" in "\n" + out and "def raw_decode" in out, out
    assert "ctx-tree: nothing is being stored: " in out and "Not a directory" in out, out
    assert home.read_text() == "not a directory\n"
    with pytest.raises(StoreUnwritable):
        Store.open(home / "project" / "store.db")
