"""Passive capture: what the plugin's hooks spool (``plugin/hooks/``) is ingested here into the
store, through the same path policy, redaction and file cache as the tools. See docs/capture.md.

Modules: ``spool`` (the on-disk queue the hooks write and its state file), ``ingest`` (spool →
store, and the capture walker the server runs), ``resume`` (the digest a resumed session is
given). Commands are checked with ``wire.denylist`` and stored with ``engines.shell.record``,
like ``ctx_tree_bash``'s own.

Imports ``engines``, ``policy``, ``wire``, ``app``; imported by ``serve`` and ``cli``.
"""
