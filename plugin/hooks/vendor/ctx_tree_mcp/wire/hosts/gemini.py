"""Gemini CLI: its own events, tool names and argument names, mapped onto ctx-tree's. Context
given at BeforeTool is dropped, so the steering hint is given at AfterTool (docs/install.md)."""

from ctx_tree_mcp.wire.answer import merged
from ctx_tree_mcp.wire.fastjson import dumps
from ctx_tree_mcp.wire.hosts import common_fields, host_text
from ctx_tree_mcp.wire.payload import mapping, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

EVENTS: "dict[str, tuple[str, str | None]]" = {
    e: ("gemini " + e, None)
    for e in ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent")
}
CONTEXT = ("SessionStart", "BeforeAgent", "AfterTool")
REWRITE = "hookSpecificOutput.tool_input (BeforeTool; merged into the model's arguments)"

#: Gemini CLI's tool names and argument names -> Claude Code's.
TOOLS: "dict[str, tuple[str | None, dict[str, str]]]" = {
    "run_shell_command": ("Bash", {"command": "command"}),
    "read_file": ("Read", {"file_path": "file_path", "absolute_path": "file_path"}),
    "read_many_files": (None, {}),
    "grep_search": ("Grep", {"pattern": "pattern", "dir_path": "path", "include_pattern": "glob"}),
    "search_file_content": ("Grep", {"pattern": "pattern", "path": "path", "include": "glob"}),
    "glob": ("Glob", {"pattern": "pattern", "dir_path": "path"}),
    "web_fetch": ("WebFetch", {"prompt": "prompt", "url": "url"}),
    "google_web_search": ("WebSearch", {"query": "query"}),
}


def _tool(payload: "dict[str, Any]") -> "tuple[str | None, dict[str, Any]]":
    name = string(payload.get("tool_name"))
    tool, rename = TOOLS.get(name, (None, {}))
    if tool is None and name.startswith("mcp_"):
        server, _, rest = name[4:].partition("_")
        return "mcp__%s__%s" % (server, rest), mapping(payload.get("tool_input"))
    tin = {rename.get(k, k): v for k, v in mapping(payload.get("tool_input")).items()}
    start, end = tin.get("start_line"), tin.get("end_line")
    if tool == "Read" and isinstance(start, int):
        tin["offset"] = start
        if isinstance(end, int):
            tin["limit"] = end - start + 1
    return tool, tin


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """SessionStart, BeforeAgent (the prompt), AfterAgent (the answer), BeforeTool and
    AfterTool (a capture, then the steering question: its hint can only come here)."""
    if event == "SessionStart":
        return [("session-start", common_fields(payload))]
    if event == "BeforeAgent":
        return [("prompt", common_fields(payload, prompt=payload.get("prompt")))]
    if event == "AfterAgent":
        return [
            ("stop", common_fields(payload, last_assistant_message=payload.get("prompt_response")))
        ]
    tool, tin = _tool(payload)
    if not tool:
        return []
    base = common_fields(payload, tool_name=tool, tool_input=tin)
    if event == "BeforeTool":
        return [("pre-tool", base)]
    if event == "AfterTool":
        output = host_text(payload.get("tool_response"))
        response = {"content": output} if tool in ("Grep", "Glob") else output
        return [("post-tool", dict(base, tool_response=response)), ("pre-tool", base)]
    return []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """A deny or a rewrite at BeforeTool; text for the model where Gemini shows it
    (:data:`CONTEXT`; a BeforeTool hint is kept for AfterTool)."""
    said = merged([(e, a) for e, a in answers if a])
    if event == "BeforeTool":
        if said.decision == "deny":
            return dumps({"decision": "deny", "reason": said.reason})
        if said.updated_input is not None:
            return dumps(
                {"hookSpecificOutput": {"hookEventName": event, "tool_input": said.updated_input}}
            )
        return ""
    if said.context and event in CONTEXT:
        return dumps(
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": said.context}}
        )
    return ""
