"""Budgeted context packing: THE token estimator, budget helpers, and the compose
algorithm (docs/tools.md) over a small :class:`GraphSource` protocol.

Depends on nothing but the standard library, so other projects can reuse it without the
ctx-tree store. Everything public is listed in ``__all__``; other modules are private.
"""

from ._compose import (
    MAX_DEPTH,
    MIN_TRUNCATE_TOKENS,
    Candidate,
    ComposeError,
    ComposePlan,
    Dropped,
    Included,
    Truncated,
    UnknownSeedError,
    Weights,
    compose,
)
from ._graph import DictGraph, GraphSource, NodeInfo
from ._manifest import render_manifest
from ._tokens import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines, tokens_for_chars

__all__ = [
    "MAX_CHARS_PER_TOKEN",
    "MAX_DEPTH",
    "MIN_TRUNCATE_TOKENS",
    "Candidate",
    "ComposeError",
    "ComposePlan",
    "DictGraph",
    "Dropped",
    "GraphSource",
    "Included",
    "NodeInfo",
    "Truncated",
    "UnknownSeedError",
    "Weights",
    "__version__",
    "compose",
    "estimate_tokens",
    "fit_lines",
    "render_manifest",
    "tokens_for_chars",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-compose")
