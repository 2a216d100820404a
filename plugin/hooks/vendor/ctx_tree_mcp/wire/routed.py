"""What marks a command ctx-tree routed (docs/routing.md): its rewrite pipes the original into
the client named :data:`CLIENT_NAME`, and the server that answered it stored its whole output.
The capture hooks leave such a command out (no second copy) without loading the routing rules.

Standard library only, Python 3.8+ (loaded by the hooks).
"""

#: The file name of the client a rewritten command pipes into (``route_client.py``).
CLIENT_NAME = "route_client.py"


def is_routed(command: str) -> bool:
    """True for a command the routing rules rewrote (its output is already stored)."""
    return CLIENT_NAME in command
