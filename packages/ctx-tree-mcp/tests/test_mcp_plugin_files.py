"""The files generated from the wire (``python -m ctx_tree_mcp.cli.plugin_files``) are what the
wire says: the plugin's copy byte for byte, ``hooks.json`` from the event table, and the hooks'
defaults from the schema. Each test fails on its own kind of drift."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ctx_tree_mcp.cli import plugin_files
from ctx_tree_mcp.cli.plugin_files import COPY, PACKAGE, PLUGIN, drift, main, wanted
from ctx_tree_mcp.wire.events import HOOK_EVENTS, KINDS
from ctx_tree_mcp.wire.hosts.claude import EVENTS
from ctx_tree_mcp.wire.route import claude_hook_entry

RUN = "uv run --frozen python -m ctx_tree_mcp.cli.plugin_files"


def _fix_hint(paths: object) -> str:
    return f"generated files differ from the wire ({paths}); run: {RUN}"


def test_the_plugins_copy_of_the_wire_is_byte_equal() -> None:
    copy = PLUGIN / COPY
    files = {p: d for p, d in wanted().items() if copy in p.parents}
    assert len(files) >= 15  # the package's __init__ and every module of wire/
    differs = [p for p, data in files.items() if not p.is_file() or p.read_bytes() != data]
    assert differs == [], _fix_hint(differs)
    _write, stale = drift()
    assert stale == [], _fix_hint(stale)


def test_hooks_json_is_the_event_table() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == [claude for _, claude, _ in HOOK_EVENTS]
    for name, claude, matcher in HOOK_EVENTS:
        *routing, group = hooks[claude]
        assert group.get("matcher") == EVENTS[claude][1], _fix_hint(claude)
        if name == "pre-tool":  # the routed tools are the routing entry's (docs/routing.md)
            assert routing == [claude_hook_entry()]
            assert group["matcher"] == "Grep|mcp__.*ctx_tree_bash" and "Bash" in str(matcher)
        else:
            assert routing == [] and group.get("matcher") == matcher
        (hook,) = group["hooks"]
        assert hook["command"].split('ctx_tree_hook.sh" ')[1].startswith(name + " ")
        assert hook.get("async", False) is (claude in ("PostToolUse", "PostToolUseFailure"))
    post = hooks["PostToolUse"][-1]["matcher"].split("|")
    assert post == [t for k in KINDS if "post-tool" in k.events for t in k.tools]
    assert (PLUGIN / "hooks" / "hooks.json").read_text() == plugin_files.hooks_json()


def test_the_hooks_defaults_are_the_schemas() -> None:
    text = (PACKAGE / "wire" / "generated.json").read_text()
    assert text == plugin_files.generated_json(), _fix_hint("wire/generated.json")


def test_a_drift_of_each_kind_is_found_and_mended(tmp_path: Path) -> None:
    """A changed, a missing and a stale file of a copy of the plugin are each reported (the
    check exits 1), then written back; generated.json and hooks.json are checked the same way."""
    plugin = tmp_path / "plugin"
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__"))
    wire = plugin / COPY / "ctx_tree_mcp" / "wire"
    (wire / "spool.py").write_text((wire / "spool.py").read_text() + "\n# edited by hand\n")
    (wire / "cut.py").unlink()
    (wire / "old_module.py").write_text("")
    (plugin / "hooks" / "hooks.json").write_text("{}")
    write, stale = drift(plugin)
    assert {p.name for p in write} == {"spool.py", "cut.py", "hooks.json"}
    assert stale == [wire / "old_module.py"]
    for path, data in write.items():
        path.write_bytes(data)
    for path in stale:
        path.unlink()
    assert drift(plugin) == ({}, [])


def test_the_command_checks_and_writes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(plugin_files, "PLUGIN", plugin)
    assert main(["--check"]) == 0
    (plugin / COPY / "ctx_tree_mcp" / "wire" / "events.py").write_text("")
    assert main(["--check"]) == 1
    assert main([]) == 0
    assert main(["--check"]) == 0


def test_every_kind_of_the_event_table_has_its_handler_and_switch() -> None:
    """Adding a captured kind is a row of the event table and its ingest handler: a row
    without a handler, or whose switch the config does not know, fails here."""
    from ctx_tree_mcp.capture.ingest import _HANDLERS, SWITCH
    from ctx_tree_schema import DEFAULTS

    assert set(_HANDLERS) == {k.name for k in KINDS} == set(SWITCH)
    assert {k.switch for k in KINDS} <= set(DEFAULTS["capture"])
