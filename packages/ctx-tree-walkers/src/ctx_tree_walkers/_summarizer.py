"""The summarizer walker (docs/walkers.md): a ``summary`` node for each big subtree.

A subtree qualifies when its root has at least ``walkers.summarizerSubtreeThreshold`` (25) live
children that are not summaries, and no live summary yet, or one that covered less than half
of today's children (it is then superseded by the new one). The provider (Anthropic's Messages
API, ``summarizerModel``) gets the root and its children, cut to ``summarizer.maxInputChars``;
the answer is stored as a live ``summary`` node under the root, with ``metadata`` ``model``,
``covers`` (children), ``input_tokens`` and ``output_tokens``, and a ``summarizes`` edge to
each child, in one transaction.

Limits, from the ``summarizer`` config block: at most ``requestsPerMinute`` calls in any
minute-long window and ``dailyTokenCap`` tokens (input + output, as the API reports them) per
UTC day; both are kept in ``walker_state``, so they hold across restarts and processes. A run
that meets a limit stops and says so. Off without a provider (no ``ANTHROPIC_API_KEY``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from ctx_tree_schema import Config, EdgeKind, NodeKind, NodeStatus, SummaryMeta
from ctx_tree_store import NewNode, Store

from ._common import KeepGoing, always
from ._providers import ProviderUnavailable, SummarizerProvider

MINUTE_MS = 60_000
MAX_EDGES = 500
WINDOW = "summarizer:window"
DAILY_USE = "summarizer:day:"


@dataclass(slots=True)
class SummarizerReport:
    candidates: int = 0
    written: int = 0
    replaced: int = 0
    tokens: int = 0
    off: bool = False
    limited: str = ""
    failed: str = ""
    stopped: bool = False

    def summary(self) -> str:
        if self.off:
            return "off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
        text = (
            f"{self.written} summaries written ({self.replaced} replacing older ones) of "
            f"{self.candidates} subtrees over the threshold, {self.tokens} tokens"
        )
        if self.limited:
            text += f"; {self.limited}"
        if self.failed:
            text += f"; provider failed: {self.failed} (retried next run)"
        return text + (" — stopped early" if self.stopped else "")


def _day(now_ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now_ms / 1000))


def _take_request(store: Store, now_ms: int, per_minute: int) -> bool:
    """Count one request in the current minute window; False when the window is full."""
    raw = store.walker_state(WINDOW)
    start, count = json.loads(raw) if raw else (now_ms, 0)
    if now_ms - start >= MINUTE_MS:
        start, count = now_ms, 0
    if count >= per_minute:
        return False
    store.set_walker_state(WINDOW, json.dumps([start, count + 1]))
    return True


def tokens_used(store: Store, now_ms: int) -> int:
    """Tokens the summarizer spent on the UTC day of ``now_ms``."""
    return int(store.walker_state(DAILY_USE + _day(now_ms)) or 0)


def summarize_subtrees(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    provider: SummarizerProvider | None = None,
) -> SummarizerReport:
    """One summarizer run (see the module doc)."""
    report = SummarizerReport()
    if provider is None:
        report.off = True
        return report
    block = config.data["summarizer"]
    threshold = max(1, int(config.data["walkers"]["summarizerSubtreeThreshold"]))
    cap, per_minute = int(block["dailyTokenCap"]), int(block["requestsPerMinute"])
    for root_id, count in store.subtrees_over(threshold):
        children = store.children(root_id)
        old = [c for c in children if c.kind is NodeKind.SUMMARY and c.status is NodeStatus.LIVE]
        if old and int(old[-1].metadata.get("covers", 0)) * 2 > count:
            continue
        report.candidates += 1
        if tokens_used(store, now_ms) >= cap:
            report.limited = f"daily token cap reached ({cap} tokens on {_day(now_ms)})"
            break
        if not _take_request(store, now_ms, per_minute):
            report.limited = f"rate limit reached ({per_minute} requests a minute)"
            break
        root = store.get(root_id)
        if root is None:
            continue
        covered = [
            c for c in children if c.status is NodeStatus.LIVE and c.kind is not NodeKind.SUMMARY
        ]
        try:
            result = provider.summarize(root, covered, max_tokens=int(block["maxTokens"]))
        except ProviderUnavailable as exc:
            report.failed = str(exc)
            break
        spent = result.input_tokens + result.output_tokens
        report.tokens += spent
        node = NewNode(
            NodeKind.SUMMARY,
            result.text,
            parent_id=root_id,
            source_uri=f"summary://{root_id}",
            metadata=SummaryMeta(
                model=provider.model,
                covers=len(covered),
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
            ),
            terms="summary",
        )
        with store.transaction():
            [summary_id] = store.insert([node])
            store.add_edges((summary_id, c.id, EdgeKind.SUMMARIZES) for c in covered[:MAX_EDGES])
            if old:
                store.supersede(summary_id, [o.id for o in old])
            key = DAILY_USE + _day(now_ms)
            store.set_walker_state(key, str(tokens_used(store, now_ms) + spent))
        report.written += 1
        report.replaced += bool(old)
        if not keep_going():
            report.stopped = True
            break
    return report
