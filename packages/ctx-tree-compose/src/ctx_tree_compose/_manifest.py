"""A terse plain-text manifest of a ComposePlan (agents pay for every token of it)."""

from __future__ import annotations

from ._compose import ComposePlan


def render_manifest(plan: ComposePlan, *, max_dropped: int | None = 20) -> str:
    """Render ``plan`` as a compact manifest, one line per non-empty section.

    For example::

        -- manifest: 1,234/4,000 tokens; 2 included, 1 truncated, 2 dropped
        included: 01J9(0.91, 120t) 01K2(0.88, 300t)
        truncated: 01M4 kept 200/900t
        dropped: 01N7(0.40, 800t, budget) 01P3(0.30, 50t, status)

    Ids are printed whole (agents need them for follow-up calls), scores to 2 decimals,
    sizes in tokens (``t``). Sections with nothing in them are left out. The header
    counts are always exact; the dropped list shows the first ``max_dropped`` entries
    (highest score first) then ``+N more`` — ``None`` lists them all. A plan whose BFS
    hit ``max_candidates`` says ``candidates capped`` in the header.

    Raises:
        ValueError: ``max_dropped`` is negative.
    """
    if max_dropped is not None and max_dropped < 0:
        raise ValueError(f"max_dropped must be >= 0 or None, got {max_dropped}")
    n_truncated = 0 if plan.truncated is None else 1
    header = (
        f"-- manifest: {plan.used_tokens:,}/{plan.budget_tokens:,} tokens; "
        f"{len(plan.included)} included, {n_truncated} truncated, {len(plan.dropped)} dropped"
    )
    if plan.capped:
        header += "; candidates capped"
    lines = [header]
    if plan.included:
        items = " ".join(f"{i.id}({i.score:.2f}, {i.tokens}t)" for i in plan.included)
        lines.append(f"included: {items}")
    if plan.truncated is not None:
        t = plan.truncated
        lines.append(f"truncated: {t.id} kept {t.kept_tokens}/{t.total_tokens}t")
    if plan.dropped:
        shown = plan.dropped if max_dropped is None else plan.dropped[:max_dropped]
        parts = [f"{d.id}({d.score:.2f}, {d.tokens}t, {d.reason})" for d in shown]
        hidden = len(plan.dropped) - len(shown)
        if hidden:
            parts.append(f"+{hidden:,} more")
        lines.append(f"dropped: {' '.join(parts)}")
    return "\n".join(lines)
