"""CLI-only commands: housekeeping verbs that are not MCP tools (``walk``, ``index``, ``reembed``, ``stats``,
``stores``, ``forget``, ``doctor``, ``demo``, ``serve``, ``inspect``). The tool verbs (``read``, ``grep`` …) come from the tool registry instead.

Add a command: write ``def _name(args) -> str`` (the text to print; raise
``ToolInputError(flag, message)`` for bad input, which exits 2 with that message) and, if it
takes arguments, ``def _name_args(parser)`` adding them with ``help=`` text that gives the
range and default; then append ``Command("name", "one-line help", _name, _name_args)`` to
:data:`COMMANDS`. ``open_app(args)`` gives the project's :class:`~ctx_tree_mcp.app.App`
(honouring ``--root``) and closes it after. Output is for people: CLI syntax in hints (see
``ctx_tree_mcp.answers.surface``; commands already run inside ``cli_surface``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctx_tree_mcp.errors import ToolInputError, number_flag

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App


@dataclass(frozen=True)
class Command:
    """One CLI verb: ``run(args)`` returns the text to print, or an exit status (an int)."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], str | int]
    arguments: Callable[[argparse.ArgumentParser], None] | None = None


@contextmanager
def open_app(args: argparse.Namespace, *, check_config: bool = True) -> Iterator[App]:
    """The :class:`App` for ``--root`` (else ``$CLAUDE_PROJECT_DIR``, else the cwd), closed after.

    With ``check_config`` (every verb but a diagnosis) the configuration is loaded first, so
    every verb reports a bad file the same way (``ConfigError``, exit 2), and unknown keys are
    reported as one line on stderr.

    Raises ``ToolInputError`` (``--root``) when the root is not a directory.
    """
    from ctx_tree_mcp.app import App, project_root

    root = project_root(getattr(args, "root", None))
    if not root.is_dir():
        raise ToolInputError(
            "--root", f"{root} is not a directory; give the project's root directory"
        )
    app = App(root, session_key="cli")
    if check_config:
        report_unknown_keys(app)
    try:
        yield app
    finally:
        app.close()


def no_store_yet(app: App) -> str | None:
    """The answer of a verb that only reads the store when the project has none yet (the
    verb then creates none); ``None`` when there is one."""
    if app.store_file.exists():
        return None
    return (
        f"no store yet for {app.root}: nothing has been stored for this project; "
        "`ctx-tree index` stores every tracked file now (the MCP server does it in the "
        "background when it starts), and ctx-tree read, grep, bash or note each start one"
    )


def report_unknown_keys(app: App) -> None:
    """Load ``app.config`` (raising ``ConfigError`` for a bad file) and print its unknown
    keys, if any, as one line on stderr."""
    import sys

    if note := app.config.unknown_summary():
        print(f"ctx-tree: {note}", file=sys.stderr)


def _walk(args: argparse.Namespace) -> str:
    from ctx_tree_mcp.cli.maintenance import walk

    with open_app(args) as app:
        return walk(app, args.walker)


def _walk_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "walker",
        nargs="?",
        default="all",
        choices=[
            "capture",
            "filter",
            "staleness",
            "pruner",
            "embedding",
            "dedupe",
            "summarizer",
            "all",
        ],
        help="which walker (default: all; capture stores what the plugin hooks spooled)",
    )


def _reembed(args: argparse.Namespace) -> str | int:
    import sys

    from ctx_tree_mcp.cli.reembed import ReembedFailed, reembed

    with open_app(args) as app:
        try:
            return reembed(app, args.batch, progress=sys.stderr.isatty())
        except ReembedFailed as exc:
            print(f"ctx-tree: {exc}", file=sys.stderr)
            return 1


def _reembed_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--batch",
        type=number_flag("--batch", 32, ">= 1"),
        help="texts per request, 1 or more (default: walkers.embeddingBatchSize, 32)",
    )


def _index(args: argparse.Namespace) -> str:
    import sys

    from ctx_tree_mcp.cli.maintenance import index

    with open_app(args) as app:
        return index(app, progress=sys.stderr.isatty())


def _stats(args: argparse.Namespace) -> str:
    from ctx_tree_mcp.cli.maintenance import stats

    with open_app(args) as app:
        return no_store_yet(app) or app.stores.answer(stats(app))


