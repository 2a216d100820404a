"""``ctx-tree install HOST`` / ``uninstall HOST`` / ``doctor --host HOST``: write ctx-tree's MCP
entry, and its hooks where the host has them, into an agent host's own configuration files
(docs/install.md).

The host table :data:`HOSTS` is data: each :class:`Host` names its files per scope and the
functions that compute the new text of each one. Every edit:

* upserts only ctx-tree's own entries (the ``ctx-tree`` server key; hook handlers whose command
  runs ``ctx_tree_hook.py``; files ctx-tree created, marked as such), everything else in the
  file is kept;
* is idempotent: a second install changes nothing and says so;
* writes through a symbolic link (a config linked into a dotfiles repository: the link stays,
  its target gets the change) and keeps the file's mode;
* keeps the text it does not change as the user wrote it (JSON through
  :func:`~ctx_tree_mcp.cli.jsonedit.edit_json`, TOML through tomlkit; YAML is written anew);
* keeps the bytes a file held before each change in a backup beside it that is never
  overwritten (``<file>.ctx-tree.bak``, then ``<file>.1.ctx-tree.bak``, …), with the file's
  mode;
* with ``dry_run`` only prints the unified diff (:mod:`difflib`).

Errors: :class:`~ctx_tree_mcp.errors.ToolInputError` naming ``HOST``, ``--scope`` or the file
(unreadable JSON/TOML/YAML: fix it or remove it; the file is never overwritten then).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.wire.hosts import (
    HOOK_TIMEOUT_S,
    claude,
    cline,
    codex,
    copilot,
    cursor,
    gemini,
    vscode,
)

#: The server's key in every host's MCP table.
NAME = "ctx-tree"
#: What marks a hook handler, or a file, as ctx-tree's own.
HOOK_SCRIPT = "ctx_tree_hook.py"
#: What a hook command runs: ``HOOK_SCRIPT`` under a real interpreter, never a shim's start.
HOOK_RUNNER = "ctx_tree_hook.sh"
MARKER = "ctx-tree-managed"
BACKUP_SUFFIX = ".ctx-tree.bak"

#: Each host's hook events, the hook's arguments and matchers: ``EVENTS`` of its module in
#: ``ctx_tree_mcp/wire/hosts/`` (the hook reads the same module for its payloads).
SCOPES = ("user", "project")


# --- where ctx-tree itself is ----------------------------------------------------------------


def plugin_dir() -> Path | None:
    """The plugin directory of the clone this package runs from (``<clone>/plugin``), or None
    when installed from a package index (no hook scripts on disk then)."""
    here = Path(__file__).resolve()
    candidate = here.parents[5] / "plugin" if len(here.parents) > 5 else None
    if candidate and (candidate / "hooks" / HOOK_SCRIPT).is_file():
        return candidate
    return None


def server_command() -> list[str]:
    """The argv that starts ctx-tree's MCP server: the clone's launcher when there is a clone,
    else the ``ctx-tree-mcp`` beside this Python, else the one on PATH."""
    plugin = plugin_dir()
    if plugin is not None and (plugin / "bin" / "ctx-tree-launch").is_file():
        return ["sh", str(plugin / "bin" / "ctx-tree-launch")]
    beside = Path(sys.executable).with_name("ctx-tree-mcp")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("ctx-tree-mcp")
    return [found or "ctx-tree-mcp"]


def server_env() -> dict[str, str]:
    """Variables the server must get explicitly (several hosts pass no parent environment):
    ``CTX_TREE_HOME`` when it is set at install time."""
    home = os.environ.get("CTX_TREE_HOME")
    return {"CTX_TREE_HOME": str(Path(home).expanduser().resolve())} if home else {}


def hook_command(*words: str) -> str | None:
    """The shell command a host runs for one hook event, or None without a clone."""
    plugin = plugin_dir()
    if plugin is None:
        return None
    script = shlex.quote(str(plugin / "hooks" / HOOK_RUNNER))
    return f"sh {script} {' '.join(words)}"


def _ours(command: Any) -> bool:
    """True for a hook command ctx-tree wrote: this one's or an older one's (the script run
    by ``python3`` directly)."""
    return isinstance(command, str) and (HOOK_RUNNER in command or HOOK_SCRIPT in command)


# --- context of one run -----------------------------------------------------------------------


@dataclass
class Target:
    """One install: the host, the scope, the project root and the user's home directory."""

    host: str
    scope: str
    root: Path
    home: Path

    def env_dir(self, variable: str, default: str) -> Path:
        """``$variable`` when set, else ``default`` under the home directory."""
        value = os.environ.get(variable)
        return Path(value).expanduser() if value else self.home / default


