"""How answers are shaped: the token budget and its reserves, numbered lines and the manifest,
one-line node descriptions, and the surface (MCP or CLI) a call is written for.

Imports ``ctx_tree_mcp.errors`` and ``ctx_tree_compose``; imported by everything above it.
"""