def _stores(args: argparse.Namespace) -> str:
    from ctx_tree_store import ctx_tree_home, store_path

    from ctx_tree_mcp.app import project_root
    from ctx_tree_mcp.cli.maintenance import stores

    home = ctx_tree_home()
    return stores(home, current=store_path(project_root(getattr(args, "root", None)), home))


def _forget(args: argparse.Namespace) -> str | int:
    """``ctx-tree forget``: on a terminal it asks first; without one it needs ``--yes``."""
    import sys
    from pathlib import Path

    from ctx_tree_store import ctx_tree_home

    from ctx_tree_mcp.app import project_root
    from ctx_tree_mcp.cli.maintenance import forget, forget_plan

    target = Path(args.path) if args.path else project_root(getattr(args, "root", None))
    if not args.yes:
        stores, spools = forget_plan(target, ctx_tree_home())
        if stores or spools:
            what = ", ".join([str(p.parent) for p in stores] + [str(p) for p in spools])
            if not sys.stdin.isatty():
                sys.stderr.write(
                    f"ctx-tree forget: not deleting {what} without confirmation: stdin is not a "
                    "terminal; pass --yes to delete\n"
                )
                return 2
            sys.stderr.write(f"delete {what} for good? [y/N] ")
            sys.stderr.flush()
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                sys.stderr.write("nothing deleted\n")
                return 1
    return forget(target)


def _forget_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        nargs="?",
        help="the project directory, or a store directory listed by `ctx-tree stores` "
        "(default: --root, else $CLAUDE_PROJECT_DIR, else the current directory)",
    )
    p.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="delete without asking (needed when stdin is not a terminal)",
    )


def _doctor(args: argparse.Namespace) -> str | int:
    import sys

    from ctx_tree_store import ctx_tree_home

    from ctx_tree_mcp.app import project_root
    from ctx_tree_mcp.cli.doctor import doctor

    if args.host:
        from ctx_tree_mcp.cli.install import status as host_status

        report, status = host_status(
            args.host, args.scope, project_root(getattr(args, "root", None))
        )
        sys.stdout.write(report)
        return status
    report, status = doctor(
        project_root(getattr(args, "root", None)), ctx_tree_home(), startup=not args.no_startup
    )
    sys.stdout.write(report)
    return status


def _doctor_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-startup",
        action="store_true",
        help="skip measuring the server's start-up time (about 2 s)",
    )
    p.add_argument(
        "--host",
        help="only check ctx-tree's entries in this agent host's config (ctx-tree install --help)",
    )
    p.add_argument("--scope", choices=("user", "project"), default="user", help="with --host")


def _install(args: argparse.Namespace) -> str:
    from ctx_tree_mcp.app import project_root
    from ctx_tree_mcp.cli.install import apply

    return apply(
        args.host,
        args.scope,
        project_root(getattr(args, "root", None)),
        install=args._command.name == "install",
        dry_run=args.dry_run,
    )


def _install_args(p: argparse.ArgumentParser) -> None:
    from ctx_tree_mcp.cli.install import HOSTS

    p.add_argument("host", metavar="HOST", help="one of: " + ", ".join(HOSTS))
    p.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="the user's config (default) or the project's (--root, else the cwd)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")


def _demo(args: argparse.Namespace) -> str:
    from ctx_tree_mcp.cli.demo import demo

    return demo(args.path, files=args.files, root=getattr(args, "root", None), keep=args.keep)


def _at_least_one(text: str) -> int:
    """An argparse type: an integer of 1 or more (argparse names the flag in its error)."""
    value = int(number_flag("--files", 4, ">= 1")(text))
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range; give 1 or more")
    return value


def _demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path", nargs="?", default=".", help="tree to demo on (default: the current directory)"
    )
    p.add_argument(
        "--files",
        type=_at_least_one,
        default=4,
        help="how many of the largest source files to read (1.., default 4)",
    )
    p.add_argument(
        "--keep", action="store_true", help="use the real store instead of a temporary one"
    )


def _serve(args: argparse.Namespace) -> int:
    from ctx_tree_mcp.serve.instant import serve_instant

    return serve_instant(getattr(args, "root", None))


