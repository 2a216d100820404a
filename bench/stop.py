"""Stop time: SIGINT → process exit of a real ``ctx-tree-mcp``, p50 / p95 over interleaved runs.

A host closes its MCP server with a signal and a short grace (Claude Code: SIGINT, SIGTERM
100 ms later, SIGKILL 400 ms after that). The project is a copy of this repository's
``packages/`` tree, indexed once by a first server (so the store has its realistic size);
each run then starts a server on it, makes one ``ctx_tree_read``, waits ``--after`` seconds
(the index re-check and the walkers run meanwhile) and sends SIGINT alone. ``--server`` adds
another checkout's ``ctx-tree-mcp`` (its ``.venv/bin``), alternated with this one's.

    uv run python bench/stop.py [--runs 20] [--after 1.5] [--server OTHER/.venv/bin/ctx-tree-mcp]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


class Server:
    def __init__(self, argv: list[str], root: Path, home: Path) -> None:
        env = {**os.environ, "CTX_TREE_HOME": str(home), "HOME": str(home)}
        env.pop("CLAUDE_PROJECT_DIR", None)
        self.proc = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(home / "server.log", "ab"),  # noqa: SIM115
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def sigint(self) -> tuple[float, int]:
        """SIGINT, then wait for the exit (SIGKILL after 10 s): ``(ms, returncode)``."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        ms = (time.monotonic() - start) * 1000
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.proc.stdout.close()
        self.proc.stdin.close()
        return ms, self.proc.returncode


def index_done(home: Path) -> bool:
    from ctx_tree_mcp.engines.files.indexer import last_run
    from ctx_tree_store import Store

    stores = list(home.glob("**/store.db"))
    if not stores:
        return False
    try:
        with Store.open_readonly(stores[0]) as store:
            return last_run(store) is not None
    except Exception:
        return False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--after", type=float, default=1.5, help="seconds between the read and SIGINT")
    ap.add_argument("--server", action="append", default=[], help="another ctx-tree-mcp")
    args = ap.parse_args()
    servers = {"this": [str(BIN / "ctx-tree-mcp")]}
    for i, other in enumerate(args.server):
        servers[f"other{i + 1} ({other})"] = [other]
    tmp = Path(tempfile.mkdtemp(prefix="ctx-tree-stop-"))
    try:
        root = tmp / "proj"
        shutil.copytree(ROOT / "packages", root, ignore=shutil.ignore_patterns("__pycache__"))
        files = sum(1 for p in root.rglob("*") if p.is_file())
        homes = {name: tmp / f"home-{i}" for i, name in enumerate(servers)}
        for name, argv in servers.items():  # the first server indexes the project
            homes[name].mkdir()
            first = Server(argv, root, homes[name])
            end = time.monotonic() + 300
            while not index_done(homes[name]) and time.monotonic() < end:
                time.sleep(0.5)
            assert first.proc.stdin is not None
            first.proc.stdin.close()
            first.proc.wait(timeout=30)
            first.proc.stdout.close()  # type: ignore[union-attr]
        size = sum(p.stat().st_size for p in homes["this"].glob("**/store.db*"))
        times: dict[str, list[float]] = {n: [] for n in servers}
        codes: dict[str, list[int]] = {n: [] for n in servers}
        for _ in range(args.runs):
            for name, argv in servers.items():
                server = Server(argv, root, homes[name])
                read = {"name": "ctx_tree_read", "arguments": {"path": "ctx-tree-mcp/README.md"}}
                server.request("tools/call", read)
                time.sleep(args.after)
                ms, code = server.sigint()
                times[name].append(ms)
                codes[name].append(code)
        load = os.getloadavg()[0]
        print(f"{files} files, store {size / 1e6:.1f} MB, load {load:.1f}, {args.runs} runs")
        for name, values in times.items():
            values.sort()
            p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
            late = sum(v > 100 for v in values)
            print(
                f"{name}: p50 {statistics.median(values):.0f} ms, p95 {p95:.0f} ms, "
                f"max {values[-1]:.0f} ms, over 100 ms {late}/{len(values)}, "
                f"exit codes {sorted(set(codes[name]))}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
