"""Claude Code: ctx-tree's own hook format, the one the others are mapped onto. The plugin's
``hooks/hooks.json`` and ``ctx-tree install claude`` run ``ctx_tree_hook.py EVENT`` with
ctx-tree's event name; the payload is Claude Code's (docs/capture.md)."""

from ctx_tree_mcp.wire.answer import claude_output
from ctx_tree_mcp.wire.events import HOOK_EVENTS
from ctx_tree_mcp.wire.payload import CLAUDE_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.answer import Answer

EVENTS = {claude: (name, matcher) for name, claude, matcher in HOOK_EVENTS}
#: Claude Code's events whose answer adds text for the model.
CONTEXT = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")
REWRITE = "hookSpecificOutput.updatedInput (PreToolUse, with permissionDecision allow)"


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """The payload as it is, under ctx-tree's event ``event`` (the hook's argument)."""
    return [(event, payload)] if event in CLAUDE_NAMES else []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """``{"hookSpecificOutput": …}`` for the answers, or '' when there is nothing to say."""
    return claude_output(answers)
