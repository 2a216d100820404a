"""Several processes on one store: no lost rows, no "database is locked"; SIGKILL mid-batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ctx_tree_store import Store

WRITER = r"""
import json, sys
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store
path, name, total, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
errors = []
store = Store.open(path)
for start in range(0, total, batch):
    nodes = [NewNode(NodeKind.NOTE, f"{name} note {i} shared words about sockets and files")
             for i in range(start, start + batch)]
    try:
        store.insert(nodes)
    except Exception as exc:
        errors.append(repr(exc))
store.close()
print(json.dumps({"errors": errors}))
"""

SEARCHER = r"""
import json, os, sys, time
from ctx_tree_store import Store
path, stop = sys.argv[1], sys.argv[2]
errors, searches, seen = [], 0, 0
store = Store.open(path)
while not os.path.exists(stop):
    try:
        seen = max(seen, len(store.search("sockets files", limit=50)))
        store.recent(limit=5)
        searches += 1
    except Exception as exc:
        errors.append(repr(exc))
store.close()
print(json.dumps({"errors": errors, "searches": searches, "seen": seen}))
"""


def spawn(script: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_four_writers_and_two_searchers_lose_nothing(tmp_path: Path):
    db = tmp_path / "home" / "proj" / "store.db"  # fresh: the processes race to create it too
    stop = tmp_path / "stop"
    searchers = [spawn(SEARCHER, db, stop) for _ in range(2)]
    writers = [spawn(WRITER, db, f"w{i}", 2000, 50) for i in range(4)]
    results = []
    for proc in writers:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    stop.touch()
    for proc in searchers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert [r["errors"] for r in results] == [[]] * 6
    assert all(r["searches"] > 0 for r in results[4:])
    with Store.open(db) as store:
        rows = store.con.execute("SELECT content FROM nodes").fetchall()
        assert len(rows) == 8000
        for i in range(4):
            got = {int(c.split()[2]) for (c,) in rows if c.startswith(f"w{i} ")}
            assert got == set(range(2000))
        assert store.integrity() == ("ok", True)
        assert len(store.search("sockets", limit=200)) == 200


CRASHER = r"""
import sys
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode, Store
store = Store.open(sys.argv[1])
batch = int(sys.argv[2])
body = "payload words for the index " * 200
n = 0
while True:
    store.insert([NewNode(NodeKind.TOOL_OUTPUT, f"{n} {i} {body}") for i in range(batch)])
    n += 1
    print(n, flush=True)
"""


def test_sigkill_mid_batch_leaves_a_consistent_store(tmp_path: Path):
    db = tmp_path / "home" / "proj" / "store.db"
    batch = 50
    for round_ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", CRASHER, str(db), str(batch)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        committed = 0
        deadline = time.monotonic() + 120
        while committed < 3 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            committed = int(line)
        time.sleep(0.05 * (round_ + 1))  # land somewhere inside a later batch
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with Store.open(db) as store:
            assert store.integrity() == ("ok", True)
            count = store.con.execute("SELECT count(*) FROM nodes").get
            assert count % batch == 0 and count >= 3 * batch * (round_ + 1)
            indexed = store.con.execute("SELECT count(*) FROM fts WHERE fts MATCH 'payload'").get
            assert indexed == count
