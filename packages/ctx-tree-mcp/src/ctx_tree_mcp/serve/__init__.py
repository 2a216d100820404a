"""The MCP server, the way in for an agent host: the instant stdio start, the handover to the
official SDK's server, the walkers' lifecycle, and the start-up snapshot it answers from.

Imports everything below it; imported only by ``cli``.
"""
