"""``ctx-tree``: the human CLI. One verb per MCP tool, built from the tool registry (every tool
argument is a flag with its range and default in ``--help``), plus the housekeeping commands
of ``ctx_tree_mcp.cli.commands``.

    ctx-tree read PATH [--symbol S | --lines A:B | --query Q] [--budget N]
    ctx-tree grep PATTERN [PATH] [--glob G] [-i] [-F] [-C N] [--budget N]
    ctx-tree search QUERY [--mode keyword|semantic|hybrid] [--limit N] [--kind K]
    ctx-tree walk | reembed | stats | demo [PATH] | serve | inspect [PATH]     ctx-tree --help for all

``--root`` is accepted before or after the verb. Hints and errors are written in CLI syntax.
Exit status: 0 on success, 2 for bad input (the message names the flag), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import types
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp import __version__
from ctx_tree_mcp.errors import ToolInputError, config_error, number_flag

if TYPE_CHECKING:
    from ctx_tree_mcp.cli.commands import Command
    from ctx_tree_mcp.tools.spec import ToolSpec

PACKAGES = (
    "ctx-tree-mcp",
    "ctx-tree-schema",
    "ctx-tree-store",
    "ctx-tree-chunk",
    "ctx-tree-compose",
    "ctx-tree-walkers",
)
ROOT_HELP = "project root (default: $CLAUDE_PROJECT_DIR or the current directory)"


def versions() -> str:
    """One line: ``ctx-tree 0.1.0 (ctx-tree-mcp 0.1.0, ctx-tree-schema 0.1.0, …)``."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in PACKAGES:
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} not installed")
    return f"ctx-tree {__version__} ({', '.join(parts)})"


class _Version(argparse.Action):
    """``--version``: computed only when asked (package metadata lookups cost ~10 ms)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(versions())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``ctx-tree`` argument parser: one verb per tool, plus the housekeeping commands."""
    from ctx_tree_mcp.cli.commands import COMMANDS
    from ctx_tree_mcp.tools.registry import TOOLS

    parser = argparse.ArgumentParser(
        prog="ctx-tree",
        description="Local-first context store for coding agents: budgeted reads and greps, stored in full.",
        epilog="Store: $CTX_TREE_HOME (default ~/.ctx-tree). `ctx-tree VERB --help` for a verb's flags.",
    )
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--root", help=ROOT_HELP)
    # The same option after the verb; SUPPRESS keeps a value given before the verb.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=argparse.SUPPRESS, help=ROOT_HELP)
    # not required here, so an unknown option is named before a missing verb (main checks it)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verbs = {spec.name: spec.verb for spec in TOOLS}
    for spec in TOOLS:
        said = _in_cli_words(spec, spec.description, verbs)
        p = sub.add_parser(
            spec.verb,
            help=spec.help or said.split(". ")[0],
            description=said,
            parents=[common],
        )
        _add_tool_arguments(p, spec)
        p.set_defaults(_tool=spec.name)
    for command in COMMANDS:
        said = command.help[:1].upper() + command.help[1:] + "."
        p = sub.add_parser(command.name, help=command.help, description=said, parents=[common])
        if command.arguments:
            command.arguments(p)
        p.set_defaults(_command=command)
    return parser


def _in_cli_words(spec: ToolSpec, text: str, verbs: dict[str, str]) -> str:
    """A tool's description as the CLI says it: its arguments by their flags (``budget_tokens``
    is ``--budget``, ``node_id`` is ``NODE_ID``) and other tools by their verbs
    (``ctx_tree_get`` is ``ctx-tree get``)."""
    text = re.sub(
        r"\bctx_tree_\w+", lambda m: f"ctx-tree {verbs[m[0]]}" if m[0] in verbs else m[0], text
    )
    for name in spec.args.model_fields:
        text = re.sub(rf"(?<![\w-]){name}\b", spec.flag_of(name), text)
    return text


