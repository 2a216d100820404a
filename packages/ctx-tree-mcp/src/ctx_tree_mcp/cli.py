"""``ctx-tree``: the human CLI. Same verbs as the MCP tools, over the same handlers.

    ctx-tree read PATH [--symbol S | --lines A:B | --query Q] [--budget N]
    ctx-tree grep PATTERN [PATH] [--glob G] [-i] [-F] [-C N] [--budget N]
    ctx-tree search QUERY [--limit N] [--kind K]
    ctx-tree get NODE_ID [--offset N]
    ctx-tree note TEXT [--title T]
    ctx-tree compose SEED [SEED...] [--query Q] [--depth D] [--budget N]
    ctx-tree neighbors NODE_ID [--depth D] | path-to-root NODE_ID | recent [--kind K]
    ctx-tree walk [filter|staleness|pruner|all] | stats | demo [PATH] | serve

Exit status: 0 on success, 2 for bad input (the message names the argument), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from . import __version__
from .app import App, project_root
from .errors import ToolInputError


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    names = [
        "ctx-tree-mcp",
        "ctx-tree-schema",
        "ctx-tree-store",
        "ctx-tree-chunk",
        "ctx-tree-compose",
        "ctx-tree-walkers",
    ]
    parts = []
    for name in names:
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} (not installed)")
    return "ctx-tree " + __version__ + "\n" + "\n".join("  " + p for p in parts)


def _lines(value: str) -> tuple[int, int | None]:
    start, _, end = value.partition(":")
    try:
        return int(start), int(end) if end else None
    except ValueError:
        raise argparse.ArgumentTypeError("expected START:END, e.g. 40:80 (END optional)") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-tree",
        description="Local-first context store for coding agents: budgeted reads and greps, stored in full.",
        epilog="Project root: --root, else $CLAUDE_PROJECT_DIR, else the cwd. Store: $CTX_TREE_HOME (default ~/.ctx-tree).",
    )
    parser.add_argument("--version", action="version", version=_versions())
    parser.add_argument(
        "--root", help="project root (default: $CLAUDE_PROJECT_DIR or the current directory)"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "read", help="read a file by symbol, line range or query, within a token budget"
    )
    p.add_argument("path")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--symbol", "-s")
    group.add_argument("--lines", "-l", type=_lines, metavar="START:END")
    group.add_argument("--query", "-q")
    p.add_argument(
        "--budget", "-b", type=int, default=2000, help="max tokens returned (default 2000)"
    )

    p = sub.add_parser(
        "grep", help="ripgrep the project; full output stored, a budgeted slice shown"
    )
    p.add_argument("pattern")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--glob", "-g")
    p.add_argument("--ignore-case", "-i", action="store_true")
    p.add_argument("--fixed-strings", "-F", action="store_true")
    p.add_argument("--context", "-C", type=int, default=0)
    p.add_argument("--budget", "-b", type=int, default=2000)

    p = sub.add_parser("search", help="keyword search (BM25) over everything stored")
    p.add_argument("query")
    p.add_argument("--limit", "-n", type=int, default=10)
    p.add_argument("--kind", action="append", help="node kind filter (repeatable)")

    p = sub.add_parser("get", help="page through a stored node")
    p.add_argument("node_id")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--budget", "-b", type=int, default=2000)

    p = sub.add_parser("note", help="store a note")
    p.add_argument("content")
    p.add_argument("--title")
    p.add_argument("--parent")

    p = sub.add_parser("compose", help="pack the context around seed nodes into a budget")
    p.add_argument("seeds", nargs="+")
    p.add_argument("--query", "-q")
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--budget", "-b", type=int, default=4000)
    p.add_argument("--include-stale", action="store_true")

    p = sub.add_parser("neighbors", help="nodes linked to a node")
    p.add_argument("node_id")
    p.add_argument("--depth", type=int, default=1)
    p.add_argument("--edge-kind", action="append")

    p = sub.add_parser("path-to-root", help="the spine from a node to its root")
    p.add_argument("node_id")

    p = sub.add_parser("recent", help="newest stored nodes")
    p.add_argument("--since", type=int, help="epoch ms")
    p.add_argument("--kind")
    p.add_argument("--limit", "-n", type=int, default=20)

    p = sub.add_parser("walk", help="run the walkers once (for cron and tests)")
    p.add_argument(
        "walker", nargs="?", default="all", choices=["filter", "staleness", "pruner", "all"]
    )

    sub.add_parser(
        "stats", help="node counts by kind and status, store size, tokens served vs stored"
    )

    p = sub.add_parser("demo", help="read, grep and search a real tree and show the tokens saved")
    p.add_argument(
        "path", nargs="?", default=".", help="tree to demo on (default: the current directory)"
    )
    p.add_argument(
        "--files", type=int, default=4, help="how many of the largest source files to read"
    )
    p.add_argument(
        "--keep", action="store_true", help="use the real store instead of a temporary one"
    )

    sub.add_parser("serve", help="run the MCP server on stdio (same as ctx-tree-mcp)")
    return parser


def run(args: argparse.Namespace) -> str:
    """Execute a parsed command (except serve); returns the text to print."""
    if args.command == "demo":
        from .demo import demo

        return demo(args.path, files=args.files, root=args.root, keep=args.keep)
    root = project_root(args.root)
    if not root.is_dir():
        raise ToolInputError(
            "--root", f"{root} is not a directory; give the project's root directory"
        )
    app = App(root, session="cli")
    try:
        return _dispatch(app, args)
    finally:
        app.close()


def _dispatch(app: App, args: argparse.Namespace) -> str:
    from .tools import compose, get, graph, grep, note, read, search

    c = args.command
    if c == "read":
        start, end = args.lines if args.lines else (None, None)
        return read.read(
            app,
            args.path,
            symbol=args.symbol,
            start_line=start,
            end_line=end,
            query=args.query,
            budget_tokens=args.budget,
        )
    if c == "grep":
        return asyncio.run(
            grep.grep(
                app,
                args.pattern,
                args.path,
                glob=args.glob,
                ignore_case=args.ignore_case,
                fixed_strings=args.fixed_strings,
                context_lines=args.context,
                budget_tokens=args.budget,
            )
        )
    if c == "search":
        filters: dict[str, Any] | None = {"kind": args.kind} if args.kind else None
        return search.search(app, args.query, limit=args.limit, filters=filters)
    if c == "get":
        return get.get(app, args.node_id, offset=args.offset, budget_tokens=args.budget)
    if c == "note":
        return note.note(app, args.content, title=args.title, parent_id=args.parent)
    if c == "compose":
        return compose.compose(
            app,
            args.seeds,
            query=args.query,
            budget_tokens=args.budget,
            depth=args.depth,
            include_stale=args.include_stale,
        )
    if c == "neighbors":
        return graph.neighbors(app, args.node_id, depth=args.depth, edge_kinds=args.edge_kind)
    if c == "path-to-root":
        return graph.path_to_root(app, args.node_id)
    if c == "recent":
        return graph.recent(app, since=args.since, kind=args.kind, limit=args.limit)
    if c == "walk":
        from .maintenance import walk

        return walk(app, args.walker)
    if c == "stats":
        from .maintenance import stats

        return stats(app)
    raise AssertionError(c)


def main(argv: list[str] | None = None) -> None:
    """Console script ``ctx-tree``."""
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        from .server import serve

        raise SystemExit(serve(args.root))
    from ctx_tree_schema import ConfigError

    from .errors import ToolInputError

    try:
        text = run(args)
    except ToolInputError as exc:
        print(f"ctx-tree: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except ConfigError as exc:
        print(f"ctx-tree: configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
