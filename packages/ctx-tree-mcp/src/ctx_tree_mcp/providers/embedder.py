"""The embedding provider the walkers and the search use: one class over the HTTP APIs
(``ollama.py``, ``openai.py``) that applies the configured prefixes or ``input_type``, cuts
each text to ``embedding.maxChars``, bounds every call by a timeout, retries after 429/503
(``Retry-After``), sends smaller batches to a server that refuses a batch's size, and checks
every vector at the door. It implements ``ctx_tree_walkers.EmbeddingProvider``
(docs/search.md#when-a-provider-misbehaves)."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

from ctx_tree_store import unusable
from ctx_tree_walkers import InputRejected, ProviderUnavailable

from ctx_tree_mcp.providers import ollama, openai
from ctx_tree_mcp.providers.http import client, post_json
from ctx_tree_mcp.providers.settings import EmbeddingSettings

APIS = {"ollama": ollama, "openai": openai}
#: Retries of a document batch after 429/503, and the longest wait taken inside one call
#: (a longer ``Retry-After`` is handed to the walker, which keeps away that long).
RETRIES = 3
MAX_WAIT_S = 10.0
#: An HTTP 400/413/422 answer that refuses the batch's size rather than an input.
TOO_MANY = re.compile(
    r"too many|too large|batch|max(imum)?[ _-]*(number of )?(inputs|items|texts|array)|"
    r"inputs? (array )?(must|should|can|cannot|exceed)|exceed",
    re.IGNORECASE,
)


def refused_size(exc: InputRejected) -> bool:
    """Whether ``exc`` refuses the number of inputs (HTTP 413, or 400/422 saying so)."""
    return exc.status == 413 or (exc.status in (400, 422) and bool(TOO_MANY.search(str(exc))))


def check_vectors(what: str, vectors: Sequence[Any], dims: int) -> list[list[float]]:
    """``vectors`` as floats, each checked at the door: one that is empty, non-numeric, all
    zeros or not finite raises :class:`InputRejected` naming its index (the others' vectors
    kept in it); a batch whose vectors all have another length than ``dims`` (when not 0)
    raises :class:`ProviderUnavailable`."""
    good: dict[int, list[float]] = {}
    bad: dict[int, str] = {}
    for i, vector in enumerate(vectors):
        try:
            out = [float(x) for x in vector] if isinstance(vector, list) else []
        except (TypeError, ValueError):
            bad[i] = "not numeric"
            continue
        why = unusable(out)
        if why is not None:
            bad[i] = why
        else:
            good[i] = out
    lengths = {len(v) for v in good.values()}
    if len(lengths) > 1:
        raise ProviderUnavailable(f"{what} answered vectors of different lengths {sorted(lengths)}")
    if dims and lengths and lengths != {dims}:
        raise ProviderUnavailable(
            f"{what} answered {lengths.pop()}-dimension vectors, embedding.dimensions is {dims}"
        )
    if bad:
        first = min(bad)
        raise InputRejected(
            f"{what} answered {len(bad)} unusable vector(s) (input {first}: {bad[first]})",
            bad=sorted(bad),
            vectors=good,
        )
    return [good[i] for i in range(len(vectors))]


def _shifted(exc: InputRejected, offset: int, before: list[list[float]]) -> InputRejected:
    """``exc`` of a batch that started at ``offset``, with the vectors answered before it."""
    vectors = dict(enumerate(before))
    vectors.update({offset + i: v for i, v in exc.vectors.items()})
    return InputRejected(
        str(exc), status=exc.status, bad=[offset + i for i in exc.bad], vectors=vectors
    )


class HttpEmbedder:
    """Embeds through Ollama or an OpenAI-compatible server (see :mod:`.settings`).

    ``dimensions`` is the configured length, else that of the last answer (0 before): the
    store, not this object, checks a model's length against the vectors it holds. Every
    failure raises ``ProviderUnavailable`` with a one-line reason: unreachable, timed out,
    HTTP error, malformed answer, vectors of another length than ``embedding.dimensions``;
    :class:`InputRejected` when the server refused the input or a vector is unusable.
    ``max_batch`` is the batch size the server was found to take (0: no limit met yet).
    """

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self._api = APIS[settings.provider]
        self._http = client(settings.base_url)
        self._dims = settings.dimensions
        self._lock = threading.Lock()
        self.max_batch = 0

    @property
    def model(self) -> str:
        """The embedding model's name, as stored with each vector."""
        return self.settings.model

    @property
    def dimensions(self) -> int:
        """Length of the vectors the model returns."""
        return self._dims

    def describe(self) -> str:
        """``provider model at url``, for notes and logs."""
        s = self.settings
        return f"{s.provider} {s.model} at {s.base_url}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document vectors (``documentPrefix``/``documentInputType``), batch timeout.

        Sent in batches of at most :attr:`max_batch` texts: a batch the server refuses for
        its size (HTTP 413, or 400/422 saying too many inputs) is halved until one is taken,
        and that size is kept for later calls. After 429/503 each batch is retried
        (``Retry-After``, else backoff) up to :data:`RETRIES` times."""
        s = self.settings
        texts = [s.document_prefix + t for t in texts]
        out: list[list[float]] = []
        before, pos = self.max_batch, 0
        while pos < len(texts):
            size = min(len(texts) - pos, self.max_batch or len(texts))
            try:
                out += self._call(
                    texts[pos : pos + size],
                    s.document_input_type,
                    s.timeout_ms,
                    retries=RETRIES,
                    max_wait_s=MAX_WAIT_S,
                )
            except InputRejected as exc:
                if size > 1 and refused_size(exc):
                    self.max_batch = max(1, size // 2)
                    continue
                if size == 1:  # it was this input, not the batch's size
                    self.max_batch = before
                raise _shifted(exc, pos, out) from None
            pos += size
        return out

    def embed_query(self, text: str) -> list[float]:
        """A search query's vector (``queryPrefix``/``queryInputType``), query timeout, no
        retry (the search answers with keyword results meanwhile)."""
        s = self.settings
        return self._call([s.query_prefix + text], s.query_input_type, s.query_timeout_ms)[0]

    def _call(
        self,
        texts: list[str],
        input_type: str,
        timeout_ms: int,
        *,
        retries: int = 0,
        max_wait_s: float = 0.0,
    ) -> list[list[float]]:
        if not texts:
            return []
        s = self.settings
        cut = [t[: s.max_chars] or " " for t in texts]
        url, body, headers = self._api.request(s.base_url, s.model, cut, input_type, s.api_key)
        answer = post_json(
            self._http,
            url,
            body,
            timeout_ms=timeout_ms,
            headers=headers,
            what=s.provider,
            retries=retries,
            max_wait_s=max_wait_s,
        )
        vectors = check_vectors(
            f"{s.provider} {s.model}", self._api.parse(answer, len(cut)), s.dimensions
        )
        with self._lock:
            self._dims = len(vectors[0])
        return vectors

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()
