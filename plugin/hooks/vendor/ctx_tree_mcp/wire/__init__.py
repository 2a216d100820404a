"""What the plugin's hooks share with the server: standard library only, loadable by file path
under the oldest ``python3`` the hooks support (3.8; docs/capture.md).

- ``redact``: secret redaction, before every insert and on every answer (docs/security.md);
- ``denylist``: which shell commands ``ctx_tree_bash`` refuses before running anything;
- ``permissions``: the host's own permission rules, applied to a command before it runs.

Imports nothing of ``ctx_tree_mcp``; everything above may import it.
"""
