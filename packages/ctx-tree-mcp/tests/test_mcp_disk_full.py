"""A full disk (a real one: the process's file size limit makes every write past the store's
current size fail with EFBIG, which the store reports as StoreFull): reads and greps answer
from memory as on a read-only store, captures wait in the spool."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, os, resource, signal, sys
    from pathlib import Path
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.tools.registry import run_tool
    from ctx_tree_mcp.capture.ingest import ingest

    root, home = Path(sys.argv[1]), Path(sys.argv[2])
    app = App(root, home=home)
    # the store exists with one file in it; then the disk is full for anything new
    asyncio.run(run_tool(app, "ctx_tree_read", {"path": "small.py"}))
    db = app.store_file
    limit = max(os.path.getsize(p) for p in (db, Path(f"{db}-wal")) if p.exists())
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    out = {}
    out["read"] = asyncio.run(run_tool(app, "ctx_tree_read", {"path": "big.py"}))
    out["grep"] = asyncio.run(run_tool(app, "ctx_tree_grep", {"pattern": "def function_7"}))
    out["ingest"] = ingest(app).summary()
    print(json.dumps(out))
    """
)


def test_reads_and_greps_answer_from_memory_on_a_full_disk(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "small.py").write_text("def small():\n    return 1\n")
    home = tmp_path / "home"
    (root / "big.py").write_text(
        "".join(f"def function_{i}(x):\n    return x * {i}  # {'pad ' * 20}\n" for i in range(3000))
    )
    from ctx_tree_mcp.app import spool_dir
    from ctx_tree_mcp.capture import spool

    base = spool_dir(home, root)
    (base / "new").mkdir(parents=True)
    # larger than the free room an 8 KB-page store keeps in its pages and WAL
    text = "kept? " + " ".join(f"word{i}" for i in range(20000))
    event = {"v": 1, "kind": "prompt", "session_id": "s", "text": text, "prompt_id": "p"}
    (base / "new" / "0001-1.json").write_text(json.dumps(event))
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), str(home)],
        env={"CTX_TREE_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    why = f"{out}\n{run.stderr}"
    # before: "disk full: the store ... could not be written" instead of the file
    assert "## outline (3000 symbols" in out["read"], why  # the outline of the file
    assert "def function_0(x):" in out["read"], why  # and its first lines
    assert "nothing is being stored" in out["read"] and "disk is full" in out["read"], why
    assert "function_7" in out["grep"], why
    # the waiting capture is kept for later, not dropped
    assert spool.waiting(base) == ["0001-1.json"], why
    assert run.stderr.count("Traceback") == 0, why
