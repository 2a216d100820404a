"""ctx-tree: an MCP server whose tools store full Read/Grep output and return budgeted slices.

Console scripts: ``ctx-tree-mcp`` (the stdio server) and ``ctx-tree`` (the CLI). The tool
handlers live in ``ctx_tree_mcp.tools``; ``App`` holds the process's root, config and store.
"""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-mcp")
