"""The pre-tool hook: the host's own permission rules on a ``ctx_tree_bash`` call, else the
steering hint before a costly native call (``steer.py``). See docs/capture.md.
"""

import os

from ctx_tree_mcp.wire import spool
from ctx_tree_mcp.wire.answer import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctx_tree_mcp.wire.payload import Reader


def pre_tool(
    payload: "Reader", home: str, root: str, cfg: "dict[str, dict[str, Any]]"
) -> "Answer | None":
    """The answer before a tool call: a permission decision for ``ctx_tree_bash``, a hint or a
    refusal (``steer.mode``) for a native call; None when there is nothing to say."""
    name = payload.text("tool_name")
    if name.endswith("ctx_tree_bash"):
        return bash_permission(payload, home, root)
    if cfg["steer"]["mode"] not in ("hint", "deny"):
        return None
    import steer

    return steer.advise(payload, root, cfg["steer"])


def bash_permission(payload: "Reader", home: str, root: str) -> "Answer | None":
    """A ``ctx_tree_bash`` call under the host's ``Bash(...)`` rules
    (``wire/permissions.py``): a deny names the rule; an ask goes to the host's own prompt,
    after recording the ask where the server looks for it (it refuses an ask-matched command
    it finds no record of). None when no rule decides (the host's own checks apply)."""
    command = payload.text("tool_input.command")
    if not command.strip():
        return None
    try:
        from ctx_tree_mcp.wire import permissions
    except Exception:
        return None  # the server checks the rules again before running anything
    verdict = permissions.check(command, permissions.load_rules(root))
    if verdict is None:
        return None
    reason = "ctx-tree: %s (the host's permission rules)" % verdict.sentence()
    if verdict.decision == "ask":
        base = spool.spool_dir(home, root)
        folder = os.path.join(base, "asked")
        try:
            spool.make_dirs(home, base)
            spool.private_dirs(folder)
            path = os.path.join(folder, permissions.ticket_name(command))
            spool.write_private(path, b"")
            os.utime(path, None)
        except OSError:
            pass  # no record: the server refuses the command rather than run it unasked
    return Answer(decision=verdict.decision, reason=reason)
