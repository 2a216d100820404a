"""Cline: one executable per event (named after it), camelCase nested payloads, tool arguments
as lists and as JSON text; the answer of a task comes with TaskComplete, and the first prompt
of a task with TaskStart, not UserPromptSubmit."""

from ctx_tree_mcp.wire.answer import merged
from ctx_tree_mcp.wire.fastjson import dumps, loads
from ctx_tree_mcp.wire.hosts import first_root, host_text
from ctx_tree_mcp.wire.payload import mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

EVENTS: "dict[str, tuple[str, str | None]]" = {
    e: ("cline " + e, None)
    for e in ("TaskStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete")
}
CONTEXT = ("TaskStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")
#: Its answer can cancel a call or add text, not change the call.
REWRITE = ""


def _decoded(value: object) -> object:
    """A JSON-encoded list or object decoded (Cline sends arguments as JSON text), else as is."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return loads(value)
        except ValueError:
            return value
    return value


def _calls(name: object, params: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """The native calls one Cline tool call makes, as Claude Code's tools and arguments."""
    calls: list[tuple[str, dict[str, Any]]] = []
    if name in ("execute_command", "run_commands"):
        commands = params.get("commands") if name == "run_commands" else [params.get("command")]
        for command in commands if isinstance(commands, list) else []:
            if isinstance(command, str):
                calls.append(("Bash", {"command": command}))
    elif name in ("read_file", "read_files"):
        files = params.get("files") if name == "read_files" else [params]
        for item in files if isinstance(files, list) else []:
            path = item if isinstance(item, str) else mapping(item).get("path")
            if isinstance(path, str):
                calls.append(("Read", {"file_path": path}))
    return calls


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """The hook file's name is the event (``hookName`` is Cline's internal one)."""
    base = {
        "session_id": payload.get("taskId") or "",
        "cwd": first_root(payload.get("workspaceRoots")),
    }
    if event in ("TaskStart", "TaskResume"):
        out: list[tuple[str, dict[str, Any]]] = [("session-start", dict(base))]
        task = mapping(payload.get("taskStart") or payload.get("taskResume"))
        prompt = mapping(task.get("taskMetadata")).get("initialTask") or task.get("prompt")
        if prompt:
            out.append(("prompt", dict(base, prompt=prompt)))
        return out
    if event == "UserPromptSubmit":
        body = mapping(payload.get("userPromptSubmit"))
        return [("prompt", dict(base, prompt=body.get("prompt") or body.get("text")))]
    if event == "TaskComplete":
        said = mapping(payload.get("turn")).get("outputText")
        if not isinstance(said, str):
            said = host_text(mapping(payload.get("taskComplete")).get("result"))
        return [("stop", dict(base, last_assistant_message=said))]
    body = mapping(payload.get("preToolUse") or payload.get("postToolUse"))
    # the structured call (tool_call / tool_result) beats postToolUse, whose values are JSON text
    native = mapping(payload.get("tool_result") or payload.get("tool_call"))
    name = body.get("toolName") or native.get("name") or ""
    params = {
        k: _decoded(v) for k, v in mapping(native.get("input") or body.get("parameters")).items()
    }
    calls = _calls(name, params)
    if event == "PreToolUse":
        return [("pre-tool", dict(base, tool_name=t, tool_input=i)) for t, i in calls]
    if event == "PostToolUse" and calls:
        output = native.get("output") if "output" in native else _decoded(body.get("result"))
        if isinstance(output, list):  # [{query, result, success}] per command or file
            output = "\n".join(
                host_text(o.get("result")) if isinstance(o, dict) else host_text(o) for o in output
            )
        said = host_text(output)
        tool, tin = calls[0]  # one result for the call: it goes with the first
        if body.get("success") is False and tool == "Bash":
            return [("post-tool-failure", dict(base, tool_name=tool, tool_input=tin, error=said))]
        return [("post-tool", dict(base, tool_name=tool, tool_input=tin, tool_response=said))]
    return []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """``{"cancel": …, "contextModification": …, "errorMessage": …}``, always (Cline reads it)."""
    said = merged([(e, a) for e, a in answers if a])
    deny = said.reason if said.decision == "deny" else ""
    reply: dict[str, Any] = {"cancel": bool(deny)}
    if said.context or deny:
        reply["contextModification"] = said.context or deny
    if deny:
        reply["errorMessage"] = deny
    return dumps(reply)
