"""Ollama's embedding API: ``POST {host}/api/embed`` with ``{"model", "input": [texts]}``,
answered ``{"embeddings": [[floats], ...]}`` in input order."""

from __future__ import annotations

from typing import Any

from ctx_tree_walkers import ProviderUnavailable


def request(
    base_url: str, model: str, texts: list[str], input_type: str, api_key: str | None
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """``(url, body, headers)`` for one batch (``input_type`` is not part of this API)."""
    return f"{base_url}/api/embed", {"model": model, "input": texts}, {}


def parse(answer: Any, count: int) -> list[list[float]]:
    """The vectors of an answer. Raises ``ProviderUnavailable`` for another shape."""
    vectors = answer.get("embeddings") if isinstance(answer, dict) else None
    if not isinstance(vectors, list) or len(vectors) != count:
        raise ProviderUnavailable(f"ollama answered no 'embeddings' list of {count} vectors")
    return vectors
