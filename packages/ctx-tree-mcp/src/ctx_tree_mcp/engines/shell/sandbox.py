"""The host's sandbox, applied to a ``ctx_tree_bash`` command when the host's settings turn it on.

When Claude Code's settings say ``"sandbox": {"enabled": true}``, its native Bash runs under
``@anthropic-ai/sandbox-runtime`` (``srt``: bubblewrap and socat on Linux, Seatbelt on macOS).
``ctx_tree_bash`` then runs its command under the same runtime with the same confinement: the
project and the temp dir writable plus ``sandbox.filesystem.allowWrite`` and ``Edit(...)`` allow
rules; ``denyWrite``, ``denyRead`` (and ``Read(...)`` deny rules), ``allowRead``; the network
limited to ``sandbox.network.allowedDomains`` and ``WebFetch(domain:…)`` allow rules (a host no
rule allows is refused: there is no one to ask); ``sandbox.credentials`` (variables and files it
hides) passed on as they are. ``sandbox.excludedCommands`` run outside it, as for the host.

When the runtime cannot start (no ``srt``, or on Linux no ``bwrap``/``socat``),
``sandbox.failIfUnavailable`` decides as it does for the host: true refuses the command, false
runs it with a one-line warning. ``allowUnsandboxedCommands`` needs no mapping: ctx_tree_bash
offers no way to ask for a run outside the sandbox. See ``docs/security.md``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctx_tree_mcp.errors import CtxTreeError
from ctx_tree_mcp.wire import permissions
from ctx_tree_mcp.wire.denylist import simple_commands

__all__ = ["Plan", "find_runtime", "host_sandbox", "plan_for", "srt_config"]

#: Where srt is looked for first: a path to its ``srt`` (or ``cli.js``) executable.
SRT_ENV = "CTX_TREE_SRT"


@dataclass(frozen=True)
class Plan:
    """How one command runs: ``command`` is the shell line to run (the original, or one that
    execs the runtime around it), ``note`` a line for the answer or None, ``config`` the
    runtime's settings file to remove after the run (None when unsandboxed)."""

    command: str
    note: str | None = None
    config: Path | None = None


@dataclass(frozen=True)
class HostSandbox:
    """Claude Code's merged ``sandbox`` settings (``settings``), the file that turned it on
    (``source``) and the ``permissions`` rules of every file (for Edit, Read and WebFetch)."""

    settings: dict[str, Any]
    source: str
    rules: list[tuple[str, str, str]]  # (decision, rule text, settings file)
    #: False for a read-only sandbox (Codex ``read-only``): not even the project is writable.
    project_writable: bool = True
    #: A line the answer shows about what the confinement could not follow, or None.
    note: str | None = None


def host_sandbox(root: Path, env: dict[str, str] | None = None) -> HostSandbox | None:
    """Claude Code's sandbox settings for ``root`` when ``sandbox.enabled`` is true, else None.

    Files are read in the host's precedence (``permissions.settings_files``): for a key set in
    several, the highest file wins; lists are joined; objects merge key by key."""
    merged: dict[str, Any] = {}
    source = ""
    rules: list[tuple[str, str, str]] = []
    for scope, where in permissions.settings_files(root, env):
        data = permissions.read_settings(scope, where)
        if not isinstance(data, dict):
            continue
        label = "--settings" if scope == "flag" else where
        box = data.get("sandbox")
        if isinstance(box, dict):
            if "enabled" in box and "enabled" not in merged:
                source = label
            _merge_lower(merged, box)
        perms = data.get("permissions")
        if isinstance(perms, dict):
            for decision in ("allow", "deny"):
                for rule in perms.get(decision) or []:
                    if isinstance(rule, str):
                        rules.append((decision, rule.strip(), label))
    if merged.get("enabled") is not True:
        return None
    return HostSandbox(merged, source, rules)


def _merge_lower(into: dict[str, Any], lower: dict[str, Any]) -> None:
    """Merge a lower-precedence object into ``into``: keys it lacks are taken, lists joined."""
    for key, value in lower.items():
        if key not in into:
            into[key] = value
        elif isinstance(into[key], list) and isinstance(value, list):
            into[key] = into[key] + value
        elif isinstance(into[key], dict) and isinstance(value, dict):
            _merge_lower(into[key], value)


def srt_config(box: HostSandbox, root: Path) -> dict[str, Any]:
    """The sandbox runtime's settings (its ``--settings`` file) for ``box`` in project ``root``."""
    fs = _object(box.settings, "filesystem")
    net = _object(box.settings, "network")

    def paths(key: str) -> list[str]:
        return [_path(p, root) for p in fs.get(key) or [] if isinstance(p, str)]

    base = [str(root), tempfile.gettempdir()] if box.project_writable else []
    allow_write = [*base, *paths("allowWrite")]
    deny_write, deny_read = paths("denyWrite"), paths("denyRead")
    domains = [d for d in net.get("allowedDomains") or [] if isinstance(d, str)]
    denied: list[str] = []
    for decision, rule, _source in box.rules:
        inner = _inner(rule, "Edit")
        if inner is not None and decision == "allow":
            allow_write.append(_path(inner, root))
        elif inner is not None:
            deny_write.append(_path(inner, root))
        inner = _inner(rule, "Read")
        if inner is not None and decision == "deny":
            deny_read.append(_path(inner, root))
        inner = _inner(rule, "WebFetch")
        if inner is not None and inner.startswith("domain:"):
            (domains if decision == "allow" else denied).append(inner[len("domain:") :])
    config: dict[str, Any] = {
        "filesystem": {
            "allowWrite": _unique(allow_write),
            "denyWrite": _unique(deny_write),
            "denyRead": _unique(deny_read),
            "allowRead": paths("allowRead"),
        },
        "network": {"allowedDomains": _unique(domains), "deniedDomains": _unique(denied)},
    }
    network: dict[str, Any] = config["network"]
    for key in ("allowUnixSockets", "allowAllUnixSockets", "allowLocalBinding"):
        if key in net:
            network[key] = net[key]
    if isinstance(box.settings.get("credentials"), dict):
        config["credentials"] = box.settings["credentials"]
    return config