@dataclass
class FileEdit:
    """One file's change: ``new`` is its text after the edit, None to delete it."""

    path: Path
    old: str | None
    new: str | None
    executable: bool = False

    @property
    def changed(self) -> bool:
        """True when the edit changes the file (or creates or removes it)."""
        return self.old != self.new


# --- structured formats -----------------------------------------------------------------------


def _read(path: Path) -> str | None:
    try:  # line ends as they are: a CRLF file keeps them where nothing changes
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolInputError(str(path), f"cannot read it ({exc}); fix its permissions") from exc


def _load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ToolInputError(
            str(path),
            f"is not valid JSON ({exc}; comments are not supported); fix it or move it away,"
            " then run the install again (nothing was written)",
        ) from exc
    if not isinstance(data, dict):
        raise ToolInputError(str(path), "holds JSON that is not an object; fix it or move it away")
    return data


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _json_edit(path: Path, change: Callable[[dict[str, Any]], None]) -> FileEdit:
    """Apply ``change`` to the JSON object in ``path``, the text it does not change kept as
    written; a file left empty (``{}``) is removed (its backup keeps what it held), unless it
    is a link (its target then holds ``{}``)."""
    from ctx_tree_mcp.cli.jsonedit import edit_json

    old = _read(path)
    data = _load_json(path, old)
    before = copy.deepcopy(data)
    change(data)
    if data == before:
        return FileEdit(path, old, old)
    if not data and not path.is_symlink():
        return FileEdit(path, old, None)
    return FileEdit(path, old, edit_json(old, data) if old and old.strip() else _dump_json(data))


def _mcp_entry(flavour: str) -> dict[str, Any]:
    argv, env = server_command(), server_env()
    entry: dict[str, Any]
    if flavour == "opencode":
        entry = {"type": "local", "command": argv, "enabled": True}
        if env:
            entry["environment"] = env
        return entry
    entry = {"command": argv[0], "args": argv[1:]}
    if flavour == "vscode":
        entry = {"type": "stdio", **entry}
    if flavour == "copilot":
        entry = {"type": "local", **entry, "tools": ["*"]}
    if flavour == "gemini":
        entry["timeout"] = 60000
        entry["trust"] = True
    if env:
        entry["env"] = env
    return entry


def _set_server(table: str, flavour: str, install: bool) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        servers = data.get(table)
        if install:
            if not isinstance(servers, dict):
                servers = data[table] = {}
            servers[NAME] = _mcp_entry(flavour)
        elif isinstance(servers, dict) and NAME in servers:
            del servers[NAME]
            if not servers:
                del data[table]

    return change


