"""Routing: the host's own shell commands answered by ctx-tree (docs/routing.md).

- ``router``: the PreToolUse decision (hook payload → the rewritten command) and the commands
  waiting for their output;
- ``channel``: the unix socket the rewritten command's client hands the output to;
- ``answers``: what the client prints, per kind (read, grep, run), in the native layout.

The rules of what is routed are ``ctx_tree_mcp.wire.route`` (shared with the hooks).
"""
