"""OpenCode: no command hooks; ctx-tree's JS plugin (``plugin/opencode/ctx-tree.js``) runs the
hook in-process per event with the event's JSON. Text can only reach the model in the system
prompt (the session note) or after a tool's output (the steering hint)."""

from ctx_tree_mcp.wire.answer import merged
from ctx_tree_mcp.wire.fastjson import dumps
from ctx_tree_mcp.wire.hosts import arguments, host_text
from ctx_tree_mcp.wire.payload import string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

#: The events the JS plugin sends (it is the hook's configuration: install writes it whole).
EVENTS: "dict[str, tuple[str, str | None]]" = {
    e: ("opencode " + e, None)
    for e in ("session.start", "chat.message", "tool.execute.after", "answer")
}
CONTEXT = ("session.start", "tool.execute.after")
REWRITE = "output.args of tool.execute.before (ctx-tree.js does not ask the hook there yet)"

#: OpenCode's tool names -> Claude Code's.
TOOLS = {
    "bash": "Bash",
    "read": "Read",
    "grep": "Grep",
    "glob": "Glob",
    "webfetch": "WebFetch",
    "task": "Task",
}


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """The plugin's events; a tool's capture comes with its steering question (OpenCode cannot
    add text before a tool: the hint rides on its output)."""
    base = {"session_id": payload.get("sessionID") or "", "cwd": payload.get("cwd") or ""}
    if event == "session.start":
        return [("session-start", base)]
    if event == "chat.message":
        return [("prompt", dict(base, prompt=payload.get("text")))]
    if event == "answer":
        return [("stop", dict(base, last_assistant_message=payload.get("text")))]
    tool = TOOLS.get(string(payload.get("tool")))
    if not tool:
        return []
    tin = arguments(payload.get("args"))
    if event == "tool.execute.before":
        return [("pre-tool", dict(base, tool_name=tool, tool_input=tin))]
    if event == "tool.execute.after":
        if tool == "Task":
            tin.setdefault("description", tin.get("prompt") or "")
        output = host_text(payload.get("output"))
        response = {"content": output} if tool in ("Grep", "Glob") else output
        return [
            (
                "post-tool",
                dict(
                    base,
                    tool_name=tool,
                    tool_input=tin,
                    tool_use_id=payload.get("callID") or "",
                    tool_response=response,
                ),
            ),
            ("pre-tool", dict(base, tool_name=tool, tool_input=tin)),
        ]
    return []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """The text for the model as it is (the plugin places it); at tool.execute.before, JSON
    with the rewritten ``args`` or the ``deny`` reason."""
    said = merged([(e, a) for e, a in answers if a])
    if event == "tool.execute.before":
        if said.decision == "deny":
            return dumps({"deny": said.reason})
        return dumps({"args": said.updated_input}) if said.updated_input is not None else ""
    return said.context
