#!/usr/bin/env python3
"""Start the ctx-tree MCP server for the Claude Code plugin (stdio; extra arguments pass through).

``ctx-tree-launch`` (POSIX sh) runs first: when the workspace environment is up to date it
execs that environment's ``ctx-tree-mcp`` directly (a few ms). Otherwise it runs this file.

Two ways the plugin is installed, one launcher:

* From a clone (``claude --plugin-dir plugin``): this file's plugin directory sits inside the
  ctx-tree uv workspace. The workspace environment is synced (``uv sync --frozen --inexact``,
  its output to stderr), a stamp file is written in it, and its own ``ctx-tree-mcp`` is
  exec'd; the stamp lets the next start skip uv while ``uv.lock`` and every
  ``pyproject.toml`` are older than it. If the sync fails:
  ``uv run --project <clone> --frozen ctx-tree-mcp``.
* Through a marketplace: Claude Code copies only the plugin directory into its cache
  (``<plugins>/cache/<marketplace>/<plugin>/<version>``), but keeps the marketplace's whole
  repository at the ``installLocation`` that ``<plugins>/known_marketplaces.json`` records (a
  git clone it made, or the local directory given to ``claude plugin marketplace add``). That
  repository is the ctx-tree workspace, with ``uv.lock``: it is used as in a clone, and its
  path is written to ``bin/.ctx-tree-workspace`` so that ``ctx-tree-launch`` finds it without
  Python next time. Only when no workspace is found either way, the published server pinned
  to this plugin's version runs: ``uvx --from ctx-tree-mcp==<version> ctx-tree-mcp`` (needs
  the packages on PyPI).

``uv`` is found on PATH, then via ``$UV``, the ``uv`` Python package, and its usual install
directories (a GUI-started Claude Code often has a short PATH). With no uv at all, a
``ctx-tree-mcp`` on PATH is used. ``--print-command`` prints the chosen argv as JSON and exits.

The store stays where the server puts it (``$CTX_TREE_HOME``, default ``~/.ctx-tree``), shared
with the ``ctx-tree`` CLI; the project root is ``$CLAUDE_PROJECT_DIR``, which Claude Code sets.
Kept compatible with Python 3.8+: this runs under whatever ``python3`` the host has.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

PLUGIN_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ctx-tree-mcp"


def plugin_version() -> str:
    manifest = PLUGIN_ROOT / ".claude-plugin" / "plugin.json"
    version: str = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    return version


WORKSPACE_NOTE = PLUGIN_ROOT / "bin" / ".ctx-tree-workspace"


def is_workspace(repo: Path) -> bool:
    """True when ``repo`` is a ctx-tree uv workspace (a clone of this repository)."""
    try:
        text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False
    return 'name = "ctx-tree-workspace"' in text and (repo / "packages" / PACKAGE).is_dir()


def marketplace_workspace() -> "Path | None":
    """The marketplace repository this cached plugin copy came from, when it is a ctx-tree
    workspace; else None. Claude Code's layout: ``<plugins>/cache/<marketplace>/<plugin>/
    <version>`` for the copy, ``<plugins>/known_marketplaces.json`` mapping each marketplace
    name to its ``installLocation``."""
    parents = PLUGIN_ROOT.parents
    if len(parents) < 4 or parents[2].name != "cache":
        return None
    try:
        known = json.loads((parents[3] / "known_marketplaces.json").read_text(encoding="utf-8"))
        location = Path(known[parents[1].name]["installLocation"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return location if is_workspace(location) else None


def workspace_root() -> "Path | None":
    """The ctx-tree workspace to run: the clone holding this plugin directory, else the
    marketplace repository of a cached copy (remembered in ``bin/.ctx-tree-workspace`` for the
    shell fast path); None when neither exists."""
    if is_workspace(PLUGIN_ROOT.parent):
        return PLUGIN_ROOT.parent
    repo = marketplace_workspace()
    if repo is not None:
        try:
            noted = WORKSPACE_NOTE.read_text(encoding="utf-8").strip()
        except OSError:
            noted = None
        if noted != str(repo):
            with contextlib.suppress(OSError):  # a read-only plugin cache: this path still works
                WORKSPACE_NOTE.write_text(str(repo) + "\n", encoding="utf-8")
    return repo


def find_uv() -> "str | None":
    found = shutil.which("uv")
    if found:
        return found
    env_uv = os.environ.get("UV")
    if env_uv and os.access(env_uv, os.X_OK):
        return env_uv
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found]  # the PyPI "uv" package (python3 -m pip install uv)

        found_bin: str = find_uv_bin()
        return found_bin
    except Exception:  # not installed, or installed without its binary
        pass
    home = Path.home()
    for candidate in (
        home / ".local" / "bin" / "uv",
        home / ".cargo" / "bin" / "uv",
        Path("/opt/homebrew/bin/uv"),
        Path("/usr/local/bin/uv"),
    ):
        if os.access(str(candidate), os.X_OK):
            return str(candidate)
    return None


STAMP = ".ctx-tree-launch-stamp"


def environment(repo: Path) -> Path:
    """The workspace's environment directory (``$UV_PROJECT_ENVIRONMENT`` or ``.venv``)."""
    env = Path(os.environ.get("UV_PROJECT_ENVIRONMENT") or ".venv")
    return env if env.is_absolute() else repo / env


