"""Concurrent first reads: eight processes reading one new file leave exactly one live tree;
after an edit, exactly one newer tree (docs/data-model.md, "Cache behavior")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_store import Store

READER = r"""
import json, os, sys, time
from pathlib import Path
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.read import read
root, home, sync, me = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
app = App(root, home=home, session_key=f"reader-{me}")
app.store  # open (and migrate) before the race
answers = []
for round_ in ("1", "2"):
    (sync / f"ready-{round_}-{me}").touch()
    while not (sync / f"go-{round_}").exists():
        time.sleep(0.002)
    answers.append(read(app, "src/shapes.py", symbol="area"))
    (sync / f"done-{round_}-{me}").touch()
app.close()
print(json.dumps(answers))
"""

SOURCE = '''"""Shapes."""


def area(width: float, height: float) -> float:
    return width * height


def perimeter(width: float, height: float) -> float:
    return 2 * (width + height)


class Square:
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side**2
'''

READERS = 8


def _wait_for(sync: Path, prefix: str, count: int, procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 60
    while len(list(sync.glob(prefix + "*"))) < count:
        dead = [p for p in procs if p.poll() is not None and p.returncode != 0]
        assert not dead, dead[0].stderr.read() if dead[0].stderr else "reader died"
        assert time.monotonic() < deadline, f"readers never reached {prefix}"
        time.sleep(0.01)


def _trees(store: Store, uri: str) -> list[tuple[str, str, int]]:
    """(root id, status, live chunk count) of every stored root of ``uri``, oldest first."""
    rows = store.con.execute(
        "SELECT id, status FROM nodes WHERE source_uri = ? AND parent_id IS NULL ORDER BY id",
        (uri,),
    ).fetchall()
    return [
        (
            rid,
            status,
            store.con.execute(
                "SELECT count(*) FROM nodes WHERE parent_id = ? AND status = 'live'", (rid,)
            ).get,
        )
        for rid, status in rows
    ]


def test_eight_processes_reading_one_new_file_leave_one_live_tree(tmp_path: Path):
    root, home, sync = tmp_path / "proj", tmp_path / "home", tmp_path / "sync"
    (root / "src").mkdir(parents=True)
    sync.mkdir()
    source = root / "src" / "shapes.py"
    source.write_text(SOURCE)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(root), str(home), str(sync), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(READERS)
    ]
    try:
        _wait_for(sync, "ready-1-", READERS, procs)
        (sync / "go-1").touch()
        _wait_for(sync, "done-1-", READERS, procs)
        source.write_text(SOURCE.replace("width * height", "float(width) * float(height)"))
        _wait_for(sync, "ready-2-", READERS, procs)
        (sync / "go-2").touch()
        outputs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        first, second = json.loads(out)
        assert "return width * height" in first
        assert "float(width) * float(height)" in second

    app = App(root, home=home)
    try:
        trees = _trees(app.store, "file://" + str(source.resolve()))
        chunk_count = len(app.store.children(trees[0][0]))
        assert chunk_count >= 3
        # Exactly two versions were stored: the first superseded, the second live with all
        # of its chunks; nothing else for this file.
        assert [t[1] for t in trees] == ["superseded", "live"], trees
        assert trees[0][2] == 0 and trees[1][2] == chunk_count
        live_chunks = app.store.con.execute(
            "SELECT count(*) FROM nodes WHERE source_uri LIKE ? AND status = 'live'",
            ("file://" + str(source.resolve()) + "#%",),
        ).get
        assert live_chunks == chunk_count
        # Search shows each definition once.
        hits = app.store.search("perimeter", limit=20)
        assert len([h for h in hits if h.node.metadata.get("symbol") == "perimeter"]) == 1
        edges = app.store.con.execute(
            "SELECT src_id, dst_id FROM edges WHERE kind = 'supersedes'"
        ).fetchall()
        assert edges == [(trees[1][0], trees[0][0])]
    finally:
        app.close()
