"""``ctx-tree inspect``: a read-only local web page over a project's store.

:func:`serve` runs it (uvicorn on 127.0.0.1, a random token in the URL); :func:`create_app`
builds the Starlette app over the JSON API in :mod:`.api`; the page itself is plain HTML and
JavaScript in ``static/`` with a vendored Chart.js. See ``docs/inspector.md``.
"""

from ctx_tree_mcp.inspector.server import create_app, new_token, serve

__all__ = ["create_app", "new_token", "serve"]