def _claude_hooks(
    data: dict[str, Any],
    events: dict[str, tuple[str, str | None]],
    install: bool,
    background: tuple[str, ...] = (),
) -> None:
    """Upsert (or remove) ctx-tree's handlers in a Claude-format ``hooks`` table, one per
    host event of ``events`` (a host module's ``EVENTS``: event -> (the hook's arguments,
    matcher)), those of ``background`` run by the host without waiting (``async``): other
    handlers, groups and events are kept."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        if not install:
            return
        hooks = data["hooks"] = {}
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                group = dict(group)
                group["hooks"] = [
                    h
                    for h in group["hooks"]
                    if not (isinstance(h, dict) and _ours(h.get("command")))
                ]
                if not group["hooks"]:
                    continue
            elif isinstance(group, dict) and _ours(group.get("command")):
                continue  # a flat entry (VS Code, Cursor)
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if install:
        for event, (argument, matcher) in events.items():
            command = hook_command(*argument.split())
            if command is None:
                continue
            entry: dict[str, Any] = {}
            if matcher:
                entry["matcher"] = matcher
            hook: dict[str, Any] = {"type": "command", "command": command}
            if event in background:
                hook["async"] = True
            hook["timeout"] = HOOK_TIMEOUT_S
            entry["hooks"] = [hook]
            hooks.setdefault(event, []).append(entry)
    if not hooks:
        del data["hooks"]


def _route_hooks(data: dict[str, Any], install: bool) -> None:
    """Upsert (or remove) the PreToolUse entry that routes the host's own commands
    (``wire.route.claude_hook_entry``: ``mcp_tool`` hooks calling the ``ctx-tree`` server this
    install registers; docs/routing.md). Other handlers are kept."""
    from ctx_tree_mcp.wire.route import claude_hook_entry

    hooks = data.setdefault("hooks", {}) if install else data.get("hooks")
    if not isinstance(hooks, dict):
        return
    groups = hooks.get("PreToolUse")
    kept = [
        g
        for g in (groups if isinstance(groups, list) else [])
        if not (
            isinstance(g, dict)
            and isinstance(g.get("hooks"), list)
            and any(isinstance(h, dict) and h.get("tool") == "ctx_tree_route" for h in g["hooks"])
        )
    ]
    if install:
        kept.insert(0, claude_hook_entry("ctx-tree"))
    if kept:
        hooks["PreToolUse"] = kept
    else:
        hooks.pop("PreToolUse", None)
    if not hooks:
        data.pop("hooks", None)


# --- per-host writers ---------------------------------------------------------------------------


def _claude(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        mcp, settings = t.home / ".claude.json", t.home / ".claude" / "settings.json"
    else:
        mcp, settings = t.root / ".mcp.json", t.root / ".claude" / "settings.json"
    return [
        _json_edit(mcp, _set_server("mcpServers", "claude", install)),
        _json_edit(settings, lambda d: _claude_settings(d, install)),
    ]


def _claude_settings(data: dict[str, Any], install: bool) -> None:
    """Claude Code's settings: ctx-tree's capture hooks and its routing entry."""
    _claude_hooks(data, claude.EVENTS, install, claude.BACKGROUND)
    _route_hooks(data, install)


def _codex_dir(t: Target) -> Path:
    return t.env_dir("CODEX_HOME", ".codex") if t.scope == "user" else t.root / ".codex"


def _codex(t: Target, install: bool) -> list[FileEdit]:
    import tomlkit

    folder = _codex_dir(t)
    config = folder / "config.toml"
    old = _read(config)
    try:
        doc = tomlkit.parse(old or "")
    except Exception as exc:  # tomlkit raises its own ParseError subclasses
        raise ToolInputError(
            str(config), f"is not valid TOML ({exc}); fix it or move it away (nothing was written)"
        ) from exc
    servers = doc.get("mcp_servers")
    ours_last = bool(doc) and list(doc)[-1] == "mcp_servers"
    if install:
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc["mcp_servers"] = servers
        entry = tomlkit.table()
        argv = server_command()
        entry["command"] = argv[0]
        entry["args"] = argv[1:]
        entry["startup_timeout_sec"] = 60
        env = server_env()
        if env:
            inline = tomlkit.inline_table()
            inline.update(env)
            entry["env"] = inline
        servers[NAME] = entry
    elif servers is not None and NAME in servers:
        del servers[NAME]
        if not servers:
            del doc["mcp_servers"]
    if not install:
        state = (doc.get("hooks") or {}).get("state")
        prefix = str(folder / "hooks.json")
        if state is not None:
            for key in [k for k in state if str(k).startswith(prefix)]:
                del state[key]
    new = tomlkit.dumps(doc)
    if not install and ours_last and "mcp_servers" not in doc and new.endswith("\n\n"):
        new = new[:-1]  # the blank line tomlkit put before the table it appended
    new_text: str | None = None if not new.strip() else (new if new != (old or "") else old)
    hooks = _json_edit(folder / "hooks.json", lambda d: _claude_hooks(d, codex.EVENTS, install))
    return [FileEdit(config, old, new_text), hooks]


def _gemini(t: Target, install: bool) -> list[FileEdit]:
    base = t.home if t.scope == "user" else t.root
    path = base / ".gemini" / "settings.json"

    def change(data: dict[str, Any]) -> None:
        _set_server("mcpServers", "gemini", install)(data)
        _claude_hooks(data, gemini.EVENTS, install)
        for groups in (data.get("hooks") or {}).values():
            for group in groups if isinstance(groups, list) else []:
                for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                    if isinstance(handler, dict) and _ours(handler.get("command")):
                        handler["timeout"] = HOOK_TIMEOUT_S * 1000  # Gemini: milliseconds

    return [_json_edit(path, change)]


OPENCODE_PLUGIN = "ctx-tree.js"


def opencode_plugin_text() -> str | None:
    """The OpenCode plugin that runs ``ctx_tree_hook.sh opencode EVENT`` (plugin/opencode/)."""
    plugin = plugin_dir()
    if plugin is None:
        return None
    source = (plugin / "opencode" / OPENCODE_PLUGIN).read_text(encoding="utf-8")
    return source.replace("__CTX_TREE_HOOK__", json.dumps(str(plugin / "hooks" / HOOK_RUNNER)))


def _opencode(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        folder = t.env_dir("XDG_CONFIG_HOME", ".config") / "opencode"
        config, plugins = folder / "opencode.json", folder / "plugin"
    else:
        config, plugins = t.root / "opencode.json", t.root / ".opencode" / "plugin"
    edits = [_json_edit(config, _set_server("mcp", "opencode", install))]
    path = plugins / OPENCODE_PLUGIN
    old = _read(path)
    if old is not None and MARKER not in old:
        raise ToolInputError(str(path), "exists and is not ctx-tree's; move it away first")
    edits.append(FileEdit(path, old, opencode_plugin_text() if install else None))
    return edits


def _copilot(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        folder = t.env_dir("COPILOT_HOME", ".copilot")
        mcp, hooks = folder / "mcp-config.json", folder / "hooks" / "ctx-tree.json"
    else:
        mcp, hooks = t.root / ".mcp.json", t.root / ".github" / "hooks" / "ctx-tree.json"
    return [
        _json_edit(mcp, _set_server("mcpServers", "copilot", install)),
        _json_edit(hooks, lambda d: _claude_hooks(d, copilot.EVENTS, install)),
    ]


def _vscode(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        mcp = t.env_dir("XDG_CONFIG_HOME", ".config") / "Code" / "User" / "mcp.json"
        hooks = t.home / ".copilot" / "hooks" / "ctx-tree.json"
    else:
        mcp, hooks = t.root / ".vscode" / "mcp.json", t.root / ".github" / "hooks" / "ctx-tree.json"
    # the same file and entry as Copilot CLI's: one mapping reads both hosts' payloads
    return [
        _json_edit(mcp, _set_server("servers", "vscode", install)),
        _json_edit(hooks, lambda d: _claude_hooks(d, vscode.EVENTS, install)),
    ]


def _cursor(t: Target, install: bool) -> list[FileEdit]:
    folder = (t.home if t.scope == "user" else t.root) / ".cursor"

    def hooks(data: dict[str, Any]) -> None:
        _claude_hooks(data, {}, install=False)
        if install:
            data.setdefault("version", 1)
            table = data.setdefault("hooks", {})
            for event, (arguments, _matcher) in cursor.EVENTS.items():
                command = hook_command(*arguments.split())
                if command:
                    table.setdefault(event, []).append({"command": command})
        elif not data.get("hooks"):  # no hooks left: the version was for ours
            data.pop("hooks", None)
            data.pop("version", None)

    return [
        _json_edit(folder / "mcp.json", _set_server("mcpServers", "cursor", install)),
        _json_edit(folder / "hooks.json", hooks),
    ]


def _zed(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        path = t.env_dir("XDG_CONFIG_HOME", ".config") / "zed" / "settings.json"
    else:
        path = t.root / ".zed" / "settings.json"
    return [_json_edit(path, _set_server("context_servers", "zed", install))]


def _cline(t: Target, install: bool) -> list[FileEdit]:
    if t.scope == "user":
        mcp = t.home / ".cline" / "data" / "settings" / "cline_mcp_settings.json"
        folder = Path(os.environ.get("CLINE_HOOKS_DIR") or t.home / ".cline" / "hooks")
    else:
        raise ToolInputError(
            "--scope", "Cline reads MCP servers from the user's settings only; use --scope user"
        )

    def change(data: dict[str, Any]) -> None:
        _set_server("mcpServers", "cline", install)(data)
        entry = (data.get("mcpServers") or {}).get(NAME)
        if isinstance(entry, dict):
            entry.update(disabled=False, timeout=60)

    edits = [_json_edit(mcp, change)]
    for event, (arguments, _matcher) in cline.EVENTS.items():
        path = folder / event
        old = _read(path)
        if old is not None and MARKER not in old:
            continue  # the user's own hook for this event: left alone (doctor says so)
        command = hook_command(*arguments.split())
        new = f"#!/bin/sh\n# {MARKER}: ctx-tree's Cline hook (docs/install.md)\nexec {command}\n"
        edits.append(FileEdit(path, old, new if install and command else None, executable=True))
    return edits


def _continue(t: Target, install: bool) -> list[FileEdit]:
    import yaml  # type: ignore[import-untyped]

    argv = server_command()
    entry: dict[str, Any] = {"name": NAME, "command": argv[0], "args": argv[1:]}
    if server_env():
        entry["env"] = server_env()
    if t.scope == "project":
        path = t.root / ".continue" / "mcpServers" / "ctx-tree.yaml"
        old = _read(path)
        if old is not None and MARKER not in old:
            raise ToolInputError(str(path), "exists and is not ctx-tree's; move it away first")
        block = {"name": "ctx-tree", "version": "0.0.1", "schema": "v1", "mcpServers": [entry]}
        new = f"# {MARKER}\n" + yaml.safe_dump(block, sort_keys=False)
        return [FileEdit(path, old, new if install else None)]
    path = t.home / ".continue" / "config.yaml"
    old = _read(path)
    try:
        data = yaml.safe_load(old or "") or {}
    except yaml.YAMLError as exc:
        raise ToolInputError(str(path), f"is not valid YAML ({exc}); fix it first") from exc
    if not isinstance(data, dict):
        raise ToolInputError(str(path), "is not a YAML mapping; fix it first")
    servers = [
        s
        for s in data.get("mcpServers") or []
        if not (isinstance(s, dict) and s.get("name") == NAME)
    ]
    if install:
        servers.append(entry)
    before = yaml.safe_load(old or "") or {}
    if servers:
        data["mcpServers"] = servers
    else:
        data.pop("mcpServers", None)
    if data == before:
        return [FileEdit(path, old, old)]
    if install and "name" not in data:
        data = {"name": "Local config", "version": "1.0.0", "schema": "v1", **data}
    return [FileEdit(path, old, yaml.safe_dump(data, sort_keys=False) if data else None)]


@dataclass(frozen=True)
class Host:
    """One agent host: its writer and what it cannot do (docs/install.md)."""

    name: str
    title: str
    writer: Callable[[Target, bool], list[FileEdit]]
    hooks: bool
    limits: str
    scopes: tuple[str, ...] = SCOPES
    after: Callable[[Target, list[FileEdit], bool], str] | None = field(default=None)


def _codex_trust(t: Target, edits: list[FileEdit], dry_run: bool) -> str:
    """Trust ctx-tree's Codex hooks as Codex records it itself (see :func:`codex_trust`)."""
    if dry_run:
        return codex_trust_plan(t)
    return codex_trust(t)


