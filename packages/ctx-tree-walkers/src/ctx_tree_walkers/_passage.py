"""The text a node is embedded by (docs/search.md#what-is-embedded).

A code chunk's own lines rarely say where they live: ``def render(self, task)`` could be any of
a dozen ``render`` methods. So a file chunk is embedded with a one-line header naming its file,
its symbol and the symbol's kind, then its content::

    rich/progress.py MofNCompleteColumn.render (method)
    def render(self, task: "Task") -> Text: ...

The part suffix of a symbol split for size (``#2``) is dropped; a file root (the outline) gets
its path alone. Every other node kind is embedded by its content as stored. The provider cuts
the text at ``embedding.maxChars``, so the header always survives and the content is what
follows it.
"""

from __future__ import annotations

from ctx_tree_schema import Node, NodeKind


def passage(node: Node) -> str:
    """The text :func:`~ctx_tree_walkers.embed_missing` sends for ``node``: a ``path symbol
    (kind)`` header line and the content for a ``file_chunk``; the content alone otherwise."""
    if node.kind != NodeKind.FILE_CHUNK:
        return node.content
    meta = node.metadata
    symbol = str(meta.get("symbol") or "").split("#", 1)[0]
    kind = "" if meta.get("is_file_root") else str(meta.get("kind") or "")
    parts = [
        str(meta.get("relpath") or meta.get("path") or ""),
        symbol,
        f"({kind})" if kind else "",
    ]
    header = " ".join(p for p in parts if p)
    return f"{header}\n{node.content}" if header else node.content