def _plain(annotation: Any) -> tuple[Any, bool]:
    """(``X``, optional) for ``X | None``; (annotation, False) otherwise."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else annotation), True
    return annotation, False


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def _number_flag(spec: ToolSpec, name: str, whole: bool) -> Any:
    """The ``type=`` of a numeric tool flag: a bad value names the flag, an example and the
    range (``--budget abc`` said only ``invalid int value: 'abc'``)."""
    from ctx_tree_mcp.tools.spec import compact_schema, range_text

    info = spec.args.model_fields[name]
    schema = compact_schema(spec.args.model_json_schema()["properties"][name])
    span = range_text(schema)
    example = info.default if isinstance(info.default, (int, float)) else None
    if example is None or isinstance(example, bool):
        example = schema.get("minimum", 1)
    return number_flag(spec.flag_of(name), example, "" if span == "—" else span, whole=whole)


def _help_of(spec: ToolSpec, name: str) -> str:
    from ctx_tree_mcp.tools.spec import describe, range_text

    info = spec.args.model_fields[name]
    schema = spec.args.model_json_schema()["properties"][name]
    from ctx_tree_mcp.tools.spec import compact_schema

    schema = compact_schema(schema)
    parts = []
    span = range_text(schema)
    if span != "—":
        parts.append(span)
    elif schema.get("type") == "object":
        parts.append("JSON object")
    if info.is_required():
        if not spec.cli_of(name).positional:
            parts.append("required")
    elif info.default not in (None, False, []):
        parts.append(f"default {info.default}")
    text = _cli_words(spec, spec.cli_of(name).help) or describe(info)
    return f"{text} ({'; '.join(parts)})" if parts else text


def _cli_words(spec: ToolSpec, help_text: str) -> str:
    """``help_text`` as ``--help`` prints it: a quoted argument name (`` `context_lines` ``)
    becomes the flag that sets it (``--context``; ``PATTERN`` for a positional, the sugar's
    flag for a field it sets), other quotes lose their backticks."""

    def word(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in spec.args.model_fields:
            return name
        sugar = next((s.flag for s in spec.sugar if name in s.fields), None)
        return sugar or spec.flag_of(name)

    return re.sub(r"`([^`]*)`", word, help_text)


def _add_tool_arguments(p: argparse.ArgumentParser, spec: ToolSpec) -> None:
    for name, info in spec.args.model_fields.items():
        cli = spec.cli_of(name)
        typ, _ = _plain(info.annotation)
        origin = typing.get_origin(typ)
        help_text = _help_of(spec, name).replace("%", "%%")
        convert: Any = {int: int, float: float}.get(typ, str)
        if typ in (int, float):
            convert = _number_flag(spec, name, typ is int)
        if origin is dict or typ is dict:
            convert = _json_object
        if cli.positional:
            optional = not info.is_required()
            nargs = ("*" if optional else "+") if origin is list else ("?" if optional else None)
            p.add_argument(
                name,
                metavar=cli.metavar or name.upper(),
                nargs=nargs,
                type=convert if origin is not list else str,
                default=None,
                help=help_text,
            )
            continue
        flags = [f for f in (cli.flag, "--" + name.replace("_", "-"), cli.short) if f]
        flags = list(dict.fromkeys(flags))
        if typ is bool:
            if info.default is True:
                p.add_argument(
                    *flags, dest=name, action=argparse.BooleanOptionalAction, help=help_text
                )
            else:
                p.add_argument(*flags, dest=name, action="store_true", default=None, help=help_text)
        elif origin is list:
            p.add_argument(*flags, dest=name, action="append", default=None, help=help_text)
        else:
            metavar = "N" if typ is int else ("JSON" if convert is _json_object else "TEXT")
            p.add_argument(
                *flags, dest=name, type=convert, default=None, metavar=metavar, help=help_text
            )
    for i, sugar in enumerate(spec.sugar):
        flags = [f for f in (sugar.flag, sugar.short) if f]
        p.add_argument(
            *flags,
            dest=f"_sugar_{i}",
            action="append" if sugar.repeat else "store",
            default=None,
            metavar=sugar.metavar or sugar.flag.lstrip("-").replace("-", "_").upper(),
            help=sugar.help.replace("%", "%%"),
        )


def tool_arguments(spec: ToolSpec, args: argparse.Namespace) -> dict[str, Any]:
    """The tool arguments given on the command line (unset ones left to the model's defaults).

    A ``path`` that is not UTF-8 (a real file name, as argv gives it) becomes its stored form,
    each such byte ``%XX`` (``policy/names.py``), which the tools read back as the byte.

    Raises ``ToolInputError`` (the shorthand's flag) when a shorthand such as ``--lines`` and
    the flag of an argument it sets (``--start-line``) are both given: neither would be
    obeyed silently. A shorthand that adds to a dict argument (``--kind``) combines with it.
    """
    values = {
        name: getattr(args, name)
        for name in spec.args.model_fields
        if getattr(args, name, None) not in (None, [])  # an empty ``*`` positional: not given
    }
    if isinstance(values.get("path"), str):  # argv holds a byte that is not UTF-8 as a lone
        # surrogate, which no tool argument can hold: the path as stored names it (``%XX``)
        from ctx_tree_mcp.policy.names import shown

        values["path"] = shown(values["path"])
    for i, sugar in enumerate(spec.sugar):
        given = getattr(args, f"_sugar_{i}", None)
        if given is None:
            continue
        both = [f for f in sugar.fields if f in values and not isinstance(values[f], dict)]
        if both:
            own = "/".join(spec.flag_of(f) for f in sugar.fields)
            raise ToolInputError(
                sugar.flag, f"give {sugar.flag} or {own}, not both ({spec.flag_of(both[0])} too)"
            )
        for key, value in sugar.parse(given).items():
            old = values.get(key)
            values[key] = (
                {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
            )
    return values


def typed_flag_names(spec: ToolSpec, args: argparse.Namespace) -> dict[str, str]:
    """Per argument the command line sets, the flag it was set with: a shorthand such as
    ``--lines`` for the arguments it sets, else the argument's own flag."""
    typed = {
        name: spec.flag_of(name)
        for name in spec.args.model_fields
        if getattr(args, name, None) not in (None, [])
    }
    for i, sugar in enumerate(spec.sugar):  # a shorthand's values win, as in tool_arguments
        if getattr(args, f"_sugar_{i}", None) is not None:
            typed.update(dict.fromkeys(sugar.fields, sugar.flag))
    return typed


@dataclass(frozen=True, slots=True)
class Answer:
    """Text to print, then exit with ``status`` (``ctx-tree bash``: the command's)."""

    text: str
    status: int


def run(args: argparse.Namespace) -> str | int | Answer:
    """Execute a parsed command; returns the text to print (or an exit status)."""
    from ctx_tree_mcp.answers.surface import cli_surface
    from ctx_tree_mcp.tools.registry import BY_NAME

    with cli_surface(BY_NAME):
        command: Command | None = getattr(args, "_command", None)  # a verb's, set by the parser
        if command is not None:
            return command.run(args)
        return _run_tool(args)


def _run_tool(args: argparse.Namespace) -> str | Answer:
    import asyncio

    from ctx_tree_mcp.answers.surface import argument_name, typed_flags
    from ctx_tree_mcp.cli.commands import no_store_yet, open_app
    from ctx_tree_mcp.tools.registry import BY_NAME, call_tool

    spec = BY_NAME[args._tool]
    values = tool_arguments(spec, args)
    with open_app(args) as app, typed_flags(spec.name, typed_flag_names(spec, args)):
        try:
            if spec.store_reader:  # bad arguments first, then the missing store
                spec.validate(values)
                if missing := no_store_yet(app):
                    return missing
            reply = asyncio.run(call_tool(app, spec.name, values))
            # ``ctx-tree bash`` exits with the command's status, so `&&` and `set -e` hold;
            # ``ctx-tree grep`` with 2 when it timed out (not an answer).
            return Answer(reply.text, reply.status) if reply.status else reply.text
        except ToolInputError as exc:
            if exc.argument in spec.args.model_fields:  # a handler's check: name the flag
                raise ToolInputError(argument_name(spec, exc.argument), exc.message) from None
            raise


def _fail(exc: Exception) -> int:
    """One line on stderr for an error that is not bad input; returns exit status 1. A store
    fault (disk full, store deleted, unwritable) says what to do; anything else is an internal
    error, with its traceback only when ``CTX_TREE_DEBUG`` is set."""
    import os

    from ctx_tree_mcp.app import fault_message
    from ctx_tree_mcp.errors import in_words

    message = fault_message(exc)
    if message is None:
        if os.environ.get("CTX_TREE_DEBUG"):
            import traceback

            traceback.print_exception(exc, file=sys.stderr)
        message = f"{in_words(exc)}; set CTX_TREE_DEBUG=1 to see where it happened"
    _error(message)
    return 1


def _error(message: str) -> None:
    """``ctx-tree: <message>`` on stderr, redacted as answers are (errors echo arguments)."""
    from ctx_tree_mcp.wire.redact import redact_text

    print(f"ctx-tree: {redact_text(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Console script ``ctx-tree``."""
    from ctx_tree_schema import ConfigError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("give a COMMAND, e.g. `ctx-tree read FILE` (`ctx-tree --help` lists them)")
    try:
        result = run(args)
    except ToolInputError as exc:
        _error(str(exc))
        raise SystemExit(2) from None
    except ConfigError as exc:
        _error(config_error(exc))
        raise SystemExit(2) from None
    except Exception as exc:
        raise SystemExit(_fail(exc)) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    if isinstance(result, int):
        raise SystemExit(result)
    text = result.text if isinstance(result, Answer) else result
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if isinstance(result, Answer):
        sys.stdout.flush()
        raise SystemExit(result.status)
