"""The host's sandbox, applied to a ``ctx_tree_bash`` command when the host's settings turn it on.

When Claude Code's settings say ``"sandbox": {"enabled": true}``, its native Bash runs under
``@anthropic-ai/sandbox-runtime`` (``srt``: bubblewrap and socat on Linux, Seatbelt on macOS).
``ctx_tree_bash`` then runs its command under the same runtime with the same confinement: the
project and the temp dir writable plus ``sandbox.filesystem.allowWrite`` and ``Edit(...)`` allow
rules; ``denyWrite``, ``denyRead`` (and ``Read(...)`` deny rules), ``allowRead``; the network
limited to ``sandbox.network.allowedDomains`` and ``WebFetch(domain:…)`` allow rules (a host no
rule allows is refused: there is no one to ask); ``sandbox.credentials`` (variables and files it
hides) passed on as they are. ``sandbox.excludedCommands`` run outside it, as for the host.

When the runtime cannot start (no ``srt``, on Linux no ``bwrap``/``socat``, or a kernel or
container where bubblewrap cannot make its namespaces: unprivileged user namespaces off),
``sandbox.failIfUnavailable`` decides as it does for the host: true refuses the command, false
runs it with a one-line warning. That is found before the command runs (a throwaway
bubblewrap sandbox, once per process) and, should the runtime fail anyway, after: the
sandboxed shell prints a token before it runs the command, so a run that never printed it
never ran (:func:`never_ran`), and is refused or run outside as above, never answered with
the runtime's own error as the command's. ``allowUnsandboxedCommands`` needs no mapping:
ctx_tree_bash offers no way to ask for a run outside the sandbox. See ``docs/security.md``.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ctx_tree_mcp.errors import CtxTreeError
from ctx_tree_mcp.wire import permissions
from ctx_tree_mcp.wire.denylist import simple_commands

__all__ = [
    "Plan",
    "bwrap_refusal",
    "find_runtime",
    "host_sandbox",
    "never_ran",
    "plan_for",
    "srt_config",
    "unavailable",
]

#: Where srt is looked for first: a path to its ``srt`` (or ``cli.js``) executable.
SRT_ENV = "CTX_TREE_SRT"


@dataclass(frozen=True)
class Plan:
    """How one command runs: ``command`` is the shell line to run (the original, or one that
    execs the runtime around it), ``note`` a line for the answer or None, ``config`` the
    runtime's settings file to remove after the run (None when unsandboxed). Sandboxed:
    ``started`` is the line the sandboxed shell prints before the command (:func:`never_ran`),
    ``box`` what turned the sandbox on."""

    command: str
    note: str | None = None
    config: Path | None = None
    started: bytes | None = None
    box: HostSandbox | None = None


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
        refused = bwrap_refusal(shutil.which("bwrap") or "bwrap")
        if refused is not None:
            return None, refused
    return [srt], ""


#: A throwaway bubblewrap sandbox with the namespaces the runtime's sandbox has (its own
#: user, PID and network namespaces, a fresh /proc): where it cannot start, neither can that.
BWRAP_PROBE = (
    "--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
    "--unshare-pid", "--unshare-net", "true",
)  # fmt: skip
#: What to do when bubblewrap cannot make its namespaces.
NAMESPACES_FIX = (
    "user namespaces are off here: allow them (sysctl kernel.unprivileged_userns_clone=1, "
    "user.max_user_namespaces > 0) or turn the host's sandbox off"
)


@lru_cache(maxsize=4)
def bwrap_refusal(bwrap: str) -> str | None:
    """None when ``bwrap`` can make a sandbox here, else why not with what to do (found once
    per process and executable: about 10 ms)."""
    try:
        done = subprocess.run(
            [bwrap, *BWRAP_PROBE], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap does not run ({exc})"
    if done.returncode == 0:
        return None
    said = done.stderr.strip().splitlines()
    told = said[-1] if said else f"exit {done.returncode}"
    return f"bubblewrap cannot start ({told}); {NAMESPACES_FIX}"


def never_ran(plan: Plan, output: bytes) -> tuple[bytes, str | None]:
    """``output`` of a run of ``plan`` without the line the sandboxed shell printed first,
    and None; or, when that line is not there (the runtime failed before the command
    started), the output as it is and the runtime's words for why (its last lines)."""
    if plan.started is None:
        return output, None
    at = output.find(plan.started)
    if at >= 0:
        return output[:at] + output[at + len(plan.started) :], None
    said = output.decode("utf-8", "replace").strip().splitlines()
    return output, " / ".join(line.strip() for line in said[-3:]) or "it printed nothing"


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
        return unavailable(box, command, why)
    private_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="srt-", suffix=".json", dir=private_dir)
    with os.fdopen(fd, "w") as f:
        json.dump(srt_config(box, root), f)
    # srt needs ripgrep on PATH: the one this install ships comes first.
    from ctx_tree_mcp.engines.shell.run import user_shell

    scripts = sysconfig.get_path("scripts")
    shell = user_shell()
    # Inside the sandbox a plain sh prints a token line, then execs the user's shell with the
    # command (as $0 and $1: no quoting to get wrong): no token, the command never ran.
    started = f"ctx-tree-started-{secrets.token_hex(8)}\n"
    inner = f'printf \'%s\\n\' {started.strip()}; exec "$0" -c "$1"'
    wrapped = (
        f'PATH={shlex.quote(scripts)}:"$PATH" exec {shlex.join(runtime)} '
        f"--settings {shlex.quote(name)} -- /bin/sh -c {shlex.quote(inner)} "
        f"{shlex.quote(shell)} {shlex.quote(command)}"
    )
    return Plan(wrapped, note=box.note, config=Path(name), started=started.encode(), box=box)


def unavailable(box: HostSandbox, command: str, why: str) -> Plan:
    """The plan when the sandbox ``box`` asks for cannot start (``why``): refused with
    :class:`SandboxRefused` when ``sandbox.failIfUnavailable`` is true, else ``command`` run
    outside it with a note saying so."""
    if box.settings.get("failIfUnavailable") is True:
        raise SandboxRefused(
            f"the host's sandbox is on ({box.source}) but cannot start here: {why}; "
            "sandbox.failIfUnavailable is true, so nothing ran"
        )
    return Plan(command, note=f"ran WITHOUT the host's sandbox ({box.source}): {why}")


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
