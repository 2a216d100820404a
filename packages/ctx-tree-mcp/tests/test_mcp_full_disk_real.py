"""A real full disk (a tmpfs filled to its last byte, in a private mount namespace): every tool
that has something to answer answers it, from memory, saying nothing was stored; a command
runs once and its output and exit status are given; the first call after space is freed
stores again; ``doctor`` says the disk is full."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mounts import needs_mounts, private_mount

CLI = "from ctx_tree_mcp.cli.main import main; main()"

SCENARIO = r"""
import asyncio, json, os, subprocess, sys
from pathlib import Path

root, home, cli = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
fresh = home / "fresh"
out = {}

def fill():
    fd = os.open(home / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    for size in (1 << 16, 512, 1):
        try:
            while True:
                os.write(fd, b"\0" * size)
        except OSError:
            pass
    os.close(fd)

def run_cli(name, where, *args):
    env = dict(os.environ, CTX_TREE_HOME=str(where))
    done = subprocess.run([sys.executable, "-c", cli, "--root", str(root), *args],
                          capture_output=True, text=True, env=env, cwd=root)
    out[name] = [done.returncode, done.stdout, done.stderr]

# a store that exists before the disk fills, and a home where none was made yet
run_cli("setup", home, "note", "made before the disk filled")
fresh.mkdir()
fill()
once = "echo ran >> marker; seq 1 50000 | tail -1"
run_cli("bash_full", home, "bash", once)
run_cli("bash_fresh", fresh, "bash", "echo ran >> marker2; echo the answer; exit 3")
run_cli("read_fresh", fresh, "read", "src/decoder.py", "--symbol", "JSONDecoder.decode")
run_cli("grep_fresh", fresh, "grep", "def raw_decode", "src")
run_cli("doctor_full", home, "doctor", "--no-startup")
out["marker"] = (root / "marker").read_text()
out["marker2"] = (root / "marker2").read_text()

# one process (a server) across the fill and the free
from ctx_tree_mcp.app import App, fault_message
from ctx_tree_mcp.tools.registry import run_tool

app = App(root, home=home)

def call(name, tool, args):
    try:
        out[name] = ["ok", asyncio.run(run_tool(app, tool, args))]
    except Exception as exc:
        out[name] = ["error", type(exc).__name__, fault_message(exc) or str(exc)]

call("srv_read_full", "ctx_tree_read", {"path": "src/decoder.py", "symbol": "JSONDecoder"})
call("srv_bash_full", "ctx_tree_bash", {"command": "echo served while full"})
os.unlink(home / "filler")
call("srv_read_freed", "ctx_tree_read", {"path": "src/decoder.py", "symbol": "py_scanstring"})
fill()
call("srv_read_full_again", "ctx_tree_read", {"path": "src/argparse_copy.py", "symbol": "Action"})
os.unlink(home / "filler")
call("srv_note_freed", "ctx_tree_note", {"content": "saved the moment space came back"})
app.close()
run_cli("doctor_freed", home, "doctor", "--no-startup")
print(json.dumps(out))
"""

NOT_STORED = "nothing is being stored"


@needs_mounts
def test_a_full_disk_loses_no_answer_runs_a_command_once_and_recovers_at_once(
    root: Path, tmp_path: Path
) -> None:
    home = tmp_path / "small-disk"
    home.mkdir()
    done = private_mount(
        'mount -t tmpfs -o size=3m tmpfs "$1" && exec "$2" -c "$3" "$4" "$1" "$5"',
        str(home),
        sys.executable,
        SCENARIO,
        str(root),
        CLI,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["setup"][0] == 0, out["setup"]
    why = json.dumps(out, indent=1)
    # the command ran once; its output and its exit status are the answer, not "call again"
    code, stdout, stderr = out["bash_full"]
    assert code == 0 and "50000" in stdout and NOT_STORED in stdout, why
    assert "disk is full" in stdout and "call again" not in stdout + stderr, why
    assert out["marker"] == "ran\n", why
    code, stdout, stderr = out["bash_fresh"]
    assert code == 3 and "the answer" in stdout and NOT_STORED in stdout, why
    assert out["marker2"] == "ran\n", why
    # a store created on the full disk: reads and greps answer from memory
    code, stdout, stderr = out["read_fresh"]
    assert code == 0 and "def decode" in stdout and NOT_STORED in stdout, why
    assert "disk is full" in stdout and "Traceback" not in stderr, why
    code, stdout, stderr = out["grep_fresh"]
    assert code == 0 and "def raw_decode" in stdout and NOT_STORED in stdout, why
    # doctor fails on a full disk, and passes once it is freed
    code, stdout, _ = out["doctor_full"]
    assert "Error" not in stdout, why  # no exception names: each line says what is wrong
    store_line = next(line for line in stdout.splitlines() if " store " in line)
    assert code == 1 and store_line.startswith("FAIL") and "full" in store_line, why
    code, stdout, _ = out["doctor_freed"]
    store_line = next(line for line in stdout.splitlines() if " store " in line)
    assert store_line.startswith("ok"), why
    # one server process: answers while full; the first write after the free persists
    assert out["srv_read_full"][0] == "ok" and "class JSONDecoder" in out["srv_read_full"][1], why
    assert NOT_STORED in out["srv_read_full"][1], why
    assert out["srv_bash_full"][0] == "ok" and "served while full" in out["srv_bash_full"][1], why
    assert out["srv_read_full_again"][0] == "ok", why
    assert NOT_STORED in out["srv_read_full_again"][1], why
    assert out["srv_note_freed"][0] == "ok", why
    assert out["srv_note_freed"][1].startswith("note saved"), why
    assert NOT_STORED not in out["srv_note_freed"][1], why
    assert out["srv_read_freed"][0] == "ok" and NOT_STORED not in out["srv_read_freed"][1], why
