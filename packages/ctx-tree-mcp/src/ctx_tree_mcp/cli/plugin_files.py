"""The files generated from the wire (docs/architecture.md, "The wire").

- ``wire/generated.json``: the defaults and minimums of the config sections the hooks read
  (from ``ctx_tree_schema``), the redaction rules' trigger literals (from ``wire/redact.py``)
  and the denylist's refusal words (``wire/denylist.py``);
- ``plugin/hooks/vendor/ctx_tree_mcp/``: the plugin's copy of the wire, byte for byte (with
  the package's ``__init__.py``), which the hook imports by its own path;
- ``plugin/hooks/hooks.json``: Claude Code's hook table, from ``wire/hosts/claude.py``.

``python -m ctx_tree_mcp.cli.plugin_files`` writes what differs; ``--check`` only lists it
and exits 1 (``test_mcp_plugin_files.py`` fails the same way). Run it after changing anything
under ``wire/`` or the config defaults. Needs a clone (the plugin directory beside the
packages).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: The ctx-tree-mcp package directory (``…/src/ctx_tree_mcp``).
PACKAGE = Path(__file__).resolve().parent.parent
#: The plugin directory of the clone this file is in.
PLUGIN = PACKAGE.parents[3] / "plugin"
#: Where the plugin's copy of the wire lies, under the plugin directory.
COPY = Path("hooks") / "vendor"
#: The files of the wire the copy holds (its modules, and the data generated for the hooks).
SUFFIXES = (".py", ".json")
DESCRIPTION = (
    "ctx-tree: capture prompts, native reads, greps, commands, fetches and answers into the "
    "local store, and point to the cheaper ctx-tree call before a costly native one "
    "(docs/capture.md)."
)


def generated_json() -> str:
    """The text of ``wire/generated.json``: what the hooks need computed ahead, each key from
    its one source: ``hook_defaults`` and ``minimums`` of the config sections the hooks read
    (:data:`~ctx_tree_mcp.wire.spool.SECTIONS`, from ``ctx_tree_schema``), the redaction
    rules' trigger literals and their characters (``wire/redact.py``) and the words every
    refused command holds (``wire/denylist.py``)."""
    from ctx_tree_schema import DEFAULTS, MINIMUMS

    from ctx_tree_mcp.wire import redact
    from ctx_tree_mcp.wire.denylist import REFUSAL_WORDS
    from ctx_tree_mcp.wire.spool import SECTIONS

    raw: dict[str, object] = dict(DEFAULTS)
    triggers = sorted({t for rule in redact._RULES for t in rule.triggers})
    data = {
        "generated_by": "python -m ctx_tree_mcp.cli.plugin_files: do not edit",
        "hook_defaults": {section: raw[section] for section in SECTIONS},
        "minimums": {k: v for k, v in MINIMUMS.items() if k.split(".")[0] in SECTIONS},
        "redact_triggers": triggers,
        "redact_letters": "".join(sorted({c for t in triggers for c in t})),
        "refusal_words": list(REFUSAL_WORDS),
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def hooks_json() -> str:
    """The text of ``plugin/hooks/hooks.json``: Claude Code's events, each with its matcher
    and the command running ``ctx_tree_hook.py`` through ``ctx_tree_hook.sh`` (a real
    interpreter, not a version manager's shim; failing open, quiet; in the background for
    the events that only capture), and first under PreToolUse the routing entry calling the
    plugin's server (``wire.route.claude_hook_entry``, docs/routing.md)."""
    from ctx_tree_mcp.wire.hosts import HOOK_TIMEOUT_S
    from ctx_tree_mcp.wire.hosts.claude import BACKGROUND, EVENTS
    from ctx_tree_mcp.wire.route import claude_hook_entry

    hooks: dict[str, list[dict[str, object]]] = {}
    for event, (arguments, matcher) in EVENTS.items():
        command = (
            f'sh "${{CLAUDE_PLUGIN_ROOT}}/hooks/ctx_tree_hook.sh" {arguments} 2>/dev/null || true'
        )
        group: dict[str, object] = {"matcher": matcher} if matcher else {}
        hook: dict[str, object] = {"type": "command", "command": command}
        if event in BACKGROUND:
            hook["async"] = True
        hook["timeout"] = HOOK_TIMEOUT_S
        group["hooks"] = [hook]
        hooks[event] = [claude_hook_entry(), group] if event == "PreToolUse" else [group]
    return json.dumps({"description": DESCRIPTION, "hooks": hooks}, indent=2) + "\n"


def wanted(plugin: Path = PLUGIN) -> dict[Path, bytes]:
    """Every generated file and the bytes it must hold."""
    generated = generated_json().encode()
    files = {
        PACKAGE / "wire" / "generated.json": generated,
        plugin / "hooks" / "hooks.json": hooks_json().encode(),
    }
    copy = plugin / COPY / "ctx_tree_mcp"
    files[copy / "__init__.py"] = (PACKAGE / "__init__.py").read_bytes()
    sources = {p for p in (PACKAGE / "wire").rglob("*") if p.suffix in SUFFIXES and p.is_file()}
    sources.add(PACKAGE / "wire" / "generated.json")  # it may not be written yet
    for source in sorted(sources):
        relative = source.relative_to(PACKAGE)
        data = generated if relative == Path("wire", "generated.json") else source.read_bytes()
        files[copy / relative] = data
    return files


def drift(plugin: Path = PLUGIN) -> tuple[dict[Path, bytes], list[Path]]:
    """``(files to write with their bytes, stale files to delete)``: what makes the generated
    files what :func:`wanted` says (both empty when nothing drifted)."""
    files = wanted(plugin)
    write = {}
    for path, data in files.items():
        try:
            if path.read_bytes() == data:
                continue
        except OSError:
            pass
        write[path] = data
    copy = plugin / COPY
    stale = (
        sorted(p for p in copy.rglob("*.py") if p not in files and "__pycache__" not in p.parts)
        if copy.is_dir()
        else []
    )
    return write, stale


def main(argv: list[str] | None = None) -> int:
    """Write the generated files (``--check``: only list what differs, exit 1 if anything)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m ctx_tree_mcp.cli.plugin_files",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--check", action="store_true", help="list what differs; change nothing")
    args = parser.parse_args(argv)
    if not (PLUGIN / "hooks" / "ctx_tree_hook.py").is_file():
        print(f"no plugin directory at {PLUGIN}: run this from a clone", file=sys.stderr)
        return 2
    write, stale = drift(PLUGIN)
    root = PLUGIN.parent
    for path in write:
        print(f"{'differs' if args.check else 'wrote'}: {path.relative_to(root)}")
    for path in stale:
        print(f"{'stale' if args.check else 'deleted'}: {path.relative_to(root)}")
    if args.check:
        return 1 if write or stale else 0
    for path, data in write.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for path in stale:
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