def codex_trust_plan(t: Target) -> str:
    """What ``install codex --dry-run`` says of hook trust: what trust is, what the install
    will write where, and how to do it by hand."""
    config = _codex_dir(t) / "config.toml"
    if shutil.which("codex"):
        plan = (
            "  Without --dry-run, the install asks Codex (`codex app-server`, hooks/list) for each\n"
            f"  ctx-tree hook's key and hash and records them in {config}\n"
            '  as [hooks.state."<key>"] trusted_hash = "<hash>", as Codex\'s own /hooks does\n'
            "  (editing a hook later makes it untrusted again).\n"
        )
    else:
        plan = (
            "  `codex` is not on PATH, so the install cannot ask Codex for the hooks' hashes and\n"
            "  records no trust.\n"
        )
    return (
        "codex: trust: Codex runs a hook only once you have trusted it; it skips the others "
        "silently.\n" + plan + "  By hand: open `codex`, run /hooks and trust the ctx-tree hooks."
    )


HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        Host("claude", "Claude Code", _claude, True, "none (the plugin is the usual route)"),
        Host(
            "codex",
            "OpenAI Codex CLI",
            _codex,
            True,
            "no native Read/Grep tools (reads go through its shell, so only commands are "
            "captured and steered); hooks run only once trusted",
            after=_codex_trust,
        ),
        Host(
            "gemini",
            "Gemini CLI",
            _gemini,
            True,
            "context at BeforeTool is dropped: the steering hint comes after the tool (AfterTool)",
        ),
        Host(
            "opencode",
            "OpenCode",
            _opencode,
            True,
            "no command hooks (a JS plugin runs the hook); a hint can only deny before a tool",
        ),
        Host(
            "copilot",
            "GitHub Copilot CLI",
            _copilot,
            True,
            "Stop carries no answer text (read from its events.jsonl)",
        ),
        Host(
            "cline",
            "Cline",
            _cline,
            True,
            "MCP at user scope only; the first prompt of a task is not given to UserPromptSubmit",
            scopes=("user",),
        ),
        Host(
            "continue",
            "Continue",
            _continue,
            False,
            "MCP only: its hooks never fire yet; rewriting config.yaml drops its comments "
            "(the backup keeps them)",
        ),
        Host(
            "cursor",
            "Cursor",
            _cursor,
            True,
            "not tested against a running Cursor (config follows its documented schema)",
        ),
        Host(
            "vscode",
            "VS Code Copilot agent mode",
            _vscode,
            True,
            "hook matchers are ignored (every tool runs the hook); not tested against a "
            "running VS Code",
        ),
        Host(
            "zed",
            "Zed",
            _zed,
            False,
            "MCP only, no hooks; settings.json with comments must be edited by hand",
        ),
    )
}


