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

#: The tools ctx-tree's routing entry answers before they run (``wire.route.claude_hook_entry``,
#: docs/routing.md): the pre-tool hook is not asked about them (a routed call needs no hint,
#: and the host starts no hook process for it).
ROUTED = ("Bash", "Read")
#: Claude Code's events whose hook only captures: the host runs it in the background
#: (``"async": true``) and the tool's answer does not wait for it.
BACKGROUND = ("PostToolUse", "PostToolUseFailure")


def _matcher(name: str, matcher: "str | None") -> "str | None":
    """The event's matcher, without the routed tools for the pre-tool event."""
    if name != "pre-tool" or matcher is None:
        return matcher
    return "|".join(t for t in matcher.split("|") if t not in ROUTED)


EVENTS = {claude: (name, _matcher(name, matcher)) for name, claude, matcher in HOOK_EVENTS}
#: Claude Code's events whose answer adds text for the model.
CONTEXT = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")
REWRITE = "hookSpecificOutput.updatedInput (PreToolUse, with permissionDecision allow)"


def translate(event: str, payload: "dict[str, Any]") -> "list[tuple[str, dict[str, Any]]]":
    """The payload as it is, under ctx-tree's event ``event`` (the hook's argument)."""
    return [(event, payload)] if event in CLAUDE_NAMES else []


def answer(event: str, answers: "list[tuple[str, Answer]]") -> str:
    """``{"hookSpecificOutput": …}`` for the answers, or '' when there is nothing to say."""
    return claude_output(answers)
