"""The event table: what the hooks capture, as data (docs/capture.md).

:data:`HOOK_EVENTS` are ctx-tree's six hook events, with Claude Code's name for each and the
tools it is asked for (the matcher): ``plugin/hooks/hooks.json`` and ``ctx-tree install``
write them from here, and every other host's events are mapped onto them (``hosts/``).

:data:`KINDS` are the kinds of spool event one of them becomes, each a row: the hook events and
the tools (Claude Code's names) that carry it, the config switch that turns it off
(``capture.<switch>``), where its text and fields are in a Claude-format payload (dotted
paths), and the field it cannot go without. :func:`build_event` reads a payload by the table;
a row that needs more than copying names a finisher (a function below). The server's
ingester has one handler per kind (``capture/ingest.py``), keyed by the row's name.

Adding a captured kind is one row here and its ingest handler.

Standard library only, Python 3.8+ (loaded by the hooks).
"""

from ctx_tree_mcp.wire.payload import CLAUDE_NAMES, clean, mapping, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from ctx_tree_mcp.wire.payload import Reader

    Finisher = Callable[[dict[str, Any], Reader, str], None]


class Kind:
    """One row of :data:`KINDS`: a kind of spool event (see the module's docstring)."""

    __slots__ = ("events", "fields", "finish", "name", "needs", "switch", "text", "tools")

    def __init__(
        self,
        name: str,
        *,
        events: "tuple[str, ...]" = ("post-tool",),
        tools: "tuple[str, ...]" = (),
        text: "tuple[str, ...]" = (),
        fields: "tuple[tuple[str, str], ...]" = (),
        needs: str = "text",
        finish: "Finisher | None" = None,
        switch: str = "",
    ) -> None:
        #: The spool event's ``kind``, and the key of its ingest handler.
        self.name = name
        #: The hook events that carry it.
        self.events = events
        #: For tool events: the tools (Claude Code's names) whose calls it is.
        self.tools = tools
        #: Where its text is: payload paths, the first that holds text wins.
        self.text = text
        #: ``(field, payload path)``: copied when the payload holds a string there.
        self.fields = fields
        #: The field it is dropped without (empty or blank).
        self.needs = needs
        #: Finishes what copying cannot (``finish(event, reader, hook_event)``).
        self.finish = finish
        #: Its switch, ``capture.<switch>`` (default: its name).
        self.switch = switch or name


def _response(event: "dict[str, Any]", payload: "Reader", hook_event: str) -> None:
    """An answer the payload does not carry is read from the host's transcript."""
    if not event.get("text"):
        from ctx_tree_mcp.wire.transcript import last_answer

        event["text"] = clean(last_answer(payload.text("transcript_path")))


def _bash(event: "dict[str, Any]", payload: "Reader", hook_event: str) -> None:
    """A command's output and exit code: stdout then stderr after a run; the exit code read
    from the head of a failure's ``error`` (``Exit code N``)."""
    event["command"] = event.get("command") or ""
    event["exit_code"] = 0
    if hook_event == "post-tool":
        response = payload.get("tool_response")
        if isinstance(response, dict):
            out, err = payload.text("tool_response.stdout"), payload.text("tool_response.stderr")
            event["interrupted"] = bool(response.get("interrupted"))
        else:
            out, err = payload.content("tool_response"), ""
            event["interrupted"] = False
        event["text"] = out + ("\n" if out and err else "") + err
        return
    error = payload.text("error")
    first, _, rest = error.partition("\n")
    if first.startswith("Exit code "):
        code = first[10:].strip()
        event["exit_code"] = int(code) if code.lstrip("-").isdigit() else None
        event["text"] = rest
    else:
        event["exit_code"], event["text"] = None, error
    event["interrupted"] = bool(payload.get("is_interrupt"))


def _web(event: "dict[str, Any]", payload: "Reader", hook_event: str) -> None:
    """A fetched page (its url, the prompt as its title) or a search's results (one line per
    result: title and url), under ``websearch:<query>``."""
    response = payload.get("tool_response")
    if event["tool"] == "WebFetch":
        fetched = mapping(response)
        url = fetched.get("url")
        url = url if isinstance(url, str) and url else payload.text("tool_input.url")
        event.update(
            url=url,
            title=payload.text("tool_input.prompt") or url,
            text=payload.content(
                "tool_response.result" if "result" in fetched else "tool_response"
            ),
        )
        return
    results = response.get("results") if isinstance(response, dict) else response
    lines = []
    for item in results if isinstance(results, list) else [results]:
        if isinstance(item, dict) and isinstance(item.get("content"), list):
            lines += [
                "%s %s" % (text_of(c.get("title")), text_of(c.get("url")))
                for c in item["content"]
                if isinstance(c, dict)
            ]
        else:
            lines.append(text_of(item))
    query = payload.text("tool_input.query")
    event.update(
        url="websearch:" + query, title=query, text=clean("\n".join(t for t in lines if t))
    )


