"""Cold start: spawn ``ctx-tree-mcp`` → ``initialize`` answered, median of N fresh processes.

Raw JSON-RPC over pipes (no client import cost on our side), one warm-up run first, an empty
store each time. Baseline in the same run: ``python -c pass`` and ``python -c "import mcp"``.

    uv run python bench/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def spawn_to_initialize(cwd: str) -> float:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CTX_TREE_HOME": home}
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [SERVER],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - t0
        assert b'"result"' in line, line
        proc.stdin.close()
        proc.wait(timeout=10)
        return elapsed


def command(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cwd = str(Path(__file__).resolve().parent.parent)
    spawn_to_initialize(cwd)  # warm-up (page cache, .pyc)
    ours = [spawn_to_initialize(cwd) for _ in range(args.runs)]
    bare = [command([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
    mcp_import = [
        command([sys.executable, "-c", "import mcp.server.mcpserver"]) for _ in range(args.runs)
    ]
    print(
        f"ctx-tree-mcp spawn→initialize: median {statistics.median(ours) * 1000:.0f} ms  (runs: {', '.join(f'{x * 1000:.0f}' for x in ours)})"
    )
    print(f"baseline python -c pass:       median {statistics.median(bare) * 1000:.0f} ms")
    print(
        f"baseline import mcp.server.mcpserver: median {statistics.median(mcp_import) * 1000:.0f} ms"
    )
    print(
        f"ratio ctx-tree / bare mcp import: {statistics.median(ours) / statistics.median(mcp_import):.2f}"
    )


if __name__ == "__main__":
    main()