# --- applying -----------------------------------------------------------------------------------


def _target(host: str, scope: str, root: Path, home: Path | None = None) -> Target:
    if host not in HOSTS:
        raise ToolInputError("HOST", f"unknown host {host!r}; give one of {', '.join(HOSTS)}")
    if scope not in HOSTS[host].scopes:
        raise ToolInputError(
            "--scope", f"{host} supports {' or '.join(HOSTS[host].scopes)}, not {scope!r}"
        )
    return Target(host, scope, root, home or Path.home())


def diff(edit: FileEdit) -> str:
    """The unified diff of one edit (``/dev/null`` for a created or deleted file)."""
    before = (edit.old or "").splitlines(keepends=True)
    after = (edit.new or "").splitlines(keepends=True)
    return "".join(
        difflib.unified_diff(
            before,
            after,
            fromfile=str(edit.path) if edit.old is not None else "/dev/null",
            tofile=str(edit.path) if edit.new is not None else "/dev/null",
        )
    )


def _backup(path: Path, data: bytes, mode: int) -> Path:
    """Keep ``data``, what ``path`` held, in a backup beside it that is never overwritten:
    ``<name>.ctx-tree.bak`` the first time, then ``<name>.1.ctx-tree.bak``, ``.2``, …; a backup
    already holding these bytes is not made again. Created with ``mode``, the file's own (a
    0600 config holding keys gets a 0600 backup)."""
    n = 0
    while True:
        backup = path.with_name(f"{path.name}{f'.{n}' if n else ''}{BACKUP_SUFFIX}")
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            if backup.is_file() and not backup.is_symlink() and backup.read_bytes() == data:
                return backup
            n += 1
            continue
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)  # whatever the umask
            f.write(data)
        return backup


