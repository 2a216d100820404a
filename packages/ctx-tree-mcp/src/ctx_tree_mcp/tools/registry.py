"""The tool registry: the ONE place that lists ctx-tree's tools.

Each tool is defined once, as a :class:`ToolSpec` in :data:`TOOLS`: its name, one-line
description, a typed input model (pydantic) with defaults and ranges, an example call that
works, its MCP annotations and its handler. Everything else is derived from it:

* the MCP ``tools/list`` entries and argument validation (``ctx_tree_mcp.serve.server``);
* the CLI verb and its flags, with range and default in ``--help`` (``ctx_tree_mcp.cli.main``);
* the start-up snapshot answered before the SDK has loaded (``ctx_tree_mcp.serve.snapshot``);
* the argument tables of ``docs/tools.md`` (kept equal by a test).

Add a tool
----------
1. Write ``ctx_tree_mcp/tools/<name>.py``: a ``DESCRIPTION`` (one line, the agent reads it on
   every turn), an input model and the handler ``def <name>(app, **arguments) -> str`` (async
   is fine). The model subclasses ``spec.Input``; every field has a default or is required,
   ranges as ``Field(ge=…, le=…)``, choices as ``Literal[…]``, and a ``spec.Cli`` marker with
   the help text shown in ``--help`` and ``docs/tools.md``::

       class Args(Input):
           path: Annotated[str, Cli("file, relative to the project root", positional=True)]
           depth: Annotated[int, Field(ge=1, le=5), Cli("hops")] = 1
           budget_tokens: Budget = 2000

   Shared argument types: ``spec.Budget``, ``spec.NodeId``. Then, in the same module,
   ``SPEC = ToolSpec(name="ctx_tree_<name>", description=DESCRIPTION, args=Args,
   handler=<name>, example={...})`` (the example is a call that works; errors show it).
2. Add it to :func:`_tools` below (the order is the ``tools/list`` order).
3. Run ``uv run ctx-tree-snapshot``: it rewrites the start-up snapshot and the argument tables
   in ``docs/tools.md``; then write the tool's section prose there.

Add a parameter
---------------
Add the field to the tool's input model (range, default, ``Cli`` help), the keyword to its
handler, then run ``uv run ctx-tree-snapshot``. The MCP schema, the CLI flag, the docs table
and the snapshot all follow. The handler receives every field, validated.

A CLI-only command (``ctx-tree walk``, ``stats`` …) is not a tool: see ``ctx_tree_mcp.cli.commands``.

Errors
------
A bad argument becomes a :class:`~ctx_tree_mcp.errors.ToolInputError` that names the argument,
says what is allowed and shows the tool's example call, in the syntax of the surface asking
(``ctx_tree_read(path=…)`` over MCP, ``ctx-tree read PATH …`` on the CLI; see
``ctx_tree_mcp.answers.surface``). No library text reaches the user.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.spec import Reply, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App


def _tools() -> tuple[ToolSpec, ...]:
    from ctx_tree_mcp.tools import bash, compose, get, graph, grep, note, read, search

    return (
        read.SPEC,
        grep.SPEC,
        search.SPEC,
        get.SPEC,
        compose.SPEC,
        graph.NEIGHBORS,
        graph.PATH_TO_ROOT,
        graph.RECENT,
        note.SPEC,
        bash.SPEC,
    )


#: Every tool, in ``tools/list`` order. The one list: add a tool here.
TOOLS: tuple[ToolSpec, ...] = _tools()
BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
BY_VERB: dict[str, ToolSpec] = {t.verb: t for t in TOOLS}


def tool(name: str) -> ToolSpec:
    """The tool called ``name``. Raises :class:`ToolInputError` (``name``) for an unknown one."""
    spec = BY_NAME.get(name)
    if spec is None:
        raise ToolInputError("name", f"unknown tool {name!r}; tools: {', '.join(BY_NAME)}")
    return spec


#: Tools that answer from an in-memory copy of the store when its disk is full (they only
#: store what they read: running them again changes nothing outside).
FROM_MEMORY = frozenset({"ctx_tree_read", "ctx_tree_grep"})


async def run_tool(app: App, name: str, arguments: Mapping[str, Any] | None) -> str:
    """:func:`call_tool`'s answer text."""
    return (await call_tool(app, name, arguments)).text


async def call_tool(app: App, name: str, arguments: Mapping[str, Any] | None) -> Reply:
    """Validate ``arguments`` and run the tool's handler over ``app``; returns its text,
    redacted (:func:`ctx_tree_mcp.wire.redact.redact_text`) as every answer is when it leaves, on
    the MCP and the CLI surface alike: answers echo arguments, and stored text may predate a
    redaction rule (docs/security.md), and its exit status (0 but for ``ctx_tree_bash``).

    Raises :class:`ToolInputError` for bad input (the handler's own checks included), and
    the store's faults (``StoreFull``, ``StoreGone``, ``StoreUnwritable``; see
    ``ctx_tree_mcp.app.fault_message``).
    """
    from ctx_tree_store import StoreFull

    spec = tool(name)
    values = spec.validate(arguments)
    app.stores.check()  # a store deleted since the last call is opened anew
    app.calls.start()  # the project index and its workers wait meanwhile (indexer.py)
    try:
        try:
            result = spec.handler(app, **values)
            if inspect.isawaitable(result):
                result = await result
        except StoreFull as exc:
            # a full disk: reads and greps answer from memory, as on a read-only store
            if name not in FROM_MEMORY or not app.stores.full(exc):
                raise
            result = spec.handler(app, **values)
            if inspect.isawaitable(result):
                result = await result
    finally:
        app.calls.end()
    from ctx_tree_mcp.wire.redact import redact_text

    text, status = result if isinstance(result, Reply) else (result, 0)
    # plus one line when nothing is being stored
    return Reply(app.stores.answer(redact_text(text)), status)


def tools_list() -> list[dict[str, Any]]:
    """Every tool's ``tools/list`` entry, in order."""
    return [t.mcp_tool() for t in TOOLS]


def to_json(value: Any) -> str:
    """Stable JSON for snapshots and comparisons."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
