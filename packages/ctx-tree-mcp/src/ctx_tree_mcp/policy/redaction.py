"""Redaction of large texts in the server: the rules of ``wire/redact.py``, with the trigger
literals a text holds found in one pass (docs/security.md, docs/index.md "Cost and
yielding").

``wire/redact.py`` runs a rule only when the lower-cased text holds one of the rule's trigger
literals, and looks each trigger up with its own scan of the text: some 90 scans of every
file the index stores, as much CPU as parsing it. :func:`redact_text` finds every trigger
the text holds in one pass of an Aho-Corasick automaton (``ahocorasick-rs``, overlapping
matches, so each trigger is found wherever it occurs) and hands the answer to the rules as
their ``present`` map; a text holding none comes out unchanged without running them (as the
capture hooks skip loading the rules for it). The redaction is the same either way.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from ctx_tree_mcp.wire import redact as _rules

log = logging.getLogger(__name__)

#: Characters of lower-cased text searched per call of the automaton: what one call returns
#: stays small however many triggers a large text repeats.
WINDOW_CHARS = 1 << 16


def redact_triggers() -> tuple[str, ...]:
    """Every trigger literal of the redaction rules, sorted (each rule runs only when the
    lower-cased text holds one of its own)."""
    return tuple(
        sorted({t for rule in getattr(_rules, "_RULES", ()) for t in getattr(rule, "triggers", ())})
    )


@functools.cache
def _finder() -> tuple[Callable[[str], set[str]], tuple[str, ...]] | None:
    """``(found, triggers)``: ``found(lowered)`` is the set of triggers ``lowered`` holds.
    None when the automaton cannot be built (then the rules scan for themselves)."""
    triggers = redact_triggers()
    if not triggers or "" in triggers:
        return None
    try:
        import ahocorasick_rs

        automaton: Any = ahocorasick_rs.AhoCorasick(list(triggers))
    except Exception as exc:  # a platform without the wheel: slower, same redaction
        log.debug("redaction triggers found one by one: %s", exc)
        return None
    overlap = max(map(len, triggers)) - 1

    def found(lowered: str) -> set[str]:
        if len(lowered) <= WINDOW_CHARS + overlap:
            return set(automaton.find_matches_as_strings(lowered, overlapping=True))
        out: set[str] = set()
        for at in range(0, len(lowered), WINDOW_CHARS):
            window = lowered[at : at + WINDOW_CHARS + overlap]
            out.update(automaton.find_matches_as_strings(window, overlapping=True))
        return out

    return found, triggers


def triggers_present(text: str) -> dict[str, bool] | None:
    """``{trigger: trigger in text.lower()}`` for every trigger of the rules (the ``present``
    map of ``wire.redact.redact``), or None when it cannot be found in one pass."""
    hits = _hits(text)
    if hits is None:
        return None
    return _present(hits)


def _hits(text: str) -> set[str] | None:
    finder = _finder()
    if finder is None:
        return None
    try:
        return finder[0](text.lower())
    except Exception:  # text the automaton refuses (lone surrogates): the rules scan for it
        return None


def _present(hits: set[str]) -> dict[str, bool]:
    finder = _finder()
    assert finder is not None
    present = dict.fromkeys(finder[1], False)
    present.update(dict.fromkeys(hits, True))
    return present


def redact_text(text: str) -> str:
    """``wire.redact.redact_text(text)``, its triggers found in one pass (see the module
    docstring): the same text, faster on large ones."""
    hits = _hits(text)
    if hits is None:
        return _rules.redact_text(text)
    if not hits:
        return text
    return _rules.redact_text(text, _present(hits))