def _write(edit: FileEdit) -> Path | None:
    """The one writer of a user's file: ``edit`` written through a link to its target (the
    link stays), atomically, in the file's mode; what the file held goes to a backup
    (:func:`_backup`), which is returned. A removed file that is a link is emptied instead."""
    path = edit.path
    real = Path(os.path.realpath(path))
    backup = None
    if edit.old is not None and real.is_file():
        backup = _backup(path, real.read_bytes(), stat.S_IMODE(real.stat().st_mode))
    if edit.new is None and not path.is_symlink():
        if path.exists():
            path.unlink()
        return backup
    real.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o755 if edit.executable else 0o644
    if real.is_file():
        mode = stat.S_IMODE(real.stat().st_mode) | (0o111 if edit.executable else 0)
    tmp = real.with_name(f".{real.name}.ctx-tree-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write((edit.new or "").encode("utf-8"))
        os.fchmod(f.fileno(), mode)
    os.replace(tmp, real)
    return backup


def apply(
    host: str,
    scope: str,
    root: Path,
    *,
    install: bool = True,
    dry_run: bool = False,
    home: Path | None = None,
) -> str:
    """Install (or uninstall) ctx-tree for ``host``; returns what was done, or with
    ``dry_run`` the diff of what would be. Raises ToolInputError for an unknown host or
    scope, or a config file that cannot be parsed (nothing is written then)."""
    target = _target(host, scope, root, home)
    spec = HOSTS[host]
    edits = spec.writer(target, install)
    changed = [e for e in edits if e.changed]
    lines: list[str] = []
    if dry_run:
        lines += [diff(e) for e in changed]
    else:
        for edit in changed:
            kept = _write(edit)
            verb = "removed" if edit.new is None else ("wrote" if edit.old is None else "updated")
            backup = f" (backup: {kept.name})" if kept is not None else ""
            lines.append(f"{verb} {edit.path}{backup}")
    if not changed:
        lines.append(
            f"{spec.title}: {'already installed' if install else 'not installed'}; nothing to change"
        )
    if install and spec.after is not None:
        lines.append(spec.after(target, edits, dry_run))
    if install and spec.hooks and plugin_dir() is None:
        lines.append(
            f"{spec.title}: hooks not written: no ctx-tree clone (hook scripts) found;"
            " MCP only (docs/install.md)"
        )
    if install and not dry_run:
        lines.append(f"{spec.title} cannot: {spec.limits}")
    return "\n".join(line.rstrip("\n") for line in lines if line) + "\n"


def status(host: str, scope: str, root: Path, home: Path | None = None) -> tuple[str, int]:
    """``doctor --host``: what is installed, what is stale (differs from what an install
    writes now) and the command to run. Returns (report, exit status 0 ok / 1 to fix)."""
    target = _target(host, scope, root, home)
    spec = HOSTS[host]
    edits = spec.writer(target, True)
    lines = [f"{spec.title} ({scope} scope):"]
    bad = 0
    for edit in edits:
        if not edit.changed:
            lines.append(f"  ok       {edit.path}")
        elif edit.old is None:
            bad += 1
            lines.append(f"  missing  {edit.path}")
        else:
            bad += 1
            lines.append(f"  stale    {edit.path} (differs from what an install writes)")
    if host == "codex" and not bad:
        untrusted = codex_untrusted(target)
        if untrusted:
            bad += 1
            lines.append(f"  untrusted hooks: {len(untrusted)} (Codex skips them silently)")
    if bad:
        lines.append(f"  run: ctx-tree install {host} --scope {scope}")
    lines.append(f"  cannot: {spec.limits}")
    return "\n".join(lines) + "\n", 1 if bad else 0


# --- Codex hook trust ---------------------------------------------------------------------------


def _codex_hooks(t: Target, timeout: float = 20.0) -> list[dict[str, Any]] | None:
    """Codex's own view of the hooks (``codex app-server``: ``initialize``, then
    ``hooks/list``), or None when Codex cannot be asked (not on PATH, no answer)."""
    exe = shutil.which("codex")
    if exe is None:
        return None
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "ctx-tree", "version": "0.1.0"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(t.root)]}},
    ]
    env = dict(os.environ)
    if t.scope == "user":
        env["CODEX_HOME"] = str(_codex_dir(t))
    try:
        proc = subprocess.Popen(
            [exe, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=t.root,
            env=env,
            text=True,
        )
    except OSError:
        return None
    assert proc.stdin is not None and proc.stdout is not None
    import threading

    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        for line in proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == 2:
                return _hook_entries(message.get("result"))
        return None
    except OSError:
        return None
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()


def _hook_entries(result: Any) -> list[dict[str, Any]]:
    """Every dict holding a ``key`` and a ``currentHash`` anywhere in ``result``."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("key"), str) and isinstance(value.get("currentHash"), str):
                found.append(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(result)
    return found


def _our_codex_hooks(t: Target, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    hooks_file = str(_codex_dir(t) / "hooks.json")
    return [e for e in entries if e["key"].startswith(hooks_file) or _ours(json.dumps(e))]


def codex_untrusted(t: Target) -> list[dict[str, Any]]:
    """ctx-tree's Codex hooks whose recorded ``trusted_hash`` is not Codex's current hash."""
    import tomlkit

    entries = _codex_hooks(t)
    if entries is None:
        return []
    doc = tomlkit.parse(_read(_codex_dir(t) / "config.toml") or "")
    state = (doc.get("hooks") or {}).get("state") or {}
    return [
        e
        for e in _our_codex_hooks(t, entries)
        if (state.get(e["key"]) or {}).get("trusted_hash") != e["currentHash"]
    ]


def codex_trust(t: Target) -> str:
    """Record ctx-tree's hooks as trusted the way Codex's ``/hooks`` does: ``[hooks.state."<key>"]
    trusted_hash = "<currentHash>"`` with key and hash as ``codex app-server`` reports them
    (trust checks stay on: a later change to a hook makes it untrusted again). Returns one
    line; when Codex cannot be asked, the command the user runs instead."""
    import tomlkit

    manual = "open `codex`, run /hooks and trust the ctx-tree hooks"
    entries = _codex_hooks(t)
    if entries is None:
        return f"codex: hooks not trusted yet (codex app-server did not answer): {manual}"
    ours = _our_codex_hooks(t, entries)
    if not ours:
        return f"codex: Codex lists none of ctx-tree's hooks: {manual}"
    path = _codex_dir(t) / "config.toml"
    old = _read(path) or ""
    doc = tomlkit.parse(old)
    hooks = doc.get("hooks")
    if hooks is None:
        hooks = tomlkit.table(is_super_table=True)
        doc["hooks"] = hooks
    state = hooks.get("state")
    if state is None:
        state = tomlkit.table(is_super_table=True)
        hooks["state"] = state
    for entry in ours:
        row = tomlkit.table()
        row["trusted_hash"] = entry["currentHash"]
        state[entry["key"]] = row
    new = tomlkit.dumps(doc)
    if new != old:
        _write(FileEdit(path, old, new))
    return f"codex: trusted {len(ours)} ctx-tree hooks (as Codex's /hooks records them)"
