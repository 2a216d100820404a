"""One module per MCP tool: arguments validated, handler over the store, plain-text renderer.

Handlers are plain functions ``(app, **arguments) -> str`` (grep is async); the MCP adapter
(``ctx_tree_mcp.serve.server``) and the CLI call the same ones.
"""
