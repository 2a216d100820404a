"""VS Code's Copilot agent mode: Copilot CLI's hook files and payloads (camelCase fields, VS
Code tool names), read by the same mapping (``copilot.py``); it ignores matchers, so every
tool call runs the hook."""

from ctx_tree_mcp.wire.hosts.copilot import CONTEXT, EVENTS, REWRITE, answer, translate

__all__ = ["CONTEXT", "EVENTS", "REWRITE", "answer", "translate"]
