"""Which surface an answer is written for, MCP (the default), the CLI or the host's shell, and
the one place that writes a call, a tool name or an argument name in that surface's syntax.

Hints (``next:`` lines, "use … to find one") and errors must be something the reader can type:
over MCP ``ctx_tree_read(path="a.py", start_line=170)``, on the CLI
``ctx-tree read a.py --lines 170:``, and in an answer to a routed shell command (docs/routing.md)
the native command ``sed -n '170,220p' a.py`` where there is one, else the CLI's. Handlers never
format calls themselves; they call :func:`call`, :func:`tool_ref` and :func:`argument_name`.
The CLI runs its command inside :func:`cli_surface`, a routed answer inside
:func:`shell_surface`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel


class _CliMarker(Protocol):
    @property
    def positional(self) -> bool: ...


class _Sugar(Protocol):
    @property
    def flag(self) -> str: ...
    @property
    def fields(self) -> tuple[str, ...]: ...
    def render(self, values: Mapping[str, Any], /) -> str | None: ...


class _SpecView(Protocol):
    """What this module reads of a tool's spec (``tools.spec.ToolSpec`` has it); a protocol, so
    this module imports nothing of ours and the spec may import it."""

    @property
    def name(self) -> str: ...
    @property
    def args(self) -> type[BaseModel]: ...
    @property
    def sugar(self) -> Sequence[_Sugar]: ...
    @property
    def verb(self) -> str: ...
    def cli_of(self, name: str, /) -> _CliMarker: ...
    def flag_of(self, name: str, /) -> str: ...


#: ``"mcp"``, ``"cli"`` or ``"shell"``; a context variable, so concurrent MCP calls are unaffected.
SURFACE: ContextVar[str] = ContextVar("ctx_tree_surface", default="mcp")
#: The tools by name while a CLI command runs, for their verbs and flags (MCP syntax needs
#: none); given by the caller, so this module does not depend on the tool registry.
_CLI_TOOLS: ContextVar[Mapping[str, _SpecView] | None] = ContextVar(
    "ctx_tree_cli_tools", default=None
)

#: While a CLI tool verb runs: its tool name and, per argument it sets, the flag typed for it
#: (``--start-line`` or ``--lines``), so an error names the flag the user gave.
_TYPED: ContextVar[tuple[str, Mapping[str, str]] | None] = ContextVar(
    "ctx_tree_typed_flags", default=None
)


@contextmanager
def typed_flags(tool: str, flags: Mapping[str, str]) -> Iterator[None]:
    """Within the block, :func:`argument_name` names ``tool``'s arguments by the flag in
    ``flags`` (argument name → the flag the command line set it with)."""
    token = _TYPED.set((tool, flags))
    try:
        yield
    finally:
        _TYPED.reset(token)


@contextmanager
def cli_surface(tools: Mapping[str, _SpecView]) -> Iterator[None]:
    """Within the block, hints and errors are written in CLI syntax, with the verbs and flags
    of ``tools`` (the registry's ``BY_NAME``)."""
    token, tools_token = SURFACE.set("cli"), _CLI_TOOLS.set(tools)
    try:
        yield
    finally:
        SURFACE.reset(token)
        _CLI_TOOLS.reset(tools_token)


@contextmanager
def shell_surface(tools: Mapping[str, _SpecView]) -> Iterator[None]:
    """Within the block, hints are written as shell commands: a line range as ``sed -n``
    (:func:`shell_call`), anything else as the CLI writes it (``tools`` as for
    :func:`cli_surface`)."""
    token, tools_token = SURFACE.set("shell"), _CLI_TOOLS.set(tools)
    try:
        yield
    finally:
        SURFACE.reset(token)
        _CLI_TOOLS.reset(tools_token)


def on_cli() -> bool:
    """True while a CLI command runs, or a routed shell command is answered (hints are then
    written as commands)."""
    return SURFACE.get() in ("cli", "shell")


def on_shell() -> bool:
    """True while a routed shell command is answered (:func:`shell_surface`)."""
    return SURFACE.get() == "shell"


def shell_call(tool: str, values: Mapping[str, object]) -> str | None:
    """The native command for a call, when there is one: ``ctx_tree_read`` of a line range is
    ``sed -n 'A,Bp' PATH``, or ``nl -ba PATH | sed -n 'A,Bp'`` with numbers (the default);
    None for any other call."""
    if tool != "ctx_tree_read" or set(values) - {"path", "start_line", "end_line", "numbers"}:
        return None
    if "start_line" not in values and "end_line" not in values:
        return None
    first = values.get("start_line") or 1
    last = values.get("end_line")
    script = f"{first},{'$' if last is None else last}p"
    path = shlex.quote(str(values["path"]))
    if values.get("numbers", True) is False:
        return f"sed -n {shlex.quote(script)} {path}"
    return f"nl -ba {path} | sed -n {shlex.quote(script)}"


def call(tool: str, **args: object) -> str:
    """An exact call of ``tool`` with ``args`` (``None`` values left out), in the surface's
    syntax: ``ctx_tree_get(node_id="01J…", offset=120)``, ``ctx-tree get 01J… --offset 120``,
    or in a routed answer ``sed -n '120,180p' a.py`` for a line range."""
    values = {k: v for k, v in args.items() if v is not None}
    if on_shell():
        native = shell_call(tool, values)
        if native is not None:
            return native
    if on_cli():
        spec = _spec(tool)
        if spec is not None:
            return cli_call(spec, values)
    parts = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in values.items()]
    return f"{tool}({', '.join(parts)})"


def tool_ref(tool: str) -> str:
    """How to name a tool: ``ctx_tree_search`` over MCP, ``ctx-tree search`` on the CLI."""
    spec = _spec(tool) if on_cli() else None
    return f"ctx-tree {spec.verb}" if spec else tool


def argument_name(spec: _SpecView | str, name: str) -> str:
    """How to name one of a tool's arguments: ``start_line`` over MCP; on the CLI the flag the
    command line set it with (:func:`typed_flags`), else its flag (``--lines``)."""
    if not on_cli():
        return name
    found = _spec(spec) if isinstance(spec, str) else spec
    if found is None or name not in found.args.model_fields:
        return name
    typed = _TYPED.get()
    if typed is not None and typed[0] == found.name and name in typed[1]:
        return typed[1][name]
    for sugar in found.sugar:
        if name in sugar.fields:
            return sugar.flag
    return found.flag_of(name)


def cli_call(spec: _SpecView, values: Mapping[str, Any]) -> str:
    """``values`` as a ``ctx-tree`` command line (shell-quoted)."""
    rest = dict(values)
    words = ["ctx-tree", spec.verb]
    for name in spec.args.model_fields:
        if spec.cli_of(name).positional and name in rest:
            value = rest.pop(name)
            words += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    for sugar in spec.sugar:
        if any(f in rest for f in sugar.fields):
            text = sugar.render(rest)
            if text is not None:
                words += [sugar.flag, text]
                for f in sugar.fields:
                    rest.pop(f, None)
    for name, value in rest.items():
        flag = spec.flag_of(name)
        if isinstance(value, bool):
            default = spec.args.model_fields[name].default
            if value != default:
                words.append(flag if value else "--no-" + flag.removeprefix("--"))
        elif isinstance(value, list):
            for item in value:
                words += [flag, str(item)]
        elif isinstance(value, dict):
            words += [flag, json.dumps(value, ensure_ascii=False)]
        else:
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) if w != "…" else w for w in words)


def _spec(tool: str) -> _SpecView | None:
    tools = _CLI_TOOLS.get()
    return None if tools is None else tools.get(tool)
