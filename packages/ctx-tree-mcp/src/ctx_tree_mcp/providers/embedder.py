"""The embedding provider the walkers and the search use: one class over the HTTP APIs
(``ollama.py``, ``openai.py``) that applies the configured prefixes or ``input_type``, cuts
each text to ``embedding.maxChars``, bounds every call by a timeout and checks every vector's
length. It implements ``ctx_tree_walkers.EmbeddingProvider``."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

from ctx_tree_walkers import ProviderUnavailable

from . import ollama, openai
from .http import client, post_json
from .settings import EmbeddingSettings

APIS = {"ollama": ollama, "openai": openai}


class HttpEmbedder:
    """Embeds through Ollama or an OpenAI-compatible server (see :mod:`.settings`).

    ``dimensions`` is the configured length, else learned from the first answer (0 before).
    Every failure raises ``ProviderUnavailable`` with a one-line reason: unreachable, timed
    out, HTTP error, malformed answer, a vector of the wrong length or not finite.
    """

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self._api = APIS[settings.provider]
        self._http = client()
        self._dims = settings.dimensions
        self._lock = threading.Lock()

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
        """Document vectors (``documentPrefix``/``documentInputType``), batch timeout."""
        s = self.settings
        return self._call(
            [s.document_prefix + t for t in texts], s.document_input_type, s.timeout_ms
        )

    def embed_query(self, text: str) -> list[float]:
        """A search query's vector (``queryPrefix``/``queryInputType``), query timeout."""
        s = self.settings
        return self._call([s.query_prefix + text], s.query_input_type, s.query_timeout_ms)[0]

    def _call(self, texts: list[str], input_type: str, timeout_ms: int) -> list[list[float]]:
        if not texts:
            return []
        s = self.settings
        cut = [t[: s.max_chars] or " " for t in texts]
        url, body, headers = self._api.request(s.base_url, s.model, cut, input_type, s.api_key)
        answer = post_json(
            self._http, url, body, timeout_ms=timeout_ms, headers=headers, what=s.provider
        )
        vectors = self._api.parse(answer, len(cut))
        return [self._check(v) for v in vectors]

    def _check(self, vector: Any) -> list[float]:
        if not isinstance(vector, list) or not vector:
            raise ProviderUnavailable(f"{self.settings.provider} answered an empty vector")
        try:
            out = [float(x) for x in vector]
        except (TypeError, ValueError):
            raise ProviderUnavailable(
                f"{self.settings.provider} answered a non-numeric vector"
            ) from None
        if not all(math.isfinite(x) for x in out):
            raise ProviderUnavailable(f"{self.settings.provider} answered a vector with NaN or inf")
        with self._lock:
            if not self._dims:
                self._dims = len(out)
        if len(out) != self._dims:
            raise ProviderUnavailable(
                f"{self.settings.provider} {self.settings.model} answered {len(out)}-dimension "
                f"vectors, expected {self._dims} (embedding.dimensions or its first answer)"
            )
        return out

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()
