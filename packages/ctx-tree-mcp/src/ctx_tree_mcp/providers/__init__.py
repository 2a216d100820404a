"""Embedding and summarizer providers (HTTP clients), injected into the walkers and used by
``ctx_tree_search``. The protocols are ``ctx_tree_walkers.EmbeddingProvider`` and ``SummarizerProvider``; see docs/search.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ctx_tree_schema import Config

from ctx_tree_mcp.providers.anthropic import AnthropicSummarizer, summarizer_from_config
from ctx_tree_mcp.providers.settings import (
    PROVIDERS,
    EmbeddingSettings,
    SettingsError,
    embedding_settings,
)

if TYPE_CHECKING:
    from ctx_tree_mcp.providers.embedder import HttpEmbedder
    from ctx_tree_mcp.providers.local import Model2VecEmbedder


def embedder_from_config(
    config: Config, env: Mapping[str, str] | None = None
) -> HttpEmbedder | Model2VecEmbedder | None:
    """The configured embedding provider, or None (no provider: keyword search only).

    Raises ``SettingsError`` for an unknown provider name, ``ProviderUnavailable`` when the
    in-process model cannot be loaded.
    """
    settings = embedding_settings(config, env)
    if settings is None:
        return None
    if settings.provider == "model2vec":
        from ctx_tree_mcp.providers.local import Model2VecEmbedder

        return Model2VecEmbedder(settings)
    from ctx_tree_mcp.providers.embedder import HttpEmbedder

    return HttpEmbedder(settings)


__all__ = [
    "PROVIDERS",
    "AnthropicSummarizer",
    "EmbeddingSettings",
    "SettingsError",
    "embedder_from_config",
    "embedding_settings",
    "summarizer_from_config",
]
