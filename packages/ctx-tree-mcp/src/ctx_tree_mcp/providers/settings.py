"""Which embedding provider to use: the ``embedding`` config block, ``embeddingModel`` and the
environment, which wins (docs/search.md).

| source | provider | URL | model |
|---|---|---|---|
| environment | ``CTX_TREE_EMBEDDING_PROVIDER`` | ``CTX_TREE_EMBEDDING_URL`` | ``CTX_TREE_EMBEDDING_MODEL`` |
| config | ``embedding.provider`` | ``embedding.baseUrl`` | ``embeddingModel`` |
| default | none (keyword only) | per provider, below | ``nomic-embed-text`` |

Ollama's URL defaults to ``$OLLAMA_HOST`` (a bare ``host:port`` gets ``http://``), else
``http://127.0.0.1:11434``; OpenAI-compatible to ``https://api.openai.com/v1``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ctx_tree_schema import Config

from ctx_tree_mcp.errors import CtxTreeError

PROVIDERS = ("ollama", "openai", "model2vec")
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
OPENAI_DEFAULT = "https://api.openai.com/v1"


class SettingsError(CtxTreeError, ValueError):
    """An unknown provider name; the message names where it came from and the choices."""


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """Everything a provider needs. Times in milliseconds; ``max_chars`` per text sent."""

    provider: str
    base_url: str
    model: str
    api_key: str | None
    dimensions: int
    timeout_ms: int
    query_timeout_ms: int
    query_prefix: str
    document_prefix: str
    query_input_type: str
    document_input_type: str
    max_chars: int


def _with_scheme(url: str) -> str:
    url = url.strip().rstrip("/")
    return url if "://" in url else f"http://{url}"


def embedding_settings(
    config: Config, env: Mapping[str, str] | None = None
) -> EmbeddingSettings | None:
    """The provider settings, or None when no provider is configured (keyword search only).

    Raises :class:`SettingsError` for a provider name not in :data:`PROVIDERS`.
    """
    env = os.environ if env is None else env
    block = config.data["embedding"]
    from_env = env.get("CTX_TREE_EMBEDDING_PROVIDER", "").strip().lower()
    provider = from_env or str(block["provider"]).strip().lower()
    if not provider or provider == "none":
        return None
    if provider not in PROVIDERS:
        where = "CTX_TREE_EMBEDDING_PROVIDER" if from_env else "embedding.provider"
        raise SettingsError(
            f"{where}: unknown provider {provider!r}; one of {', '.join(PROVIDERS)}"
        )
    url = env.get("CTX_TREE_EMBEDDING_URL", "").strip() or str(block["baseUrl"]).strip()
    if not url and provider == "ollama":
        url = env.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT
    elif not url and provider == "openai":
        url = OPENAI_DEFAULT
    model = env.get("CTX_TREE_EMBEDDING_MODEL", "").strip() or str(config.data["embeddingModel"])
    key_env = str(block["apiKeyEnv"]).strip()
    return EmbeddingSettings(
        provider=provider,
        base_url=_with_scheme(url) if provider != "model2vec" and url else url,
        model=model,
        api_key=(env.get(key_env) or None) if key_env else None,
        dimensions=int(block["dimensions"]),
        timeout_ms=max(1, int(block["timeoutMs"])),
        query_timeout_ms=max(1, int(block["queryTimeoutMs"])),
        query_prefix=str(block["queryPrefix"]),
        document_prefix=str(block["documentPrefix"]),
        query_input_type=str(block["queryInputType"]),
        document_input_type=str(block["documentInputType"]),
        max_chars=max(1, int(block["maxChars"])),
    )
