"""The summarizer walker (docs/walkers.md): a ``summary`` node for each big subtree.

A subtree qualifies when its root has at least ``walkers.summarizerSubtreeThreshold`` (25) live
children that are not summaries, and no live summary yet, or one that covered less than half
of today's children (it is then superseded by the new one). The provider (Anthropic's Messages
API, ``summarizerModel``) gets the root and its children, cut to ``summarizer.maxInputChars``;
the answer is stored as a live ``summary`` node under the root, with ``metadata`` ``model``,
``covers`` (children), ``input_tokens`` and ``output_tokens``, and a ``summarizes`` edge to
each child, in one transaction.

Limits, from the ``summarizer`` config block: at most ``requestsPerMinute`` calls in any
minute-long window and ``dailyTokenCap`` tokens (input + output) per UTC day; both are kept in
``walker_state``, so they hold across restarts and processes. A run that meets a limit stops
and says so. Every request sent is charged against the cap, failed, timed-out and empty ones
included: before it is sent, its estimate (the input's characters / 4, plus ``maxTokens``) is
charged; once it is answered, the charge becomes what it cost (the API's ``usage``, or the
provider's estimate when the server gave none: :class:`SummaryFailed`).

A subtree whose request failed is backed off: it is not tried again for 10 minutes, then 20,
40, ... at most a day (``summarizer:backoff:<root id>``), so one that keeps failing cannot use
the cap up; the others go first. The last failure is kept for ``ctx-tree doctor``
(``summarizer:problem``); a provider that asked to wait longer than one call waits (429/503
``Retry-After``) gets no request before then. Off without a provider (no ``ANTHROPIC_API_KEY``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from ctx_tree_schema import Config, EdgeKind, Node, NodeKind, NodeStatus, SummaryMeta
from ctx_tree_store import NewNode, Store

from ._common import KeepGoing, always
from ._providers import ProviderUnavailable, SummarizerProvider, SummaryFailed

MINUTE_MS = 60_000
DAY_MS = 86_400_000
MAX_EDGES = 500
WINDOW = "summarizer:window"
DAILY_USE = "summarizer:day:"
BACKOFF = "summarizer:backoff:"
PROBLEM = "summarizer:problem"
#: The first wait after a subtree's request failed; doubled each failure, at most a day.
BACKOFF_FIRST_MS = 10 * MINUTE_MS


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
    backing_off: int = 0

    def summary(self) -> str:
        if self.off:
            return "off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
        text = (
            f"{self.written} summaries written ({self.replaced} replacing older ones) of "
            f"{self.candidates} subtrees over the threshold, {self.tokens} tokens"
        )
        if self.backing_off:
            text += f"; {self.backing_off} subtrees backed off after failures"
        if self.limited:
            text += f"; {self.limited}"
        if self.failed:
            text += f"; provider failed: {self.failed} (that subtree is backed off)"
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


def _charge(store: Store, now_ms: int, tokens: int) -> None:
    """Add ``tokens`` (negative: give back) to the day's use, in one transaction."""
    with store.transaction():
        key = DAILY_USE + _day(now_ms)
        store.set_walker_state(key, str(max(0, tokens_used(store, now_ms) + tokens)))


def summarizer_problem(store: Store) -> dict[str, object] | None:
    """The summarizer's last failure (``message``, ``at`` epoch ms), or None (doctor)."""
    raw = store.walker_state(PROBLEM)
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _backoff(store: Store, root_id: str) -> tuple[int, int]:
    """``(failures, next attempt epoch ms)`` of a subtree; ``(0, 0)`` when none."""
    raw = store.walker_state(BACKOFF + root_id)
    try:
        failures, until = json.loads(raw) if raw else (0, 0)
        return int(failures), int(until)
    except (ValueError, TypeError):
        return 0, 0


def estimate(root: Node, nodes: list[Node], max_input_chars: int, max_tokens: int) -> int:
    """The most a request for ``root`` and ``nodes`` may cost: its input's characters
    (at most ``max_input_chars``) / 4, plus ``max_tokens``."""
    chars = sum(len(n.content) + 80 for n in [root, *nodes])
    return -(-min(chars, max_input_chars) // 4) + max_tokens


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
    last = summarizer_problem(store)
    until = last.get("until") if last else None
    if isinstance(until, int) and now_ms < until:
        when = time.strftime("%H:%M:%S UTC", time.gmtime(until / 1000))
        report.limited = f"rate-limited by the provider: next request after {when}"
        return report
    for root_id, count in store.subtrees_over(threshold):
        children = store.children(root_id)
        old = [c for c in children if c.kind is NodeKind.SUMMARY and c.status is NodeStatus.LIVE]
        if old and int(old[-1].metadata.get("covers", 0)) * 2 > count:
            continue
        report.candidates += 1
        failures, retry_at = _backoff(store, root_id)
        if now_ms < retry_at:
            report.backing_off += 1
            continue
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
        max_tokens = int(block["maxTokens"])
        reserved = estimate(root, covered, int(block["maxInputChars"]), max_tokens)
        _charge(store, now_ms, reserved)  # charged before it is sent: a crash still counts
        try:
            result = provider.summarize(root, covered, max_tokens=max_tokens)
        except ProviderUnavailable as exc:
            # what the provider says it cost, else the reservation stays charged
            if isinstance(exc, SummaryFailed):
                spent = exc.input_tokens + exc.output_tokens
                _charge(store, now_ms, spent - reserved)
            else:
                spent = reserved
            report.tokens += spent
            report.failed = str(exc)
            wait = min(BACKOFF_FIRST_MS * 2**failures, DAY_MS)
            if exc.retry_after_s:
                wait = max(wait, int(exc.retry_after_s * 1000))
            store.set_walker_state(BACKOFF + root_id, json.dumps([failures + 1, now_ms + wait]))
            problem: dict[str, object] = {"message": str(exc)[:300], "at": now_ms, "root": root_id}
            if exc.retry_after_s:  # the server said when to come back: nothing before then
                problem["until"] = now_ms + int(exc.retry_after_s * 1000)
            store.set_walker_state(PROBLEM, json.dumps(problem))
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
            _charge(store, now_ms, spent - reserved)
            if failures:
                store.set_walker_state(BACKOFF + root_id, "")
            if store.walker_state(PROBLEM):
                store.set_walker_state(PROBLEM, "")
        report.written += 1
        report.replaced += bool(old)
        if not keep_going():
            report.stopped = True
            break
    return report