#: The kinds of spool event, in the order a payload is tried against them.
KINDS = (
    Kind("prompt", events=("prompt",), text=("prompt",)),
    Kind("response", events=("stop",), text=("last_assistant_message",), finish=_response),
    Kind("read", tools=("Read",), fields=(("path", "tool_input.file_path"),), needs="path"),
    Kind(
        "grep",
        tools=("Grep", "Glob"),
        text=("tool_response.content", "tool_response.filenames"),
        fields=tuple(
            (key, "tool_input." + key) for key in ("pattern", "path", "glob", "type", "output_mode")
        ),
    ),
    Kind(
        "bash",
        events=("post-tool", "post-tool-failure"),
        tools=("Bash",),
        fields=(("command", "tool_input.command"),),
        finish=_bash,
    ),
    Kind("web", tools=("WebFetch", "WebSearch"), finish=_web),
    Kind(
        "agent",
        tools=("Task", "Agent"),
        text=("tool_response",),
        fields=(("title", "tool_input.description"), ("subagent_type", "tool_input.subagent_type")),
    ),
)


def _matcher(hook_event: str) -> str:
    """The tools of every kind a tool event carries, in table order: its matcher."""
    tools: list[str] = []
    for kind in KINDS:
        if hook_event in kind.events:
            tools += [t for t in kind.tools if t not in tools]
    return "|".join(tools)


#: The tools the pre-tool event is asked about: steered native tools and the permission check
#: of ``ctx_tree_bash`` under the host's rules (any MCP server name).
PRE_TOOLS = ("Read", "Grep", "Bash", "mcp__.*ctx_tree_bash")

#: The tools each hook event is asked about (None: it is about no tool call).
MATCHERS = {
    "session-start": None,
    "prompt": None,
    "pre-tool": "|".join(PRE_TOOLS),
    "post-tool": _matcher("post-tool"),
    "post-tool-failure": _matcher("post-tool-failure"),
    "stop": None,
}
#: ctx-tree's hook events: ``(name, Claude Code's event, matcher or None for every call)``.
HOOK_EVENTS: "tuple[tuple[str, str, str | None], ...]" = tuple(
    (name, CLAUDE_NAMES[name], matcher) for name, matcher in MATCHERS.items()
)
#: The hook events about one tool call (their payload names the tool).
TOOL_EVENTS = ("pre-tool", "post-tool", "post-tool-failure")


def build_event(
    hook_event: str, payload: "Reader", capture: "Mapping[str, Any]"
) -> "dict[str, Any] | None":
    """The spool event for a Claude-format hook payload, by :data:`KINDS`, its text cut to its
    windows past ``capture["maxBytes"]`` (``cut.cut_event``); None when nothing is captured
    (no kind, switched off in ``capture``, nothing to keep). Fields of the wrong type are left
    out and noted in ``payload.problems``. No I/O but a Stop's transcript."""
    tool = payload.text("tool_name") if hook_event in TOOL_EVENTS else ""
    for kind in KINDS:
        if hook_event not in kind.events or (kind.tools and tool not in kind.tools):
            continue
        if capture.get(kind.switch) is not True:
            return None
        event: dict[str, Any] = {"kind": kind.name}
        if kind.tools:
            event["tool"] = tool
        for field, path in kind.fields:
            value = payload.string(path)
            if value is not None:
                event[field] = value
        for path in kind.text:
            event["text"] = payload.content(path)
            if event["text"]:
                break
        if kind.finish is not None:
            kind.finish(event, payload, hook_event)
        needed = event.get(kind.needs)
        if not isinstance(needed, str) or not needed.strip():
            return None
        text = event.get("text")
        if isinstance(text, str) and len(text) > capture["maxBytes"]:
            from ctx_tree_mcp.wire.cut import cut_event

            cut_event(event, capture["maxBytes"])
        return event
    return None
