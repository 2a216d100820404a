"""The summarizer's model: Anthropic's Messages API over httpx2.

``POST {base}/v1/messages`` with headers ``x-api-key`` and ``anthropic-version: 2023-06-01``
and body ``{"model", "max_tokens", "system", "messages": [{"role": "user", "content"}]}``;
the answer's ``content[].text`` is the summary and ``usage`` its token cost. The base URL is
``$ANTHROPIC_BASE_URL``, else ``summarizer.baseUrl``, else ``https://api.anthropic.com``. Off
(``summarizer_from_config`` gives None) without ``ANTHROPIC_API_KEY``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ctx_tree_schema import Config, Node
from ctx_tree_walkers import ProviderUnavailable, SummaryResult

from .http import client, post_json

DEFAULT_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
SYSTEM = (
    "You summarize stored context for a coding agent. Say what the material is and what it "
    "holds (files, symbols, findings, decisions) in a few dense sentences or bullets. No preamble."
)


class AnthropicSummarizer:
    """Implements ``ctx_tree_walkers.SummarizerProvider``."""

    def __init__(
        self, api_key: str, model: str, base_url: str, *, timeout_ms: int, max_input_chars: int
    ) -> None:
        self.api_key, self._model, self.base_url = api_key, model, base_url.rstrip("/")
        self.timeout_ms, self.max_input_chars = timeout_ms, max_input_chars
        self._http = client()

    @property
    def model(self) -> str:
        """The model that writes the summaries."""
        return self._model

    def prompt(self, root: Node, nodes: Sequence[Node]) -> str:
        """The user message: each node's header and content, cut to ``maxInputChars`` in all."""
        parts, room = [], self.max_input_chars
        for node in [root, *nodes]:
            head = f"--- {node.kind.value} {node.metadata.get('relpath') or node.source_uri or node.id}"
            symbol = node.metadata.get("symbol")
            text = f"{head}{' ' + symbol if symbol else ''}\n{node.content}\n"
            if room <= 0:
                break
            parts.append(text[:room])
            room -= len(text)
        return "Summarize this material:\n\n" + "".join(parts)

    def summarize(
        self, root: Node, nodes: Sequence[Node], *, max_tokens: int = 500
    ) -> SummaryResult:
        """Summarize ``nodes`` under ``root`` in one Messages API call. Raises ``ProviderUnavailable``."""
        body = {
            "model": self._model,
            "max_tokens": int(max_tokens),
            "system": SYSTEM,
            "messages": [{"role": "user", "content": self.prompt(root, nodes)}],
        }
        headers = {"x-api-key": self.api_key, "anthropic-version": API_VERSION}
        answer = post_json(
            self._http,
            f"{self.base_url}/v1/messages",
            body,
            timeout_ms=self.timeout_ms,
            headers=headers,
            what="anthropic",
        )
        return parse(answer)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


def parse(answer: Any) -> SummaryResult:
    """Text and token usage of a Messages API answer. Raises ``ProviderUnavailable``."""
    if not isinstance(answer, dict) or not isinstance(answer.get("content"), list):
        raise ProviderUnavailable("anthropic answered no 'content' list")
    text = "".join(
        b.get("text", "")
        for b in answer["content"]
        if isinstance(b, dict) and b.get("type") == "text"
    ).strip()
    if not text:
        raise ProviderUnavailable("anthropic answered no text")
    usage = answer.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    return SummaryResult(
        text, int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    )


def summarizer_from_config(
    config: Config, env: Mapping[str, str] | None = None
) -> AnthropicSummarizer | None:
    """The summarizer, or None (the walker stays off) unless ``summarizer.enabled`` is true and
    ``ANTHROPIC_API_KEY`` is set. The key alone is not enough: Claude Code users often have it
    in the environment the MCP server inherits, for other reasons (docs/security.md)."""
    env = os.environ if env is None else env
    block = config.data["summarizer"]
    key = env.get("ANTHROPIC_API_KEY", "").strip()
    if not key or block["enabled"] is not True:
        return None
    url = env.get("ANTHROPIC_BASE_URL", "").strip() or str(block["baseUrl"]).strip() or DEFAULT_URL
    return AnthropicSummarizer(
        key,
        str(config.data["summarizerModel"]),
        url,
        timeout_ms=max(1, int(block["timeoutMs"])),
        max_input_chars=max(1000, int(block["maxInputChars"])),
    )
