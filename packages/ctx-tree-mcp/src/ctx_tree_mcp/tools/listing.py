"""Shared shape of the listing tools: numbered lines within a limit and a token budget."""

from __future__ import annotations

from collections.abc import Sequence

from ..budget import estimate_tokens
from ..render import Manifest, finish

LISTING_BUDGET = 2000  # tokens; listings are bounded by this and by their limit


def render_listing(
    head: str, rows: Sequence[str], more_hint: str, budget: int = LISTING_BUDGET
) -> str:
    """``rows`` numbered, as many as fit ``budget`` (minus the manifest), then the manifest.

    ``more_hint`` says how to get the rest (used when rows were cut or the limit was reached).
    """
    room = budget - 80 - estimate_tokens(more_hint)
    out: list[str] = []
    for i, row in enumerate(rows, 1):
        line = f"{i}. {row}\n"
        cost = estimate_tokens(line)
        if cost > room:
            break
        out.append(line)
        room -= cost
    manifest = Manifest(head)
    manifest.add("shown", f"{len(out)} of {len(rows)}")
    if more_hint:
        manifest.add("more", more_hint)
    return finish("".join(out), manifest, budget, sum(estimate_tokens(r) for r in rows), "listing")
