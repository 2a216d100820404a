"""OpenAI Codex CLI: Claude Code's hook format and payload, with fewer events (no
PostToolUseFailure) and no native Read or Grep tools (reads go through its shell, so only
commands are captured and steered). ``ctx-tree install codex`` writes its ``hooks.json``."""

from ctx_tree_mcp.wire.hosts.claude import CONTEXT, REWRITE, answer, translate
from ctx_tree_mcp.wire.hosts.claude import EVENTS as CLAUDE_EVENTS

#: Its events, with Claude Code's names; tools only through its shell.
EVENTS = {
    "SessionStart": CLAUDE_EVENTS["SessionStart"],
    "UserPromptSubmit": CLAUDE_EVENTS["UserPromptSubmit"],
    "PreToolUse": ("pre-tool", "Bash|mcp__.*ctx_tree_bash"),
    "PostToolUse": ("post-tool", "Bash"),
    "Stop": CLAUDE_EVENTS["Stop"],
}

__all__ = ["CONTEXT", "EVENTS", "REWRITE", "answer", "translate"]
