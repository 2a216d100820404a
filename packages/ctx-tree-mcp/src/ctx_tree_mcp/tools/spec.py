"""The building blocks of a tool definition: the input model base, the ``Cli`` marker, shared
argument types, ``ToolSpec`` with its derived schema and validation, and schema helpers.

The tools themselves are listed in ``ctx_tree_mcp.tools.registry`` (read its docstring first).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ctx_tree_mcp.answers.budget import MAX_BUDGET, MIN_BUDGET
from ctx_tree_mcp.answers.surface import argument_name, call
from ctx_tree_mcp.errors import ToolInputError


@dataclass(frozen=True)
class Cli:
    """How a model field shows on the command line and in ``docs/tools.md``.

    ``help``: what the value means (``--help``, the docs table's "meaning" column).
    ``flag``/``short``: the long and short option (default ``--<field-name-with-dashes>``).
    ``positional``: a positional argument instead of an option (optional when it has a
    default; a list takes one or more).
    """

    help: str
    flag: str = ""
    short: str = ""
    positional: bool = False
    metavar: str = ""


class Input(BaseModel):
    """Base of every tool's input model: unknown arguments are refused."""

    model_config = ConfigDict(extra="forbid")


#: ``budget_tokens``: the same range and flag for every tool.
Budget = Annotated[
    int,
    Field(ge=MIN_BUDGET, le=MAX_BUDGET),
    Cli("most tokens returned (BPE-like estimate)", flag="--budget", short="-b"),
]
#: A node id argument (positional on the CLI).
NodeId = Annotated[
    str,
    Field(description="from a manifest or search hit"),
    Cli("node id from a manifest or a search hit", positional=True),
]

#: MCP annotations of a tool that only reads (the default).
READ_ONLY: Mapping[str, bool] = {"readOnlyHint": True, "openWorldHint": False}


#: What a sugar option's parser gets: the option's text, or with ``repeat`` the list of them.
_Raw = TypeVar("_Raw", str, list[str])


@dataclass(frozen=True)
class Sugar(Generic[_Raw]):
    """A CLI-only option that sets several fields at once, e.g. ``--lines 40:80`` for
    ``start_line``/``end_line``. ``parse(text) -> {field: value}`` (raises ``ToolInputError``); ``render(values) -> text``
    (``None`` when the values cannot be written with it)."""

    flag: str
    fields: tuple[str, ...]
    help: str
    parse: Callable[[_Raw], dict[str, Any]]
    render: Callable[[Mapping[str, Any]], str | None]
    short: str = ""
    metavar: str = ""
    repeat: bool = False  # the option may be given several times; parse gets the list


class Reply(NamedTuple):
    """A handler's answer text with the exit status the CLI exits with (``ctx_tree_bash``:
    its command's, so ``&&`` and ``set -e`` hold); a handler may return the text alone."""

    text: str
    status: int = 0


def answer_text(answer: str | Reply) -> str:
    """The text of a handler's answer, whether it came alone or as a :class:`Reply`."""
    return answer.text if isinstance(answer, Reply) else answer


@dataclass(frozen=True)
class ToolSpec:
    """One tool. ``handler(app, **fields)`` returns the answer text or a :class:`Reply` (may
    be a coroutine)."""

    name: str
    description: str
    args: type[Input]
    handler: Callable[..., Any]
    example: Mapping[str, Any]
    annotations: Mapping[str, bool] = field(default_factory=lambda: dict(READ_ONLY))
    help: str = ""  # the CLI verb's one-line help (default: the description's first sentence)
    sugar: tuple[Sugar[str] | Sugar[list[str]], ...] = ()
    #: The tool only looks things up in the store: the CLI verb creates no store for a
    #: project that has none, it says so instead.
    store_reader: bool = False

    @property
    def verb(self) -> str:
        """The CLI verb: ``ctx_tree_path_to_root`` → ``path-to-root``."""
        return self.name.removeprefix("ctx_tree_").replace("_", "-")

    @property
    def is_async(self) -> bool:
        """True when the handler is a coroutine function (run on the event loop, awaited)."""
        return inspect.iscoroutinefunction(self.handler)

    def cli_of(self, name: str) -> Cli:
        """The field's :class:`Cli` marker (a plain one when the field has none)."""
        info = self.args.model_fields[name]
        for meta in info.metadata:
            if isinstance(meta, Cli):
                return meta
        return Cli(info.description or "")

    def flag_of(self, name: str) -> str:
        """How the CLI names a field: its option (``--budget``) or ``PATH`` for a positional."""
        cli = self.cli_of(name)
        if cli.positional:
            return cli.metavar or name.upper()
        return cli.flag or "--" + name.replace("_", "-")

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments, compacted (see :func:`compact_schema`); without
        the model's docstring, which is for readers of the code (the tool has a description)."""
        schema = self.args.model_json_schema()
        schema.pop("description", None)
        return compact_schema(schema)

    def mcp_tool(self) -> dict[str, Any]:
        """The tool's ``tools/list`` entry (wire names)."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": dict(self.annotations),
        }

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments checked against the model, every field filled in (defaults).

        Raises :class:`ToolInputError` naming the first bad argument, what is allowed, and
        a call that works, in the syntax of the current surface: the caller's own call with
        that argument left to its default when it has one and the rest is valid, else the
        tool's example.
        """
        if arguments is not None and not isinstance(arguments, Mapping):
            raise ToolInputError("arguments", "expected an object" + self._example_hint())
        arguments = dict(arguments or {})
        check_text(arguments)
        try:
            model = self.args.model_validate(arguments)
        except ValidationError as exc:
            raise self._input_error(exc, arguments) from None
        return {name: getattr(model, name) for name in self.args.model_fields}

    def _example_hint(self, working: Mapping[str, Any] | None = None) -> str:
        return f"; a call that works: {call(self.name, **(self.example if working is None else working))}"

    def _without(self, arguments: Mapping[str, Any], name: str) -> dict[str, Any] | None:
        """``arguments`` less ``name`` when that argument has a default and what is left is
        valid (the caller's call, repaired), else None."""
        info = self.args.model_fields.get(name)
        if info is None or info.is_required():
            return None
        kept = {k: v for k, v in arguments.items() if k != name}
        try:
            self.args.model_validate(kept)
        except ValidationError:
            return None
        return kept

    def _input_error(self, exc: ValidationError, arguments: Mapping[str, Any]) -> ToolInputError:
        err = exc.errors(include_url=False)[0]
        loc = [str(p) for p in err["loc"]]
        name = loc[0] if loc else "arguments"
        kind = err["type"]
        ctx = err.get("ctx") or {}
        info = self.args.model_fields.get(name)
        if kind == "extra_forbidden":
            allowed = ", ".join(self.args.model_fields)
            problem = f"unknown argument; allowed: {allowed}"
        elif kind == "missing":
            problem = f"required ({describe(info)})" if info else "required"
        elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
            problem = f"{err.get('input')!r} is out of range; allowed: {describe(info)}"
        elif kind == "literal_error":
            problem = f"{err.get('input')!r} is not allowed; one of: {ctx.get('expected', '')}"
        elif info is not None:
            got = _JSON_TYPE.get(type(err.get("input")), type(err.get("input")).__name__)
            where = f" at {'.'.join(loc[1:])}" if len(loc) > 1 else ""
            problem = f"expected {describe(info)}{where}, got {got}"
        else:
            problem = "invalid value"
        working = self._without(arguments, name)
        return ToolInputError(argument_name(self, name), problem + self._example_hint(working))


#: What a caller sent, in JSON's words (the caller wrote JSON, not Python).
_JSON_TYPE = {
    type(None): "null",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def describe(info: Any) -> str:
    """What a field accepts, e.g. ``an integer 100..50000`` or ``one of: keyword``."""
    schema = compact_schema(_field_schema(info))
    return _describe_schema(schema)


def _describe_schema(schema: Mapping[str, Any]) -> str:
    if "enum" in schema or "const" in schema:
        values = schema.get("enum") or [schema["const"]]
        return "one of: " + ", ".join(str(v) for v in values)
    typ = schema.get("type")
    words = {
        "integer": "an integer",
        "number": "a number",
        "string": "a string",
        "boolean": "true or false",
        "object": "an object",
    }
    if typ == "array":
        return f"a list of {_describe_schema(schema.get('items', {})).removeprefix('a ').removeprefix('an ')}s"
    text = words.get(str(typ), "a value")
    span = range_text(schema)
    return text if span == "—" else f"{text} {span}"


def _field_schema(info: Any) -> dict[str, Any]:
    from pydantic import TypeAdapter

    return TypeAdapter(Annotated[info.annotation, *info.metadata]).json_schema()


def type_name(schema: Mapping[str, Any]) -> str:
    """The docs table's type: ``string``, ``integer``, ``array of string`` and so on."""
    if schema.get("type") == "array":
        return f"array of {schema.get('items', {}).get('type', 'value')}"
    return str(schema.get("type", "value"))


def range_text(schema: Mapping[str, Any]) -> str:
    """The docs table's range: ``100..50000``, ``keyword, semantic`` or ``—``."""
    if "enum" in schema or "const" in schema:
        return ", ".join(str(v) for v in schema.get("enum") or [schema["const"]])
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None and high is None:
        return "—"
    if high is None:
        return f">= {low}"
    if low is None:
        return f"<= {high}"
    return f"{low}..{high}"


def compact_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema without pydantic's ``title`` keys, ``default: null`` and a boolean's
    ``default: false`` (an absent flag is off), with ``X | None`` written as plain ``X``
    (``anyOf [X, null]`` → ``X``): ``tools/list`` is context the agent pays for on every turn
    (all of it stays ≤ 1,500 tokens as sent; docs/architecture.md)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if (key == "title" and isinstance(value, str)) or (key == "default" and value is None):
            continue
        if key == "default" and value is False and schema.get("type") == "boolean":
            continue
        out[key] = value if key == "properties" else _compact(value)
    if "properties" in out:
        out["properties"] = {k: _compact(v) for k, v in out["properties"].items()}
    any_of = out.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
        plain = next(x for x in any_of if x != {"type": "null"})
        del out["anyOf"]
        out = {**plain, **out}
    return out


def _compact(value: object) -> object:
    """:func:`compact_schema` of a schema's value: each dict in it compacted."""
    if isinstance(value, dict):
        return compact_schema(value)
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def check_text(arguments: Mapping[str, Any]) -> None:
    """Refuse strings that cannot be encoded as UTF-8 (lone surrogates such as ``\\ud800``):
    the answer echoing them could not be written to the transport. Raises
    :class:`ToolInputError` naming the argument."""

    def bad(value: Any) -> bool:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
            return False
        if isinstance(value, dict):
            return any(bad(k) or bad(v) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(bad(v) for v in value)
        return False

    for key, value in arguments.items():
        if bad(key) or bad(value):
            raise ToolInputError(
                str(key).encode("utf-8", "replace").decode(),
                "contains a lone UTF-16 surrogate (invalid text); send valid UTF-8",
            )
