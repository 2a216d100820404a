"""One module per host in ``ctx_tree_mcp/wire/hosts/``: each says what its hooks are and can do,
install has a row for each, and the answer of each puts a rewritten call where its ``REWRITE``
says (docs/architecture.md, "The wire")."""

from __future__ import annotations

import importlib
import json
import pkgutil

import pytest
from ctx_tree_mcp.cli.install import HOSTS
from ctx_tree_mcp.wire import hosts
from ctx_tree_mcp.wire.answer import Answer
from ctx_tree_mcp.wire.events import HOOK_EVENTS

NAMES = sorted(m.name for m in pkgutil.iter_modules(hosts.__path__))
#: Each host's pre-tool event, as its hooks name it.
PRE_TOOL = {
    "claude": "pre-tool",
    "codex": "pre-tool",
    "gemini": "BeforeTool",
    "copilot": "PreToolUse",
    "vscode": "PreToolUse",
    "cline": "PreToolUse",
    "cursor": "preToolUse",
    "opencode": "tool.execute.before",
}
#: Where each host that can rewrite a call takes the new input in the hook's answer.
REWRITTEN_AT = {
    "claude": ("hookSpecificOutput", "updatedInput"),
    "codex": ("hookSpecificOutput", "updatedInput"),
    "gemini": ("hookSpecificOutput", "tool_input"),
    "cursor": ("updated_input",),
    "opencode": ("args",),
}


def module(name: str):
    return importlib.import_module(f"ctx_tree_mcp.wire.hosts.{name}")


def test_every_host_module_has_an_install_row_and_each_row_with_hooks_a_module() -> None:
    assert set(NAMES) == {h.name for h in HOSTS.values() if h.hooks}
    assert set(NAMES) == set(PRE_TOOL)


@pytest.mark.parametrize("name", NAMES)
def test_a_host_module_says_what_its_hooks_are_and_can_do(name: str) -> None:
    host = module(name)
    assert host.EVENTS and all(isinstance(a, str) and a for a, _ in host.EVENTS.values())
    assert set(host.CONTEXT) <= set(host.EVENTS) | {e for e, _, _ in HOOK_EVENTS}
    assert isinstance(host.REWRITE, str)
    assert callable(host.translate) and callable(host.answer)
    assert host.translate("NoSuchEvent", {}) == []


@pytest.mark.parametrize("name", NAMES)
def test_a_rewritten_call_goes_where_the_host_takes_it(name: str) -> None:
    host = module(name)
    new = {"command": "ctx-tree bash 'pytest -q'"}
    out = host.answer(PRE_TOOL[name], [("pre-tool", Answer(decision="allow", updated_input=new))])
    if name not in REWRITTEN_AT:
        assert host.REWRITE == "" and "ctx-tree bash" not in out
        return
    assert host.REWRITE, name
    value = json.loads(out)
    for key in REWRITTEN_AT[name]:
        value = value[key]
    assert value == new


@pytest.mark.parametrize("name", NAMES)
def test_a_deny_and_nothing_to_say(name: str) -> None:
    """A deny reaches every host that can refuse a call before it runs; nothing to say is
    the host's own empty answer (Cline and Cursor read JSON always)."""
    host = module(name)
    out = host.answer(PRE_TOOL[name], [("pre-tool", Answer(decision="deny", reason="use X"))])
    assert "use X" in out
    quiet = host.answer(PRE_TOOL[name], [])
    assert quiet in ("", '{"cancel": false}', '{"permission": "allow"}')
