"""The one error type tool handlers raise for bad input: it becomes an MCP tool error (``isError``)."""

from __future__ import annotations


class CtxTreeError(Exception):
    """Base class of every error ``ctx_tree_mcp`` raises."""


class ToolInputError(CtxTreeError, ValueError):
    """Bad tool input. ``str(err)`` names the argument and says what to do instead.

    Raised before any file read or store write, so nothing is lost.
    """

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message
