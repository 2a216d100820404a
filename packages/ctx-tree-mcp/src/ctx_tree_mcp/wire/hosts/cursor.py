"""Cursor: flat hook entries with lowerCamel event names; a command's output comes with
afterShellExecution, and every answer must be JSON (empty output is refused)."""

from ctx_tree_mcp.wire.answer import merged
from ctx_tree_mcp.wire.fastjson import dumps
from ctx_tree_mcp.wire.hosts import arguments, first_root, host_text
from ctx_tree_mcp.wire.payload import string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

EVENTS: "dict[str, tuple[str, str | None]]" = {
    e: ("cursor " + e, None)
    for e in (
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "afterShellExecution",
        "afterAgentResponse",
    )
}
CONTEXT = ("sessionStart", "preToolUse", "postToolUse")
REWRITE = "updated_input (preToolUse)"

#: Cursor's tool names -> Claude Code's.
TOOLS = {"Shell": "Bash", "Read": "Read", "Grep": "Grep", "Glob": "Glob"}


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """Its events by ``hook_event_name`` (else the hook's argument)."""
    base = {
        "session_id": payload.get("conversation_id") or "",
        "cwd": first_root(payload.get("workspace_roots")),
    }
    event = string(payload.get("hook_event_name")) or event
    tool = TOOLS.get(string(payload.get("tool_name")))
    tin = arguments(payload.get("tool_input"))
    if event == "sessionStart":
        return [("session-start", base)]
    if event == "beforeSubmitPrompt":
        return [("prompt", dict(base, prompt=payload.get("prompt")))]
    if event == "afterAgentResponse":
        return [("stop", dict(base, last_assistant_message=payload.get("text")))]
    if event == "afterShellExecution" and "command" in payload:
        return [
            (
                "post-tool",
                dict(
                    base,
                    tool_name="Bash",
                    tool_input={"command": payload.get("command")},
                    tool_response=host_text(payload.get("output")),
                ),
            )
        ]
    if event == "preToolUse" and tool:
        return [("pre-tool", dict(base, tool_name=tool, tool_input=tin))]
    if event == "postToolUse" and tool and tool != "Bash":  # commands: afterShellExecution
        output = host_text(payload.get("tool_output"))
        response = {"content": output} if tool in ("Grep", "Glob") else output
        return [("post-tool", dict(base, tool_name=tool, tool_input=tin, tool_response=response))]
    return []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """JSON always: a permission (with the reason or hint for the agent, and a rewritten
    input) at preToolUse, ``additional_context`` where Cursor takes it."""
    said = merged([(e, a) for e, a in answers if a])
    deny = said.reason if said.decision == "deny" else ""
    if event == "preToolUse":
        reply: dict[str, Any] = {"permission": "deny" if deny else "allow"}
        if deny or said.context:
            reply["agent_message"] = deny or said.context
        if said.updated_input is not None and not deny:
            reply["updated_input"] = said.updated_input
        return dumps(reply)
    if said.context and event in ("sessionStart", "postToolUse"):
        return dumps({"additional_context": said.context})
    return dumps({} if event != "beforeSubmitPrompt" else {"continue": True})
