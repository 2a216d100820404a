"""Any OpenAI-compatible embeddings endpoint: ``POST {baseUrl}/embeddings`` (``baseUrl`` ends
in ``/v1``) with ``{"model", "input": [texts], "encoding_format": "float"}`` and
``Authorization: Bearer <key>`` when a key is set, answered ``{"data": [{"index",
"embedding"}, ...]}``. ``input_type`` (``query``/``passage`` for e5 servers that add the
prefixes themselves) is sent only when configured."""

from __future__ import annotations

from typing import Any

from ctx_tree_walkers import ProviderUnavailable


def request(
    base_url: str, model: str, texts: list[str], input_type: str, api_key: str | None
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """``(url, body, headers)`` for one batch."""
    body: dict[str, Any] = {"model": model, "input": texts, "encoding_format": "float"}
    if input_type:
        body["input_type"] = input_type
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return f"{base_url}/embeddings", body, headers


def parse(answer: Any, count: int) -> list[list[float]]:
    """The vectors of an answer, in input order (sorted by ``index``)."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise ProviderUnavailable(f"the embeddings endpoint answered no 'data' list of {count}")
    try:
        ordered = sorted(data, key=lambda item: item.get("index", 0))
        return [item["embedding"] for item in ordered]
    except (AttributeError, KeyError, TypeError):
        raise ProviderUnavailable(
            "the embeddings endpoint answered items without 'embedding'"
        ) from None
