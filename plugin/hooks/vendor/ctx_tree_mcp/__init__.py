"""ctx-tree: an MCP server whose tools store full Read/Grep output and return budgeted slices.

Console scripts: ``ctx-tree-mcp`` (the stdio server) and ``ctx-tree`` (the CLI). Read the
sub-packages top-down; each imports only those below it (docs/architecture.md):

- ``cli``, ``serve``: the two ways in, a person's and an agent host's;
- ``inspector``: the read-only web view;
- ``tools``: what the agent sees, one module per MCP tool, their spec and registry;
- ``capture``: what the hooks feed (spool, ingest, the resume digest);
- ``engines``: what tools run on (grep, search, files, shell);
- ``app``: the process's one state (root, config, store handle, session); ``ending``: what
  ends with the process; ``providers``: embedding and summarizer clients;
- ``policy``: what may be read or shown; ``answers``: how answers are shaped;
- ``wire``: the standard-library rules the plugin's hooks share; ``errors``: the error tree.
"""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-mcp")
