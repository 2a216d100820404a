"""Text shapes shared by the tools: numbered lines (like native Read) and the manifest.

Every answer is plain text: the content first, then a compact manifest starting ``-- ctx-tree``
that says what was included, what was left out, how many tokens were returned against the
whole source, and the exact call that returns more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .budget import estimate_tokens
from .surface import call

__all__ = ["Manifest", "call", "finish", "fitted_answer", "number_lines", "tokens_line"]


def number_lines(lines: Iterable[str], first: int) -> str:
    """``"<n>\\t<line>"`` per line from line number ``first`` (1-based), newline-terminated."""
    return "".join(f"{n}\t{line}\n" for n, line in enumerate(lines, first))


@dataclass
class Manifest:
    """Lines of the manifest; ``render()`` joins them under a ``-- ctx-tree`` header."""

    head: str
    lines: list[str] = field(default_factory=list)

    def add(self, label: str, text: str) -> None:
        if text:
            self.lines.append(f"{label}: {text}")

    def render(self) -> str:
        return "\n".join([f"-- ctx-tree: {self.head}", *self.lines]) + "\n"


def tokens_line(returned: int, whole: int, what: str) -> str:
    """``"<returned> returned of <whole> in <what> (<pct>%)"``, both in estimated tokens."""
    pct = f" ({returned * 100 // whole}%)" if whole else ""
    return f"{returned:,} returned of {whole:,} in {what}{pct}"


def finish(body: str, manifest: Manifest, budget: int, tokens_of_source: int, what: str) -> str:
    """Body + manifest with the ``tokens`` line, guaranteed within ``budget`` tokens.

    ``budget`` and ``tokens_of_source`` are estimated tokens (:func:`estimate_tokens`). The
    body is expected to have been fitted already; if the total still exceeds the budget
    (manifest larger than reserved) the body is cut at a line boundary and says so.
    """
    from .budget import fit_lines

    rendered = manifest.render()

    def assemble(b: str) -> str:
        # The tokens line reports the whole answer, itself included: its own length is
        # estimated from a draft with the same figures' widths.
        draft = tokens_line(estimate_tokens(b + rendered), tokens_of_source, what)
        size = estimate_tokens(b + rendered + f"tokens: {draft}\n")
        return b + rendered + f"tokens: {tokens_line(size, tokens_of_source, what)}\n"

    text = assemble(body)
    if estimate_tokens(text) <= budget:
        return text
    over = estimate_tokens(text) - budget
    cut, _ = fit_lines(body, max(0, estimate_tokens(body) - over - 8))
    text = assemble(cut + "[…cut to fit the budget]\n")
    if estimate_tokens(text) > budget:  # pathological: manifest alone exceeds the budget
        text, _ = fit_lines(text, budget)
    return text


def fitted_answer(
    budget: int,
    make_body: Callable[[int], tuple[str, Any]],
    make_manifest: Callable[[Any], Manifest],
    source_tokens: int,
    what: str,
    reserve: int = 120,
) -> str:
    """Answer whose body was built for the room the manifest really leaves.

    ``make_body(room_tokens) -> (body, state)`` builds the content within ``room_tokens``;
    ``make_manifest(state)`` describes it (so pointers like ``next`` are exact). When the
    manifest turns out larger than ``reserve``, the body is rebuilt with less room, so
    :func:`finish` never has to cut it blindly.
    """
    room = budget - reserve
    for _ in range(4):
        body, state = make_body(max(room, 0))
        manifest = make_manifest(state)
        need = estimate_tokens(body) + estimate_tokens(manifest.render()) + _TOKENS_LINE
        if need <= budget:
            break
        room = budget - estimate_tokens(manifest.render()) - _TOKENS_LINE - (need - budget > 0) * 4
    return finish(body, manifest, budget, source_tokens, what)


_TOKENS_LINE = 20  # tokens kept for the "tokens: N returned of M" line
