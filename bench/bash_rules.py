"""What the host's rules and sandbox add to a ``ctx_tree_bash`` call.

    uv run python bench/bash_rules.py [--rounds 15]

Times ``ctx_tree_bash(command="true")`` in process on a temporary store, interleaved, medians:

- ``none``: no host settings files;
- ``rules``: a project ``.claude/settings.json`` with 40 ``Bash(...)`` deny/ask rules, none of
  which matches (every call reads the settings files and checks every rule);
- ``sandbox``: the same with ``"sandbox": {"enabled": true}`` (the command runs under
  ``srt``: needs ``$CTX_TREE_SRT`` or ``srt`` on PATH, and bubblewrap; skipped otherwise);
- ``shell``: ``$SHELL -c true`` alone (``subprocess.run``), the floor.

Run it from another checkout's environment (``/other/.venv/bin/python bench/bash_rules.py``)
to compare that checkout's handler on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.tools.bash import bash

    tmp = Path(tempfile.mkdtemp(prefix="ctx-bench-"))
    os.environ["CLAUDE_CONFIG_DIR"] = str(tmp / "claude-user")
    rules = [f"Bash(tool{i}:*)" for i in range(20)]
    layouts = {"none": None, "rules": {"permissions": {"deny": rules, "ask": rules}}}
    layouts["sandbox"] = {**layouts["rules"], "sandbox": {"enabled": True}}
    try:
        from ctx_tree_mcp.engines.shell.sandbox import find_runtime

        if find_runtime()[0] is None:
            del layouts["sandbox"]
    except ImportError:  # a checkout without the sandbox
        del layouts["sandbox"]
    apps = {}
    for name, settings in layouts.items():
        root = tmp / name
        (root / ".claude").mkdir(parents=True)
        if settings is not None:
            (root / ".claude" / "settings.json").write_text(json.dumps(settings))
        apps[name] = App(root, home=tmp / "home")
        bash(apps[name], "true")  # warm-up: store, imports
    times: dict[str, list[float]] = {name: [] for name in [*layouts, "shell"]}
    shell = os.environ.get("SHELL") or "/bin/sh"
    for _ in range(args.rounds):
        for name, app in apps.items():
            start = time.perf_counter()
            answer = bash(app, "true")
            times[name].append(time.perf_counter() - start)
            assert answer == "", answer  # `true` succeeded: nothing printed, nothing added
        start = time.perf_counter()
        subprocess.run([shell, "-c", "true"], check=True)
        times["shell"].append(time.perf_counter() - start)
    for app in apps.values():
        app.close()
    for name, values in times.items():
        print(f"{name:8} p50 {statistics.median(values) * 1000:7.1f} ms"
              f"   min {min(values) * 1000:7.1f}   max {max(values) * 1000:7.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
