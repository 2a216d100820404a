"""Budgeted context packing: THE token estimator, the one manifest format, the rules that
fit an answer to its budget, and the compose algorithm (docs/tools.md) over a small
:class:`GraphSource` protocol.

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
from ._fit import (
    MANIFEST_RESERVE,
    PROPORTIONATE_FLOOR,
    TOKENS_LINE_RESERVE,
    finish_answer,
    fit_answer,
    tokens_line,
)
from ._graph import DictGraph, GraphSource, NodeInfo
from ._manifest import PLAIN, Manifest, Style, plan_manifest, render_manifest
from ._tokens import MAX_CHARS_PER_TOKEN, estimate_tokens, fit_lines, tokens_for_chars

__all__ = [
    "MANIFEST_RESERVE",
    "MAX_CHARS_PER_TOKEN",
    "MAX_DEPTH",
    "MIN_TRUNCATE_TOKENS",
    "PLAIN",
    "PROPORTIONATE_FLOOR",
    "TOKENS_LINE_RESERVE",
    "Candidate",
    "ComposeError",
    "ComposePlan",
    "DictGraph",
    "Dropped",
    "GraphSource",
    "Included",
    "Manifest",
    "NodeInfo",
    "Style",
    "Truncated",
    "UnknownSeedError",
    "Weights",
    "__version__",
    "compose",
    "estimate_tokens",
    "finish_answer",
    "fit_answer",
    "fit_lines",
    "plan_manifest",
    "render_manifest",
    "tokens_for_chars",
    "tokens_line",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-compose")