def _inspect(args: argparse.Namespace) -> int:
    """Serve the read-only inspector until Ctrl-C (``docs/inspector.md``). Exit status 1 when
    the project has no store yet or it cannot be opened read-only."""
    import sys

    from ctx_tree_store import SchemaTooOld, SchemaVersionError

    from ctx_tree_mcp.app import App, project_root
    from ctx_tree_mcp.inspector import serve as serve_inspector

    root = project_root(args.path or getattr(args, "root", None))
    if not root.is_dir():
        raise ToolInputError("PATH", f"{root} is not a directory; give the project's root")
    if not 0 <= args.port <= 65535:
        raise ToolInputError("--port", f"{args.port} is out of range; use 0..65535")
    app = App(root, readonly=True)
    try:
        try:
            app.store  # open now: a missing store is said before any URL is printed
        except (FileNotFoundError, SchemaTooOld, SchemaVersionError) as exc:
            print(f"ctx-tree: {exc}", file=sys.stderr)
            return 1
        try:
            return serve_inspector(app, port=args.port, open_browser=not args.no_browser)
        except OSError as exc:
            raise ToolInputError(
                "--port", f"cannot listen on 127.0.0.1:{args.port} ({exc}); pick another port"
            ) from None
    finally:
        app.close()


def _inspect_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path", nargs="?", help="project root (default: --root, $CLAUDE_PROJECT_DIR or the cwd)"
    )
    p.add_argument(
        "--port",
        type=number_flag("--port", 8765, "0..65535"),
        default=0,
        help="port on 127.0.0.1 (0..65535, default 0: any free one)",
    )
    p.add_argument("--no-browser", action="store_true", help="only print the URL")


def _savings(args: argparse.Namespace) -> str:
    """What routing would have saved on this project's past Claude Code sessions
    (``route/past.py``, docs/routing.md)."""
    from pathlib import Path

    from ctx_tree_mcp.route import past

    with open_app(args) as app:
        where = Path(args.transcripts) if args.transcripts else past.transcript_dir(app.root)
        files = (
            sorted(where.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if where.is_dir() else []
        )
        if not files:
            raise ToolInputError(
                "--transcripts",
                f"no transcripts (*.jsonl) in {where}; give the folder that holds them",
            )
        files = files[-args.last :] if args.last else files
        settings = app.config.data["route"]
        return past.report(app.root, files, settings["budget"], settings["runBudget"])


def _savings_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--transcripts",
        metavar="DIR",
        help="folder of Claude Code transcripts (default: this project's under ~/.claude/projects)",
    )
    p.add_argument(
        "--last",
        type=number_flag("--last", 10, ">= 1", whole=True),
        default=0,
        help="only the N most recent sessions (default: all)",
    )


#: Every CLI-only command, in ``--help`` order (after the tool verbs).
COMMANDS: tuple[Command, ...] = (
    Command("walk", "run the walkers once (for cron and tests)", _walk, _walk_args),
    Command(
        "reembed",
        "embed every live and pending node lacking a vector of the configured model (resumable;"
        " progress on stderr; docs/search.md)",
        _reembed,
        _reembed_args,
    ),
    Command(
        "index",
        "index the project's files into the store now (incremental; progress on stderr;"
        " docs/index.md)",
        _index,
    ),
    Command("stats", "node counts by kind and status, store size, tokens served vs stored", _stats),
    Command(
        "savings",
        "what routing would have saved on this project's past Claude Code sessions",
        _savings,
        _savings_args,
    ),
    Command("stores", "every store: project path, size, node count, last use", _stores),
    Command(
        "forget",
        "delete a project's store and capture spool (asks first; --yes for scripts; safe "
        "while a server runs: it starts a new one)",
        _forget,
        _forget_args,
    ),
    Command(
        "doctor",
        "check Python, uv, rg, grammars, the store, the config, the plugin's hooks and start-up",
        _doctor,
        _doctor_args,
    ),
    Command(
        "install",
        "add ctx-tree's MCP server and hooks to an agent host's config (docs/install.md)",
        _install,
        _install_args,
    ),
    Command(
        "uninstall",
        "remove ctx-tree's entries from an agent host's config (backup kept)",
        _install,
        _install_args,
    ),
    Command(
        "demo", "read, grep and search a real tree and show the tokens saved", _demo, _demo_args
    ),
    Command("serve", "run the MCP server on stdio (same as ctx-tree-mcp)", _serve),
    Command(
        "inspect",
        "a read-only web page of the store on 127.0.0.1 (prints its URL; Ctrl-C stops it)",
        _inspect,
        _inspect_args,
    ),
)
