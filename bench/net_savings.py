"""Net token savings on the public evaluation, after paying for the tool surface.

Reads the driver's per-call rows (``bench/results/eval-public.details.jsonl``), sums what
native Read/Grep would have returned minus what ctx-tree returned for the read and grep
scenarios, and charges the cost of ``tools/list`` (fetched from the real server) once per
session — the driver runs one server per corpus package.

    uv run python bench/net_savings.py [--details bench/results/eval-public.details.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

SERVER = str(Path(sys.executable).parent / "ctx-tree-mcp")


async def tools_list_tokens() -> int:
    from mcp import Client, StdioServerParameters

    with tempfile.TemporaryDirectory() as home:
        env = {"CTX_TREE_HOME": home, "PATH": os.environ.get("PATH", ""), "HOME": home}
        async with Client(
            StdioServerParameters(command=SERVER, cwd=home, env=env), mode="legacy"
        ) as c:
            tools = (await c.list_tools()).tools
    text = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    return -(-len(text) // 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--details", type=Path, default=Path("bench/results/eval-public.details.jsonl")
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.details.read_text().splitlines() if line.strip()]
    surface = asyncio.run(tools_list_tokens())
    saved: dict[str, float] = defaultdict(float)
    for r in rows:
        if r["scenario"] in ("S1", "S2", "S4") and r.get("tokens") is not None:
            saved[r["scenario"]] += r["baseline_tokens"] - r["tokens"]
    sessions = len({r["corpus"] for r in rows})
    gross = sum(saved.values())
    cost = surface * sessions
    print(
        f"tools/list: {surface} tokens, charged once per session x {sessions} sessions = {cost:,.0f}"
    )
    for scen, value in sorted(saved.items()):
        print(f"saved by {scen}: {value:,.0f} tokens")
    print(
        f"gross saved {gross:,.0f}; net after the tool surface {gross - cost:,.0f} tokens "
        f"({(gross - cost) / sessions:,.0f} per session)"
    )


if __name__ == "__main__":
    main()
