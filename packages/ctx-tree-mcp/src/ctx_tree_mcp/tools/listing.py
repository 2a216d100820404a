"""Shared shape of the listing tools: numbered lines within a limit and a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ctx_tree_mcp.answers.budget import LISTING_MANIFEST_RESERVE, NEXT_ROW_MARGIN, estimate_tokens
from ctx_tree_mcp.answers.render import STYLE, Manifest, finish, quote_manifest_like

LISTING_BUDGET = 2000  # tokens; listings are bounded by this and by their limit
#: Tokens kept for a paging ``next`` naming another row than the one it was measured with.
PAGE_MARGIN = 8


def render_listing(
    head: str,
    rows: Sequence[str],
    more_hint: str,
    budget: int = LISTING_BUDGET,
    *,
    next_call: bool = False,
    notes: Sequence[str] = (),
    narrow: str,
    page: Callable[[int], str] | None = None,
) -> str:
    """``rows`` numbered, as many as fit ``budget`` (minus the manifest), then the manifest.

    ``more_hint`` says how to get more rows when the limit was reached; with ``next_call`` it
    is an exact call and is given as the manifest's ``next``. Rows cut by the budget cannot be
    reached by a longer listing (it shows the same first rows): the manifest then says so and
    ``narrow`` (how this tool's arguments narrow it) instead of the hint. When every row is
    shown the manifest is just its head and that hint. Each of ``notes`` becomes a ``note``
    line of the manifest.

    A listing that pages instead passes ``page(k)``: the exact call that lists the rows after
    its first ``k`` (``""`` when there are none), given as ``next`` whether the budget or the
    limit cut it; ``more_hint`` and ``narrow`` are then unused.
    """
    if page is not None:
        # the call after the last row costs the same whichever row it names (a few digits of
        # difference): measure it at the end, with a margin for those digits
        more_hint = page(len(rows)) or page(max(0, len(rows) - 1))
    room = (
        budget
        - LISTING_MANIFEST_RESERVE
        - estimate_tokens(more_hint)
        - (PAGE_MARGIN if page is not None else 0)
        - sum(estimate_tokens(n) for n in notes)
    )
    out: list[str] = []
    widest = 0
    for i, row in enumerate(rows, 1):
        line = f"{i}. {row}\n"
        cost = estimate_tokens(line)
        if cost > room:
            break
        out.append(line)
        room -= cost
        widest = max(widest, cost)
    manifest = Manifest(head)
    if len(out) < len(rows):
        manifest.add("shown", f"{len(out)} of {len(rows)}")
    # A longer list must show at least one more row, with room for the longer manifest it
    # needs (``shown`` and ``tokens`` lines); otherwise its next would repeat these rows.
    no_room = len(out) == len(rows) and room < widest + NEXT_ROW_MARGIN
    if page is not None:
        following = page(len(out)) if out else ""  # no row shown: the same call shows none
        if following:
            manifest.add("next", following)
        elif len(out) < len(rows):
            manifest.add("more", f"rows past the listing's budget are not shown: {narrow}")
    elif len(out) < len(rows) or (next_call and no_room):
        # a longer list would show the same first rows again: no next that makes no progress
        manifest.add("more", f"rows past the listing's budget are not shown: {narrow}")
    elif more_hint:
        manifest.add("next" if next_call else "more", more_hint)
    for note in notes:
        manifest.add("note", note)
    if len(out) == len(rows):
        # everything shown: no tokens line to report (rows are numbered: nothing to quote)
        return quote_manifest_like("".join(out))[0] + manifest.render(STYLE)
    return finish("".join(out), manifest, budget, sum(estimate_tokens(r) for r in rows), "listing")
