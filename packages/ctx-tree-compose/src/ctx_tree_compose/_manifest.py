"""The one manifest format: what an answer left out, as ``label: text`` lines under a
``-- <lead>: <head>`` line (agents pay for every token of it; docs/tools.md, "Footer and
manifest")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ._compose import ComposePlan
from ._tokens import estimate_tokens


def _unchanged(text: str) -> str:
    return text


def _unguarded(body: str) -> tuple[str, str | None]:
    return body, None


@dataclass(frozen=True)
class Style:
    """How one program's answers look; the budget rules are the same for all.

    ``lead``: the manifest's first line reads ``-- <lead>: <head>``.
    ``escape(line) -> line``: applied to every manifest line as it is rendered (a program
    whose entries may hold line breaks makes them visible here, so no entry can pass for
    another line).
    ``guard(body) -> (body, note)``: applied to every body before it is measured; ``note``
    (or ``None``) goes first in the manifest, as a ``note`` line.
    """

    lead: str = "manifest"
    escape: Callable[[str], str] = _unchanged
    guard: Callable[[str], tuple[str, str | None]] = _unguarded


#: The default :class:`Style`: lead ``manifest``, nothing escaped, no body guard.
PLAIN = Style()


#: The labels of the manifest lines that say how to get the rest (docs/tools.md): ``next``,
#: the exact call, or ``more`` when no one call gets it. When the budget is short they are
#: the last lines an answer gives up.
WAY_ON_LABELS = ("next", "more")


@dataclass
class Manifest:
    """Lines of the manifest; :meth:`render` joins them under the ``-- <lead>: <head>`` line.

    A line added with ``optional=True`` (what was included, a list of omitted items) is
    dropped by ``render(compact=True)`` and by :meth:`compacted`: the fitting rules do so
    when the full manifest would cost more than the content it describes
    (:func:`ctx_tree_compose.fit_answer`).

    ``complete``: nothing of the source was left out. The answer is then the body alone: no
    head, no tokens line, only the ``note`` lines (:meth:`notes_footer`).
    """

    head: str
    lines: list[str] = field(default_factory=list)
    optional: set[int] = field(default_factory=set)
    complete: bool = False

    def add(self, label: str, text: str, *, optional: bool = False) -> None:
        """Add ``label: text`` (nothing when ``text`` is empty); optional lines are the first
        dropped when space is short."""
        if text:
            if optional:
                self.optional.add(len(self.lines))
            self.lines.append(f"{label}: {text}")

    def with_note_first(self, note: str | None) -> Manifest:
        """This manifest with ``note: <note>`` as its first line (itself when ``note`` is
        ``None``): the reader learns it before the lines that describe the content."""
        if note is None:
            return self
        return replace(
            self, lines=[f"note: {note}", *self.lines], optional={i + 1 for i in self.optional}
        )

    def render(self, style: Style = PLAIN, *, compact: bool = False) -> str:
        """The manifest's text, newline-terminated; ``compact`` leaves out the optional lines.
        Every line goes through ``style.escape``."""
        kept = [ln for i, ln in enumerate(self.lines) if not (compact and i in self.optional)]
        lines = [f"-- {style.lead}: {self.head}", *kept]
        return "\n".join(style.escape(ln) for ln in lines) + "\n"

    def notes_footer(self, style: Style = PLAIN) -> str:
        """What a :attr:`complete` answer adds to its body: its ``note`` lines as one
        ``-- <lead>: …`` line, or ``""`` when it has none."""
        notes = [ln.removeprefix("note: ") for ln in self.lines if ln.startswith("note: ")]
        return style.escape(f"-- {style.lead}: " + "; ".join(notes)) + "\n" if notes else ""

    def trimmed(self, fits: Callable[[Manifest], bool]) -> Manifest:
        """This manifest with its lines dropped, the longest first, until ``fits(manifest)``;
        its head and its ``next``/``more`` lines (how to get the rest) are never dropped."""
        kept = list(self.lines)
        for line in sorted(self.lines, key=lambda ln: -len(ln)):
            if fits(replace(self, lines=kept, optional=set())):
                break
            if not line.startswith(tuple(f"{label}: " for label in WAY_ON_LABELS)):
                kept.remove(line)
        return replace(self, lines=kept, optional=set())

    def compacted(self, limit: int = 0, style: Style = PLAIN) -> Manifest:
        """The manifest without optional lines, the longest dropped first, until it costs at
        most ``limit`` tokens (``0``: without any of them)."""
        dropped: set[int] = set()
        by_length = sorted(self.optional, key=lambda i: -len(self.lines[i]))
        for i in by_length:
            kept = [ln for j, ln in enumerate(self.lines) if j not in dropped]
            if limit and estimate_tokens(Manifest(self.head, kept).render(style)) <= limit:
                break
            dropped.add(i)
        return replace(
            self,
            lines=[ln for i, ln in enumerate(self.lines) if i not in dropped],
            optional={
                len([j for j in range(i) if j not in dropped]) for i in self.optional - dropped
            },
        )


def plan_manifest(plan: ComposePlan, *, max_dropped: int | None = 20) -> Manifest:
    """A :class:`Manifest` of ``plan``, for users of this package alone.

    Rendered::

        -- manifest: 1,234/4,000 tokens; 2 included, 1 truncated, 2 dropped
        included: 01J9(0.91, 120t) 01K2(0.88, 300t)
        truncated: 01M4 kept 200/900t
        dropped: 01N7(0.40, 800t, budget) 01P3(0.30, 50t, status)

    Ids are printed whole (agents need them for follow-up calls), scores to 2 decimals,
    sizes in tokens (``t``). Sections with nothing in them are left out. The head's counts
    are always exact; the dropped list shows the first ``max_dropped`` entries (highest score
    first) then ``+N more`` — ``None`` lists them all. A plan whose BFS hit
    ``max_candidates`` says ``candidates capped`` in the head.

    Raises:
        ValueError: ``max_dropped`` is negative.
    """
    if max_dropped is not None and max_dropped < 0:
        raise ValueError(f"max_dropped must be >= 0 or None, got {max_dropped}")
    n_truncated = 0 if plan.truncated is None else 1
    head = (
        f"{plan.used_tokens:,}/{plan.budget_tokens:,} tokens; "
        f"{len(plan.included)} included, {n_truncated} truncated, {len(plan.dropped)} dropped"
    )
    manifest = Manifest(head + ("; candidates capped" if plan.capped else ""))
    manifest.add("included", " ".join(f"{i.id}({i.score:.2f}, {i.tokens}t)" for i in plan.included))
    if plan.truncated is not None:
        t = plan.truncated
        manifest.add("truncated", f"{t.id} kept {t.kept_tokens}/{t.total_tokens}t")
    shown = plan.dropped if max_dropped is None else plan.dropped[:max_dropped]
    parts = [f"{d.id}({d.score:.2f}, {d.tokens}t, {d.reason})" for d in shown]
    if hidden := len(plan.dropped) - len(shown):
        parts.append(f"+{hidden:,} more")
    manifest.add("dropped", " ".join(parts))
    return manifest


def render_manifest(plan: ComposePlan, *, max_dropped: int | None = 20) -> str:
    """``plan_manifest(plan, max_dropped=max_dropped).render()``: the manifest's text,
    newline-terminated. Raises ``ValueError`` as :func:`plan_manifest` does."""
    return plan_manifest(plan, max_dropped=max_dropped).render()
