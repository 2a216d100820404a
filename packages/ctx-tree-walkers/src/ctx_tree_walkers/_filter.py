"""The filter walker (docs/walkers.md): triage ``pending`` nodes; every one becomes ``live``.

Nothing is deleted: an answer already named the node's id, so it must stay gettable and
searchable. What the filter judges only lowers a node's rank or supersedes an older copy:

1. *too small* (fewer than ``capture.filterMinSize`` UTF-8 bytes; prompts and answers exempt)
   and *noise* (:func:`noise_reason`: empty, or progress spam) are promoted with
   ``metadata.low_rank`` set to the reason, so search lists them after the others;
2. an *exact duplicate* (a ``live`` node with the same ``content_hash`` and ``source_uri``: the
   same grep run twice on an unchanged tree) is promoted and **supersedes** the older copy
   (a ``supersedes`` edge; the same content lives on under the new id).

Nodes are read in batches of ``batch_size``; each batch is classified outside any transaction
(pure CPU) and then applied in one transaction that re-checks every node is still pending, so
a concurrent writer or a crash never leaves a batch half-applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctx_tree_schema import Config, Node, NodeKind, NodeStatus
from ctx_tree_store import Store

from ._common import KeepGoing, always

#: A progress bar: ``[####    ]``, ``[===>   ]``, block glyphs ``█▉▊▋▌▍▎▏░▒▓━``, or ``===>``.
_BAR = re.compile(r"\[[#=>\-.\s*]{3,}\]|[█▉▊▋▌▍▎▏░▒▓━■□]{3,}|={3,}>|#{10,}")
#: A spinner glyph (braille or quarter circles) at the start of the line.
_SPINNER = re.compile(r"^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷◐◓◑◒]")
#: A test runner's per-line progress (pytest ``PASSED  [ 42%]``, ``.....  [ 42%]``): each such
#: line carries results, so it never counts as a progress line.
_TEST_PROGRESS = re.compile(r"\[\s*\d{1,3}%\]\s*$")
#: A percentage or a transfer/iteration rate (``45%``, ``12.5 %``, ``3.2MB/s``, ``30it/s``, ``eta``).
_PERCENT = re.compile(
    r"(?<![\w.])\d{1,3}(?:\.\d+)?\s?%|\d(?:\.\d+)?\s?(?:[kKMG]i?B/s|it/s|s/it)\b|\beta\b",
    re.IGNORECASE,
)
_MASK_DIGITS = re.compile(r"\d+(?:[.,:]\d+)*")
_MASK_SPACE = re.compile(r"\s+")

#: Progress spam needs at least this many non-blank lines, this share of progress lines ...
PROGRESS_MIN_LINES = 3
PROGRESS_SHARE = 0.8
#: ... and at most this share of distinct progress lines once digits and bars are masked.
PROGRESS_DISTINCT_SHARE = 0.5
#: Tools whose output is the exact lines the agent asked for: only the empty rule applies.
STRUCTURED_TOOLS = frozenset({"ctx_tree_grep"})
#: Conversation kinds: a short prompt or answer is still worth finding, so only the empty rule
#: applies (the plugin's hooks capture them; docs/capture.md).
CONVERSATION_KINDS = frozenset({NodeKind.PROMPT, NodeKind.RESPONSE, NodeKind.THINKING})


def is_progress_line(line: str) -> bool:
    """True for a progress-bar, spinner or percentage/rate line (not a test runner's result
    line ending in ``[ NN%]``)."""
    if _TEST_PROGRESS.search(line):
        return False
    return bool(_BAR.search(line) or _SPINNER.search(line) or _PERCENT.search(line))


def _mask(line: str) -> str:
    line = _BAR.sub("<bar>", line)
    line = _SPINNER.sub("<spin>", line)
    line = _MASK_DIGITS.sub("0", line)
    return _MASK_SPACE.sub(" ", line).strip()


def noise_reason(content: str, *, structured: bool = False) -> str | None:
    """Why ``content`` is noise, or None when it is not.

    * ``"empty"``: nothing but whitespace;
    * ``"progress"``: at least 3 non-blank lines (split on ``\\n`` and ``\\r``, since progress
      bars redraw with carriage returns), more than 80% of them progress lines (a bar, a
      spinner glyph, or a percentage/rate), and repetitive: once digits and bars are masked, at
      most half of the progress lines are distinct. (A coverage table, where every line has a
      percentage but names a different file, is therefore kept.)

    ``structured`` output (grep matches the agent asked for) is only checked for emptiness:
    grepping for ``\\d+%`` must not be thrown away as progress spam.
    """
    if not content.strip():
        return "empty"
    if structured:
        return None
    lines = [ln for ln in re.split(r"[\r\n]+", content) if ln.strip()]
    if len(lines) < PROGRESS_MIN_LINES:
        return None
    progress = [ln for ln in lines if is_progress_line(ln)]
    if len(progress) <= PROGRESS_SHARE * len(lines):
        return None
    distinct = {_mask(ln) for ln in progress}
    if len(distinct) <= max(1, PROGRESS_DISTINCT_SHARE * len(progress)):
        return "progress"
    return None


@dataclass(slots=True)
class FilterReport:
    """What one filter run did. ``too_small``, ``duplicate`` and ``noise`` count promoted nodes
    that were ranked low or superseded an older copy; nothing is ever dropped."""

    promoted: int = 0
    too_small: int = 0
    duplicate: int = 0
    noise: int = 0
    skipped: int = 0  # no longer pending when the batch was applied (another writer won)
    stopped: bool = False

    @property
    def dropped(self) -> int:
        """Always 0: the filter deletes nothing (kept for callers of the old report)."""
        return 0

    def summary(self) -> str:
        if not (self.promoted or self.skipped):
            text = "nothing pending"
        else:
            text = f"{self.promoted} promoted"
            low = self.too_small + self.noise
            if low or self.duplicate:
                text += (
                    f" ({low} ranked low: {self.too_small} too small, {self.noise} noise; "
                    f"{self.duplicate} superseded an older copy)"
                )
            if self.skipped:
                text += f", {self.skipped} already handled elsewhere"
        return text + (" — stopped early" if self.stopped else "")


def classify(node: Node, min_size: int) -> str | None:
    """Why ``node`` ranks low (``too small`` / ``noise``), or None; it is kept either way.

    The duplicate rule needs the store and is applied by :func:`filter_pending`.
    """
    if node.kind in CONVERSATION_KINDS:
        return "noise" if not node.content.strip() else None
    if len(node.content.encode("utf-8", "surrogatepass")) < min_size:
        return "too small"
    structured = node.metadata.get("tool") in STRUCTURED_TOOLS
    if noise_reason(node.content, structured=structured) is not None:
        return "noise"
    return None


def filter_pending(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    batch_size: int = 100,
) -> FilterReport:
    """Promote every pending node (oldest first), ``batch_size`` per transaction: low-ranked,
    superseding an older exact copy, or as it is. Deletes nothing (docs/walkers.md)."""
    min_size = int(config.data["capture"]["filterMinSize"])
    report = FilterReport()
    while True:
        batch = store.pending(limit=batch_size)
        if not batch:
            return report
        verdicts = [(node, classify(node, min_size)) for node in batch]
        with store.transaction():
            for node, reason in verdicts:
                current = store.get(node.id)
                if current is None or current.status != NodeStatus.PENDING:
                    report.skipped += 1
                    continue
                older = store.live_duplicate(node) if node.source_uri else None
                # A tick's clock reading may predate a node captured during the tick.
                store.set_status([node.id], NodeStatus.LIVE, at=max(now_ms, current.created_at))
                report.promoted += 1
                if older is not None:
                    store.supersede(node.id, older)
                    report.duplicate += 1
                elif reason is not None:
                    store.update_metadata(node.id, {"low_rank": reason})
                    if reason == "too small":
                        report.too_small += 1
                    else:
                        report.noise += 1
        if not keep_going():
            report.stopped = bool(store.pending(limit=1))
            return report
