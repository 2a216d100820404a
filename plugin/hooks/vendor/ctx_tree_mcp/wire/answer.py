"""What ctx-tree's hook says back to the host for one event, before it is put in the host's own
shape (``hosts/<host>.py``, ``answer``): text for the model, a permission decision, and a
call's input rewritten (docs/capture.md, docs/routing.md). Standard library only, Python 3.8+.
"""

from ctx_tree_mcp.wire.fastjson import dumps
from ctx_tree_mcp.wire.payload import CLAUDE_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The permission decisions a pre-tool answer may give, as Claude Code names them.
DECISIONS = ("allow", "deny", "ask")


class Answer:
    """One event's answer; all empty says nothing (the host goes on as it would).

    ``context``: text added to what the model sees (a session note, a steering hint).
    ``decision``: ``allow``, ``deny`` or ``ask`` for a pre-tool event, '' for none;
    ``reason``: why, shown with a deny or an ask. ``updated_input``: the tool call's input
    rewritten (a pre-tool event of a host that can: its ``REWRITE``), None to keep it."""

    __slots__ = ("context", "decision", "reason", "updated_input")

    def __init__(
        self,
        context: str = "",
        decision: str = "",
        reason: str = "",
        updated_input: "dict[str, Any] | None" = None,
    ) -> None:
        self.context, self.decision, self.reason = context, decision, reason
        self.updated_input = updated_input

    def __bool__(self) -> bool:
        return bool(self.context or self.decision or self.updated_input is not None)

    def __repr__(self) -> str:
        fields = ("context", "decision", "reason", "updated_input")
        return "Answer(%s)" % ", ".join(
            "%s=%r" % (name, getattr(self, name)) for name in fields if getattr(self, name)
        )


def hook_specific_output(event_name: str, answer: "Answer") -> "dict[str, Any]":
    """``answer`` as Claude Code's ``hookSpecificOutput`` object for its event ``event_name``
    (``PreToolUse``, ``SessionStart``, …): ``additionalContext``, ``permissionDecision`` and
    ``permissionDecisionReason``, ``updatedInput``. Codex, Copilot CLI and VS Code read the
    same shape."""
    out: dict[str, Any] = {"hookEventName": event_name}
    if answer.decision:
        out["permissionDecision"] = answer.decision
        out["permissionDecisionReason"] = answer.reason
    if answer.context:
        out["additionalContext"] = answer.context
    if answer.updated_input is not None:
        out["updatedInput"] = answer.updated_input
    return out


def claude_output(answers: "list[tuple[str, Answer]]", rewrite: bool = True) -> str:
    """The answers to ctx-tree's hook events as Claude Code's stdout
    (``{"hookSpecificOutput": …}``, named after the first event with something to say), or
    '' when there is nothing to say; ``rewrite=False`` for a host of that shape that takes no
    rewritten input. Codex, Copilot CLI and VS Code read the same shape."""
    said = [(event, answer) for event, answer in answers if answer]
    if not said:
        return ""
    answer = merged(said)
    if not rewrite:
        answer.updated_input = None
    return dumps({"hookSpecificOutput": hook_specific_output(CLAUDE_NAMES[said[0][0]], answer)})


def merged(answers: "list[tuple[str, Answer]]") -> "Answer":
    """One answer out of the answers to several ctx-tree events of one host event (a host
    event can carry several: Gemini's AfterTool is a capture and a steering question): the
    first text, the first deny (else ask, else allow) with its reason, the first rewrite."""
    out = Answer()
    for rank in ("deny", "ask", "allow"):
        decided = next((a for _, a in answers if a.decision == rank), None)
        if decided is not None:
            out.decision, out.reason = decided.decision, decided.reason
            break
    out.context = next((a.context for _, a in answers if a.context), "")
    out.updated_input = next(
        (a.updated_input for _, a in answers if a.updated_input is not None), None
    )
    return out
