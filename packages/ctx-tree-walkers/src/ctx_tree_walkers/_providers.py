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
    """The provider cannot serve now (service down, key missing); the walker retries later.

    ``status`` is the HTTP status when the server answered one (else None);
    ``retry_after_s`` how long the server asked us to wait (429/503 ``Retry-After``, or our
    backoff) when that was longer than we wait in one request (docs/search.md#when-a-provider-misbehaves)."""

    def __init__(
        self, message: str, *, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.retry_after_s = status, retry_after_s


class InputRejected(ProviderUnavailable):
    """The provider answered, but refused what it was sent: an HTTP error answer to this
    request that is not about the service (not 401/403/404/408/429/502/503/504), or vectors
    that are empty, all zeros or not finite. Unlike a provider that is down, another input
    may well succeed, so the embedding walker splits the batch to find the bad one.

    ``bad`` holds the indices (into the texts sent) known bad, empty when the server did not
    say which; ``vectors`` the vectors of the other inputs, by index, when it answered them."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        bad: Sequence[int] = (),
        vectors: dict[int, list[float]] | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.bad, self.vectors = tuple(bad), dict(vectors or {})


class DimensionsChanged(ProviderUnavailable):
    """The model answers vectors of another length than the store holds for its name (it
    changed under the same name): ``ctx-tree reembed`` replaces them."""


class SummaryFailed(ProviderUnavailable):
    """A summary request that was sent and failed (timed out, HTTP error, no text), with
    what it may have cost: ``input_tokens`` and ``output_tokens`` as the server reported
    them, else estimated from the request's size (docs/walkers.md#summarizer)."""

    def __init__(
        self,
        message: str,
        *,
        input_tokens: int,
        output_tokens: int,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message, status=status, retry_after_s=retry_after_s)
        self.input_tokens, self.output_tokens = input_tokens, output_tokens


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