def _object(settings: dict[str, Any], key: str) -> dict[str, Any]:
    value = settings.get(key)
    return value if isinstance(value, dict) else {}


def _inner(rule: str, tool: str) -> str | None:
    if rule.startswith(tool + "(") and rule.endswith(")"):
        return rule[len(tool) + 1 : -1].strip() or None
    return None


def _path(pattern: str, root: Path) -> str:
    """A host path pattern as an absolute one: ``//abs`` from the file-system root, ``~/x``
    from home, anything else from the project root; a trailing ``/**`` is the directory."""
    if pattern.endswith("/**"):
        pattern = pattern[:-3] or "/"
    if pattern.startswith("//"):
        return pattern[1:]
    if pattern.startswith("~"):
        return os.path.expanduser(pattern)
    return str(root / pattern.lstrip("/").removeprefix("./"))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def find_runtime() -> tuple[list[str] | None, str]:
    """The sandbox runtime's argv prefix and ``""``, or None and why it cannot run here.

    ``$CTX_TREE_SRT``, else ``srt`` on PATH; on Linux it also needs ``bwrap`` and ``socat``
    (Debian: ``apt-get install bubblewrap socat``)."""
    srt = os.environ.get(SRT_ENV) or shutil.which("srt")
    if not srt or not os.access(srt, os.X_OK):
        return None, (
            "the sandbox runtime `srt` is not installed "
            "(npm install -g @anthropic-ai/sandbox-runtime, or set CTX_TREE_SRT)"
        )
    if sys.platform.startswith("linux"):
        missing = [tool for tool in ("bwrap", "socat") if not shutil.which(tool)]
        if missing:
            return None, f"{' and '.join(missing)} not found (apt-get install bubblewrap socat)"
    return [srt], ""


def plan_for(root: Path, command: str, private_dir: Path) -> Plan:
    """How ``command`` runs under the host's sandbox settings.

    Raises :class:`SandboxRefused` when the sandbox is on, cannot start and
    ``sandbox.failIfUnavailable`` is true. ``private_dir`` (0700) receives
    the runtime's settings file for this run."""
    box = host_sandbox(root) or codex_box(root)
    if box is None:
        return Plan(command)
    excluded = [p for p in box.settings.get("excludedCommands") or [] if isinstance(p, str)]
    if excluded and _all_excluded(command, excluded):
        return Plan(command, note="outside the host's sandbox: sandbox.excludedCommands")
    runtime, why = find_runtime()
    if runtime is None:
        if box.settings.get("failIfUnavailable") is True:
            raise SandboxRefused(
                f"the host's sandbox is on ({box.source}) but cannot start here: {why}; "
                "sandbox.failIfUnavailable is true, so nothing ran"
            )
        return Plan(command, note=f"ran WITHOUT the host's sandbox ({box.source}): {why}")
    private_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="srt-", suffix=".json", dir=private_dir)
    with os.fdopen(fd, "w") as f:
        json.dump(srt_config(box, root), f)
    # srt needs ripgrep on PATH: the one this install ships comes first.
    from ctx_tree_mcp.engines.shell.run import user_shell

    scripts = sysconfig.get_path("scripts")
    shell = user_shell()
    wrapped = (
        f'PATH={shlex.quote(scripts)}:"$PATH" exec {shlex.join(runtime)} '
        f"--settings {shlex.quote(name)} -- {shlex.quote(shell)} -c {shlex.quote(command)}"
    )
    return Plan(wrapped, note=box.note, config=Path(name))


def codex_box(root: Path, argv: list[str] | None = None) -> HostSandbox | None:
    """Codex's sandbox mode (:mod:`.codex`) as the confinement to apply, or None when this
    server does not run under Codex or Codex runs commands unconfined."""
    from ctx_tree_mcp.engines.shell.codex import codex_sandbox

    codex = codex_sandbox(root, argv)
    if codex is None or codex["mode"] == "danger-full-access":
        return None
    writable = codex["mode"] == "workspace-write"
    note = None
    if writable and codex["network_access"]:
        note = (
            "the network stays closed: Codex's network_access has no equivalent in the "
            "sandbox runtime (it allows listed hosts only)"
        )
    settings = {
        "enabled": True,
        "failIfUnavailable": True,
        "filesystem": {"allowWrite": codex["writable_roots"] if writable else []},
    }
    source = f"Codex sandbox_mode {codex['mode']} ({codex['source']})"
    return HostSandbox(settings, source, [], project_writable=writable, note=note)


def _all_excluded(command: str, patterns: list[str]) -> bool:
    simple = [" ".join(words) for words in simple_commands(command)]
    return bool(simple) and all(any(permissions.matches(p, c) for p in patterns) for c in simple)


class SandboxRefused(CtxTreeError):
    """The host's sandbox is on, cannot start, and the host's settings say to refuse."""
