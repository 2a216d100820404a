"""GitHub Copilot CLI (and VS Code's agent mode, ``vscode.py``): Claude Code's hook format with
their own field and tool names; the tool result comes as ``tool_result``, and Stop carries no
answer text (it is read from Copilot's ``events.jsonl``)."""

from ctx_tree_mcp.wire.answer import claude_output
from ctx_tree_mcp.wire.events import MATCHERS
from ctx_tree_mcp.wire.hosts import arguments, common_fields, host_text
from ctx_tree_mcp.wire.payload import CLAUDE_NAMES, mapping, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

#: Claude Code's event names and matchers, run through this module (``copilot EVENT``).
EVENTS = {
    claude: ("copilot " + claude, MATCHERS[name])
    for name, claude in CLAUDE_NAMES.items()
    if claude in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
}
CONTEXT = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")
#: Copilot's SDK rewrites arguments (``modifiedArgs``); its command hooks are not known to.
REWRITE = ""

#: Copilot CLI / VS Code tool names -> Claude Code's (Copilot CLI already says "Bash").
TOOLS = {
    "bash": "Bash",
    "shell": "Bash",
    "runTerminalCommand": "Bash",
    "run_in_terminal": "Bash",
    "view": "Read",
    "readFile": "Read",
    "read_file": "Read",
    "grep": "Grep",
    "grep_search": "Grep",
    "glob": "Glob",
    "file_search": "Glob",
    "fetch": "WebFetch",
    "fetch_webpage": "WebFetch",
}


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """Claude Code's events, from either spelling of each field (camelCase in VS Code)."""
    name = string(payload.get("tool_name")) or string(payload.get("toolName"))
    tool = TOOLS.get(name, name)
    tin = arguments(
        payload.get("tool_input") or payload.get("toolInput") or payload.get("toolArgs")
    )
    if tool != "Read" and "command" in tin:
        tin.pop("file_path", None)
    base = common_fields(payload, tool_name=tool, tool_input=tin)
    event = string(payload.get("hook_event_name")) or string(payload.get("hookEventName")) or event
    if event == "SessionStart":
        return [("session-start", base)]
    if event == "UserPromptSubmit":
        return [("prompt", dict(base, prompt=payload.get("prompt")))]
    if event == "PreToolUse":
        return [("pre-tool", base)]
    if event == "PostToolUse":
        response = payload.get("tool_response")
        if response is None:
            result = mapping(payload.get("tool_result") or payload.get("toolResult"))
            if result.get("result_type") in ("failure", "error", "denied"):
                return [("post-tool-failure", dict(base, error=host_text(result)))]
            response = host_text(result)
        return [("post-tool", dict(base, tool_response=response))]
    if event == "Stop":
        said = payload.get("last_assistant_message")
        if not isinstance(said, str) or not said:
            said = events_answer(base.get("transcript_path"))
        return [("stop", dict(base, last_assistant_message=said))]
    return []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """Claude Code's own answer format, without a rewritten input (:data:`REWRITE`)."""
    return claude_output(answers, rewrite=False)


def events_answer(
    path: object, tail_bytes: int = 262144, wait_s: float = 1.0, poll_s: float = 0.1
) -> str:
    """The answer of the turn that just ended, from a Copilot CLI ``events.jsonl`` (JSON
    lines): the last assistant text after the last user message, or ''. Copilot writes the
    file a moment after its Stop hook starts, so a file that is missing or holds no answer
    after the turn's message yet is read again every ``poll_s`` for at most ``wait_s``
    seconds; then '' (nothing stored rather than the previous turn's answer)."""
    from ctx_tree_mcp.wire.transcript import wait_for_answer

    return wait_for_answer(lambda: _turn_answer(path, tail_bytes), wait_s, poll_s)


def _turn_answer(path: object, tail_bytes: int) -> "tuple[str, bool]":
    """``(answer, found)``: ``found`` is False while the file is missing or its last user
    message has no assistant text after it."""
    from ctx_tree_mcp.wire.transcript import newest_entries, tail_lines

    if not isinstance(path, str) or not path:
        return "", True
    try:
        lines = tail_lines(path, tail_bytes)
    except FileNotFoundError:
        return "", False
    except (OSError, ValueError):
        return "", True
    for entry in newest_entries(lines):
        kind = str(entry.get("type", ""))
        if "user" in kind:
            return "", False  # this turn's message, and no answer after it (yet)
        if "assistant" not in kind:
            continue
        content = mapping(entry.get("data")).get("content")
        if isinstance(content, str) and content.strip():
            return content, True
    return "", False
