"""The summarizer's model: Anthropic's Messages API over httpx2.

``POST {base}/v1/messages`` with headers ``x-api-key`` and ``anthropic-version: 2023-06-01``
and body ``{"model", "max_tokens", "system", "messages": [{"role": "user", "content"}]}``;
the answer's ``content[].text`` is the summary and ``usage`` its token cost. Every request
sent has a cost, failed ones too: a failure raises ``SummaryFailed`` with the server's
``usage`` when it gave one, else an estimate from the request's size (a character is about
a quarter of a token; a timed-out request may also have written ``max_tokens``). The base URL is
``$ANTHROPIC_BASE_URL``, else ``summarizer.baseUrl``, else ``https://api.anthropic.com``. Off
(``summarizer_from_config`` gives None) without ``ANTHROPIC_API_KEY``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ctx_tree_schema import Config, Node
from ctx_tree_walkers import ProviderUnavailable, SummaryFailed, SummaryResult

from ctx_tree_mcp.providers.http import NOT_CONNECTED, client, post_json

#: Characters per token of the size estimate (English text and code: about 4).
CHARS_PER_TOKEN = 4
#: Retries after 429/503 inside one call, and the longest wait taken there.
RETRIES = 2
MAX_WAIT_S = 10.0


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is (its length / :data:`CHARS_PER_TOKEN`, at least 1)."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


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
        self._http = client(self.base_url)

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
        """Summarize ``nodes`` under ``root`` in one Messages API call. Raises ``SummaryFailed``
        (a ``ProviderUnavailable``) with what the request may have cost: nothing when the
        server could not be reached, the request's size in tokens for an error answer, that
        plus ``max_tokens`` for a timeout, the server's ``usage`` for an answer without text."""
        body = {
            "model": self._model,
            "max_tokens": int(max_tokens),
            "system": SYSTEM,
            "messages": [{"role": "user", "content": self.prompt(root, nodes)}],
        }
        headers = {"x-api-key": self.api_key, "anthropic-version": API_VERSION}
        sent = estimate_tokens(json.dumps(body))
        try:
            answer = post_json(
                self._http,
                f"{self.base_url}/v1/messages",
                body,
                timeout_ms=self.timeout_ms,
                headers=headers,
                what="anthropic",
                retries=RETRIES,
                max_wait_s=MAX_WAIT_S,
            )
        except ProviderUnavailable as exc:
            text = str(exc)
            if f"unreachable ({NOT_CONNECTED}" in text:  # never sent
                cost = (0, 0)
            elif "timed out" in text:
                cost = (sent, int(max_tokens))
            else:
                cost = (sent, 0)
            raise SummaryFailed(
                text,
                input_tokens=cost[0],
                output_tokens=cost[1],
                status=exc.status,
                retry_after_s=exc.retry_after_s,
            ) from None
        return parse(answer, sent)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


def parse(answer: Any, sent_tokens: int = 0) -> SummaryResult:
    """Text and token usage of a Messages API answer; without ``usage``, the input is
    ``sent_tokens`` and the output estimated from the text. Raises ``SummaryFailed`` for an
    answer without text (charged its usage)."""
    usage = answer.get("usage") if isinstance(answer, dict) else None
    if not isinstance(usage, dict):
        usage = {}
    content = answer.get("content") if isinstance(answer, dict) else None
    text = "".join(
        b.get("text", "")
        for b in (content if isinstance(content, list) else [])
        if isinstance(b, dict) and b.get("type") == "text"
    ).strip()
    spent_in = _count(usage.get("input_tokens"), sent_tokens)
    spent_out = _count(usage.get("output_tokens"), estimate_tokens(text) if text else 0)
    if not isinstance(content, list) or not text:
        what = "no 'content' list" if not isinstance(content, list) else "no text"
        raise SummaryFailed(
            f"anthropic answered {what}", input_tokens=spent_in, output_tokens=spent_out
        )
    return SummaryResult(text, spent_in, spent_out)


def _count(value: Any, default: int) -> int:
    """A usage count as the server gave it, else ``default``."""
    try:
        return max(0, int(value)) if value is not None else default
    except (TypeError, ValueError):
        return default


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
