"""Fitting an answer to its budget: body first, then the manifest, then the ``tokens`` line,
the whole at most ``budget`` tokens under :func:`estimate_tokens` (docs/tools.md, "Footer
and manifest")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from ._manifest import PLAIN, Manifest, Style
from ._tokens import estimate_tokens, fit_lines

# Reserves, in estimated tokens: what an answer keeps back from its budget for the lines that
# follow its body. They are first guesses: :func:`fit_answer` measures the manifest it builds
# and gives the body exactly the room that is left.

#: The closing ``tokens: N returned of M in file (P%)`` line of every answer.
TOKENS_LINE_RESERVE = 20
#: A manifest's first guess when the caller names none (head, a few ids, ``next``).
MANIFEST_RESERVE = 120
#: A manifest up to this many tokens is never compacted (a head and a ``next`` alone cost ~40).
PROPORTIONATE_FLOOR = 60

#: Whatever ``make_body`` hands to ``make_manifest`` (:func:`fit_answer`).
State = TypeVar("State")


def tokens_line(returned: int, whole: int, what: str) -> str:
    """``"<returned> returned of <whole> in <what> (<pct>%)"``, both in estimated tokens.

    Never over 100%: when the answer (its manifest included) costs more than the whole
    source, it says ``"<returned> returned; <what>: <whole> in all"`` instead of a
    percentage. A share under 1% reads ``"<1%"``, never ``"0%"`` for an answer with content.
    """
    if whole and returned > whole:
        return f"{returned:,} returned; {what}: {whole:,} in all"
    share = returned * 100 // whole if whole else 0
    pct = (f" ({share}%)" if share or not returned else " (<1%)") if whole else ""
    return f"{returned:,} returned of {whole:,} in {what}{pct}"


def _guarded(body: str, manifest: Manifest, style: Style) -> tuple[str, Manifest]:
    body, note = style.guard(body)
    return body, manifest.with_note_first(note)


def finish_answer(
    body: str,
    manifest: Manifest,
    budget: int,
    tokens_of_source: int,
    what: str,
    *,
    terse: bool = False,
    style: Style = PLAIN,
) -> str:
    """Body + manifest + ``tokens`` line, guaranteed within ``budget`` tokens.

    ``terse``: no ``tokens`` line (the manifest's head gives the source's size); a
    :attr:`Manifest.complete` answer that fits is the body and its notes only.

    ``budget`` and ``tokens_of_source`` are estimated tokens (:func:`estimate_tokens`);
    ``what`` names the source in the ``tokens`` line (``"file"``, ``"listing"``). The body
    goes through ``style.guard`` first. It is expected to have been fitted already; if the
    total still exceeds the budget, the manifest's optional lines go first, then the body is
    cut at a line boundary and says so; a manifest alone (nearly) over the budget loses its
    other lines, the longest first, before its head and ``next``/``more`` lines, and is
    cut only when those alone exceed the budget.
    """
    body, manifest = _guarded(body, manifest, style)
    return _finish(body, manifest, budget, tokens_of_source, what, terse, style)


def _finish(
    body: str,
    manifest: Manifest,
    budget: int,
    tokens_of_source: int,
    what: str,
    terse: bool,
    style: Style,
) -> str:
    if manifest.complete:
        text = body + manifest.notes_footer(style)
        if estimate_tokens(text) <= budget:
            return text
        manifest = replace(manifest, complete=False)  # it does not fit after all: cut below
    rendered = manifest.render(style)

    def assemble(b: str) -> str:
        return _assemble(b, rendered)

    def _assemble(b: str, rendered: str) -> str:
        if terse:
            return b + rendered
        # The tokens line reports the whole answer, itself included: its own length is
        # estimated from a draft with the same figures' widths.
        draft = tokens_line(estimate_tokens(b + rendered), tokens_of_source, what)
        size = estimate_tokens(b + rendered + f"tokens: {draft}\n")
        return b + rendered + f"tokens: {tokens_line(size, tokens_of_source, what)}\n"

    text = assemble(body)
    if estimate_tokens(text) <= budget:
        return text
    rendered = manifest.render(style, compact=True)
    text = assemble(body)
    if estimate_tokens(text) <= budget:
        return text
    cut = body
    for _ in range(3):  # the body shrinks by what is over (the marker line costs a few tokens)
        over = estimate_tokens(text) - budget
        if over <= 0:
            return text
        cut, _ = fit_lines(cut, max(0, estimate_tokens(cut) - over - 8))
        text = assemble(cut + "[…cut to fit the budget]\n")
    if estimate_tokens(text) <= budget:
        return text
    # The manifest nearly fills the budget: the body goes first, then the manifest's lines, the
    # longest first, but never its head or its `next`/`more` line.
    compact = manifest.compacted(0, style)
    compact = compact.trimmed(lambda m: estimate_tokens(_assemble("", m.render(style))) <= budget)
    rendered = compact.render(style)
    text = assemble("")
    if estimate_tokens(text) > budget:  # pathological: head and next alone exceed the budget
        text, _ = fit_lines(text, budget)
    return text


def fit_answer(
    budget: int,
    make_body: Callable[[int], tuple[str, State]],
    make_manifest: Callable[[State], Manifest],
    source_tokens: int | Callable[[], int],
    what: str,
    reserve: int = MANIFEST_RESERVE,
    *,
    terse: bool = False,
    style: Style = PLAIN,
) -> str:
    """An answer whose body was built for the room its manifest really leaves, within
    ``budget`` tokens (:func:`finish_answer` puts it together).

    ``make_body(room_tokens) -> (body, state)`` builds the content within ``room_tokens``;
    ``make_manifest(state)`` describes it (so pointers like ``next`` are exact);
    ``source_tokens`` may be a callable read after the last ``make_manifest``. The first
    try leaves ``reserve`` tokens (at most half the budget) for the manifest; the body is then
    rebuilt for the room the manifest really leaves: less when it is larger, more when it is
    smaller (at most 5 tries; the largest body that fits wins). The manifest's optional lines
    (the longest first) are dropped while it costs more than a quarter of the budget, or more
    than the body (past :data:`PROPORTIONATE_FLOOR` tokens), so a small budget still gets
    content. A manifest that alone would not fit the budget loses any other line but its
    head and ``next``/``more``, the longest first, until it costs at most three quarters of
    it: an answer that leaves something out always says how to get it.

    ``terse`` (see :func:`finish_answer`): the body is first built for the whole budget;
    when that leaves nothing out (:attr:`Manifest.complete`) and fits, it is the answer, with
    no manifest.
    """
    tokens_reserve = 0 if terse else TOKENS_LINE_RESERVE
    if terse:
        raw, state = make_body(budget)
        body, manifest = _guarded(raw, make_manifest(state), style)
        footer = manifest.notes_footer(style)
        if manifest.complete and estimate_tokens(body + footer) <= budget:
            return body + footer
    room = budget - min(reserve, budget // 2)
    chosen: tuple[str, Manifest] | None = None
    trim, most = False, budget * 3 // 4  # a manifest too big for the budget is cut to `most`
    for _ in range(5):
        raw, state = make_body(max(room, 0))
        body, manifest = _guarded(raw, make_manifest(state), style)
        cost = estimate_tokens(manifest.render(style))
        limit = min(budget // 4, max(estimate_tokens(body), PROPORTIONATE_FLOOR))
        if cost > limit:
            manifest = manifest.compacted(limit, style)
            cost = estimate_tokens(manifest.render(style))
        # no room left (and from then on): lines go, never the head or next/more
        trim = trim or cost > budget - tokens_reserve
        if trim and cost > most:
            manifest = manifest.trimmed(lambda m: estimate_tokens(m.render(style)) <= most)
            cost = estimate_tokens(manifest.render(style))
        if manifest.complete:
            cost = estimate_tokens(manifest.notes_footer(style))
        need = estimate_tokens(body) + cost + tokens_reserve
        fits = need <= budget
        if fits and (chosen is None or estimate_tokens(body) >= estimate_tokens(chosen[0])):
            chosen = (body, manifest)
        wanted = budget - cost - tokens_reserve
        if fits and wanted - room < max(16, room // 10):  # little room left to grow into
            break
        room = wanted if fits else min(room - 4, wanted - 4)
    if chosen is None:
        chosen = (body, manifest)
    whole = source_tokens() if callable(source_tokens) else source_tokens
    return _finish(chosen[0], chosen[1], budget, whole, what, terse, style)
