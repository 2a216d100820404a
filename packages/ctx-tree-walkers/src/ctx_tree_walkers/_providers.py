"""Provider interfaces of docs/walkers.md (v1 ships the types, no implementation).

The v1.1 walkers (``embedding_indexer``, ``summarizer``) will call these. They run in the
walker coordinator's worker thread, so the methods are plain synchronous calls that may block
on the network; they must be safe to call from a thread that is not the event loop's.

A provider that is unavailable (Ollama not running, no ``ANTHROPIC_API_KEY``) raises
:class:`ProviderUnavailable`; its walker then no-ops until the next tick (docs/walkers.md "soft
dependencies"), it never stops the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctx_tree_schema import Node


class WalkerError(Exception):
    """Base class of every error ``ctx_tree_walkers`` raises."""


class ProviderUnavailable(WalkerError, RuntimeError):
    """The provider cannot serve now (service down, key missing); the walker retries later."""


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into fixed-size vectors (for ``nodes_vec``, docs/configuration.md / §6 ``embedding_indexer``).

    ``model`` is stored per row (``nodes_vec.embedding_model``) so vectors of different models
    are never compared; ``dimensions`` is the length of every vector :meth:`embed` returns.
    """

    @property
    def model(self) -> str:
        """Model name, e.g. ``"nomic-embed-text"`` (config ``embeddingModel``)."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of each embedding vector, e.g. 768."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One document vector per text, in order, each ``dimensions`` long.

        Called with at most ``walkers.embeddingBatchSize`` texts. Raises
        :class:`ProviderUnavailable` when the backend cannot be reached, times out or answers
        vectors of the wrong length.
        """
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query (some models embed queries and documents differently).
        Raises :class:`ProviderUnavailable` like :meth:`embed`."""
        ...


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """A summary and what it cost (the summarizer's daily token cap counts both)."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0


@runtime_checkable
class SummarizerProvider(Protocol):
    """Writes a summary of a subtree (docs/walkers.md ``summarizer``: a ``summary`` node hung under the
    subtree root, with a ``summarizes`` edge to each node covered)."""

    @property
    def model(self) -> str:
        """Model name, e.g. ``"claude-haiku-4-5"`` (config ``summarizerModel``), recorded in the
        summary node's ``metadata.model``."""
        ...

    def summarize(
        self, root: Node, nodes: Sequence[Node], *, max_tokens: int = 500
    ) -> SummaryResult:
        """A summary of ``root`` and its subtree ``nodes`` (root first, then spine order),
        at most ``max_tokens`` tokens. Raises :class:`ProviderUnavailable` when the model cannot
        be called."""
        ...
