"""An in-process embedding model: model2vec static embeddings (``pip install
'ctx-tree-mcp[local]'``), for users without an embedding service (docs/search.md).

``embedding.provider`` ``model2vec`` with ``embedding.baseUrl`` (or ``CTX_TREE_EMBEDDING_URL``)
the model's **local directory** (``config.json``, ``model.safetensors``, ``tokenizer.json``);
``embeddingModel`` names it in the store. Nothing is downloaded: a path that is not a directory
is refused before model2vec sees it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctx_tree_walkers import ProviderUnavailable

from ctx_tree_mcp.providers.settings import EmbeddingSettings


class Model2VecEmbedder:
    """Implements ``ctx_tree_walkers.EmbeddingProvider`` with ``model2vec.StaticModel``."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        where = Path(settings.base_url).expanduser() if settings.base_url else None
        if where is None or not where.is_dir():
            raise ProviderUnavailable(
                f"model2vec: no model directory at {settings.base_url!r} "
                "(set embedding.baseUrl to the model's local directory)"
            )
        try:
            from model2vec import StaticModel
        except ImportError:
            raise ProviderUnavailable(
                "model2vec is not installed: pip install 'ctx-tree-mcp[local]'"
            ) from None
        try:
            self._model: Any = StaticModel.from_pretrained(str(where), force_download=False)
        except Exception as exc:  # a broken or partial directory
            logging.getLogger(__name__).info("model2vec at %s: %r", where, exc)
            raise ProviderUnavailable(
                f"model2vec: cannot load {where} ({str(exc) or 'an incomplete model'}); put a whole "
                "model2vec model there, or set embedding.baseUrl to one"
            ) from None

    @property
    def model(self) -> str:
        """The embedding model's name, as stored with each vector."""
        return self.settings.model

    @property
    def dimensions(self) -> int:
        """Length of the vectors the model returns."""
        return int(self._model.dim)

    def describe(self) -> str:
        """``model2vec model at path``, for notes and logs."""
        return f"model2vec {self.settings.model} at {self.settings.base_url}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of documents (the document prefix added, each cut at ``maxChars``)."""
        s = self.settings
        return self._encode([s.document_prefix + t[: s.max_chars] for t in texts])

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query (the query prefix added)."""
        return self._encode([self.settings.query_prefix + text])[0]

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        from ctx_tree_mcp.providers.embedder import check_vectors

        # a text with no known token gets an all-zero vector: refused at the door
        return check_vectors(
            f"model2vec {self.settings.model}", [list(row) for row in self._model.encode(texts)], 0
        )

    def close(self) -> None:
        """Nothing to release: the model lives in this process."""
        pass
