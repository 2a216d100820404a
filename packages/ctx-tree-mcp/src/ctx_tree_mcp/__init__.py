"""ctx-tree: an MCP server whose tools store full Read/Grep output and return budgeted slices.

Console scripts: ``ctx-tree-mcp`` (the stdio server) and ``ctx-tree`` (the CLI). The tool
handlers live in ``ctx_tree_mcp.tools``; ``App`` holds the process's root, config and store.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
