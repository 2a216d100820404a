"""Codex CLI's sandbox mode, read the way Codex reads it, for a ``ctx_tree_bash`` run under Codex.

When the server's ancestor is ``codex`` (Linux: ``/proc``), its shell tool runs commands in
``sandbox_mode`` ``read-only`` (nothing writable), ``workspace-write`` (the project, the temp
dir and ``[sandbox_workspace_write] writable_roots``; no network unless ``network_access``) or
``danger-full-access`` (no sandbox). The mode comes, highest first, from the ``codex`` command
line (``-s``/``--sandbox``, ``--full-auto``, ``--dangerously-bypass-approvals-and-sandbox``/
``--yolo``, ``-c sandbox_mode=…``), the active profile (``-p``/``--profile`` or ``profile``),
the project's ``.codex/config.toml``, ``$CODEX_HOME/config.toml`` (``~/.codex``); unset, a
project Codex trusts (``[projects."<root>"] trust_level = "trusted"``) is ``workspace-write``,
any other ``read-only``. ``approval_policy`` is not mapped (see docs/security.md).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from ctx_tree_mcp.wire.permissions import ancestor_argv

__all__ = ["codex_sandbox"]

MODES = ("read-only", "workspace-write", "danger-full-access")


def _load(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _flags(argv: list[str]) -> tuple[str | None, str | None, dict[str, str]]:
    """``(sandbox mode, profile, -c overrides)`` from a ``codex`` command line."""
    mode = profile = None
    overrides: dict[str, str] = {}
    for i, arg in enumerate(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if arg in ("-s", "--sandbox"):
            mode = value
        elif arg.startswith("--sandbox="):
            mode = arg.split("=", 1)[1]
        elif arg == "--full-auto":
            mode = mode or "workspace-write"
        elif arg in ("--dangerously-bypass-approvals-and-sandbox", "--yolo"):
            mode = "danger-full-access"
        elif arg in ("-p", "--profile"):
            profile = value
        elif arg in ("-c", "--config") and "=" in value:
            key, raw = value.split("=", 1)
            overrides[key.strip()] = raw.strip().strip("\"'")
    return mode, profile, overrides


def codex_sandbox(
    root: Path, argv: list[str] | None = None, env: dict[str, str] | None = None
) -> dict[str, Any] | None:
    """Codex's sandbox for ``root`` as ``{"mode", "writable_roots", "network_access",
    "source"}``, or None when this process does not run under ``codex`` (``argv`` overrides
    the ancestor's command line; tests)."""
    argv = argv if argv is not None else ancestor_argv(("codex",))
    if argv is None:
        return None
    environ: dict[str, str] = dict(os.environ) if env is None else env
    home = Path(
        environ.get("CODEX_HOME") or Path(environ.get("HOME") or "~").expanduser() / ".codex"
    )
    user, project = _load(home / "config.toml"), _load(root / ".codex" / "config.toml")
    mode, profile_name, overrides = _flags(argv)
    profile_name = profile_name or project.get("profile") or user.get("profile")
    layers: list[tuple[dict[str, Any], str]] = [(overrides, "-c")]
    for config, where in ((project, "the project's .codex/config.toml"), (user, str(home))):
        profiles = config.get("profiles")
        chosen = profiles.get(profile_name) if isinstance(profiles, dict) else None
        if isinstance(chosen, dict):
            layers.append((chosen, f"profile {profile_name} in {where}"))
        layers.append((config, where))
    source = "the codex command line" if mode else ""
    if not mode:
        for layer, where in layers:
            if isinstance(layer.get("sandbox_mode"), str):
                mode, source = layer["sandbox_mode"], where
                break
    if not mode:
        projects = user.get("projects")
        entry = projects.get(str(root)) if isinstance(projects, dict) else None
        trusted = isinstance(entry, dict) and entry.get("trust_level") == "trusted"
        mode = "workspace-write" if trusted else "read-only"
        source = "Codex's default for a " + ("trusted" if trusted else "untrusted") + " project"
    if mode not in MODES:
        mode, source = "read-only", f"an unknown sandbox_mode {mode!r}, read as read-only"
    write: dict[str, Any] = {}
    for layer, _where in reversed(layers):
        table = layer.get("sandbox_workspace_write")
        if isinstance(table, dict):
            write.update(table)
    network = write.get("network_access") is True or overrides.get(
        "sandbox_workspace_write.network_access"
    ) in ("true", "1")
    roots = [str(p) for p in write.get("writable_roots") or [] if isinstance(p, str)]
    return {"mode": mode, "writable_roots": roots, "network_access": network, "source": source}