def synced_entry_point(repo: Path) -> "Path | None":
    """The environment's own ``ctx-tree-mcp`` when its stamp is newer than ``uv.lock`` and every
    ``pyproject.toml`` of the workspace (the rule ``ctx-tree-launch`` applies too), else None."""
    env = environment(repo)
    exe = env / "bin" / PACKAGE
    try:
        built = (env / STAMP).stat().st_mtime
        inputs = [repo / "uv.lock", repo / "pyproject.toml"]
        inputs += sorted((repo / "packages").glob("*/pyproject.toml"))
        if any(f.stat().st_mtime > built for f in inputs) or not os.access(str(exe), os.X_OK):
            return None
    except OSError:
        return None
    return exe


def sync(uv: str, repo: Path) -> "Path | None":
    """Sync the workspace environment (output to stderr: stdout is the MCP wire); write the
    stamp on success. Returns the entry point, or None when the sync failed."""
    argv = [uv, "sync", "--project", str(repo), "--frozen", "--inexact", "--quiet"]
    started = time.time()
    if subprocess.call(argv, stdout=sys.stderr.fileno()) != 0:
        return None
    stamp = environment(repo) / STAMP
    stamp.write_text("written by plugin/bin/ctx-tree-launch.py after uv sync\n", encoding="utf-8")
    os.utime(str(stamp), (started, started))  # an edit made during the sync stays newer
    return synced_entry_point(repo)


def command(args: "list[str]", dry_run: bool = False) -> "list[str] | None":
    """The argv that starts the server, with ``args`` appended (``dry_run``: never sync)."""
    uv = find_uv()
    repo = workspace_root()
    if repo is not None:
        exe = synced_entry_point(repo)
        if exe is None and uv and not dry_run:
            exe = sync(uv, repo)
        if exe is not None:
            return [str(exe), *args]
    if uv and repo is not None:
        return [uv, "run", "--project", str(repo), "--frozen", PACKAGE, *args]
    if uv:
        return [uv, "tool", "run", "--from", f"{PACKAGE}=={plugin_version()}", PACKAGE, *args]
    installed = shutil.which(PACKAGE)
    if installed:
        return [installed, *args]
    return None


def main() -> int:
    args = sys.argv[1:]
    dry_run = "--print-command" in args
    args = [a for a in args if a != "--print-command"]
    argv = command(args, dry_run)
    if argv is None:
        sys.stderr.write(
            "ctx-tree: cannot start the MCP server: neither `uv` nor `ctx-tree-mcp` was found.\n"
            "Install uv (python3 -m pip install uv, or https://docs.astral.sh/uv/) and restart "
            "Claude Code; see docs/install.md.\n"
        )
        return 127
    if dry_run:
        print(json.dumps(argv))
        return 0
    if os.name == "nt":  # no real exec on Windows: relay the exit code
        return subprocess.call(argv)
    os.execv(argv[0], argv)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
