"""Jupyter notebooks (``.ipynb``): cells as chunks, code cells' symbols, outputs capped.

A notebook is JSON; its chunks tile a text rendering of it instead (``ChunkedFile.rendered``),
one block per cell::

    # %% [markdown] cell 1
    # Title
    # %% [code] cell 2
    def f(x): ...
    # %% [output] cell 2
    42

A cell's source is kept whole. Its outputs follow as an ``[output]`` block: text
(``text/plain``, streams, error name and value) capped at :data:`OUTPUT_MAX_LINES` lines and
:data:`OUTPUT_MAX_CHARS` characters per output, other kinds (images, HTML) named but left out.
Code cells are parsed with the kernel's language when ctx-tree has its grammar (default
Python), so their functions and classes are symbols; each cell is a ``section`` symbol named
``cell <n>``, outputs ``cell <n> output``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ._embedded import Block, chunk_blocks
from ._languages import TREE_SITTER_LANGUAGES
from ._text import Lines
from ._types import Chunk, Symbol

OUTPUT_MAX_LINES = 20
OUTPUT_MAX_CHARS = 2000


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _capped(text: str) -> str:
    lines = text.splitlines()
    kept = "\n".join(lines[:OUTPUT_MAX_LINES])[:OUTPUT_MAX_CHARS]
    left = len(text) - len(kept)
    return kept + (f"\n[… {left:,} more characters of output left out]" if left > 1 else "")


def _output(out: dict[str, Any]) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        return _capped(_text(out.get("text")))
    if kind == "error":
        return _capped(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}")
    data = out.get("data") or {}
    if "text/plain" in data:
        text = _capped(_text(data["text/plain"]))
    else:
        text = ""
    others = [k for k in data if k != "text/plain"]
    if others:
        text += ("\n" if text else "") + f"[{', '.join(others)} output left out]"
    return text


def render(text: str) -> tuple[str, list[Block], str | None] | None:
    """The notebook's rendering, its cell blocks and the code cells' language, or None when
    ``text`` is not a notebook (not JSON, or no ``cells`` list)."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    meta = nb.get("metadata") or {}
    lang = str(
        (meta.get("kernelspec") or {}).get("language")
        or (meta.get("language_info") or {}).get("name")
        or "python"
    ).lower()
    language = lang if lang in TREE_SITTER_LANGUAGES else None
    out: list[str] = []
    blocks: list[Block] = []
    for n, cell in enumerate(nb["cells"], 1):
        if not isinstance(cell, dict):
            continue
        kind = str(cell.get("cell_type", "raw"))
        source = _text(cell.get("source")).rstrip("\n").split("\n")
        first = len(out)
        out.append(f"# %% [{kind}] cell {n}")
        out.extend(source)
        code = (first + 1, len(out) - 1) if kind == "code" and len(out) - 1 > first else None
        blocks.append(Block(f"cell {n}", first, len(out) - 1, code))
        outputs = [o for o in cell.get("outputs") or () if isinstance(o, dict)]
        rendered = [t for t in (_output(o) for o in outputs) if t]
        if rendered:
            first = len(out)
            out.append(f"# %% [output] cell {n}")
            out.extend("\n".join(rendered).split("\n"))
            blocks.append(Block(f"cell {n} output", first, len(out) - 1))
    return "\n".join(out) + "\n", blocks, language


def chunk_notebook(
    rendered: str,
    blocks: list[Block],
    language: str | None,
    max_tokens: int,
    count_tokens: Callable[[str], int] | None = None,
) -> tuple[Lines, list[Chunk], list[Symbol], bool]:
    """Chunks and outline of a rendered notebook (see :func:`render`)."""
    lines = Lines(rendered, 0, count_tokens)
    chunks, symbols, has_errors = chunk_blocks(
        language, rendered.encode("utf-8"), 0, lines, max_tokens, blocks
    )
    return lines, chunks, symbols, has_errors
