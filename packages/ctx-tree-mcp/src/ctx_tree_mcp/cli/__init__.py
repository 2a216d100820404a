"""``ctx-tree``, the way in for a person: one verb per MCP tool (``main``), the housekeeping
commands (``commands``, ``maintenance``, ``reembed``, ``demo``, ``doctor``) and ``install``.

The top of the package: imports anything below, imported by nothing.
"""
