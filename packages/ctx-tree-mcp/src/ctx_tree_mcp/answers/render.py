"""Text shapes shared by the tools: numbered lines (like native Read) and the manifest.

Every answer is plain text: the content first, then a compact manifest starting ``-- ctx-tree``
that says what was left out and the exact call that returns more. An answer that left nothing
out (:attr:`Manifest.complete`) is the content alone, as the native tool would print it; its
notes, if any, follow as one ``-- ctx-tree:`` line (docs/tools.md, "Footer and manifest").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ctx_tree_mcp.answers.budget import (
    MANIFEST_RESERVE,
    PROPORTIONATE_FLOOR,
    TOKENS_LINE_RESERVE,
    estimate_tokens,
)
from ctx_tree_mcp.answers.surface import call

__all__ = [
    "Manifest",
    "call",
    "finish",
    "fitted_answer",
    "number_lines",
    "one_line",
    "quote_manifest_like",
    "score_text",
    "split_lines",
    "tokens_line",
]

#: Control characters (tab aside) as visible escapes: a file named ``"a.py\nnext: …"`` must
#: not start a line of its own, where it would read as the manifest's ``next:`` call.
_CONTROL = {c: f"\\x{c:02x}" for c in range(32) if c != 9} | {10: "\\n", 13: "\\r", 127: "\\x7f"}


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``, ``\\x1b``),
    so it stays on the line it is written in."""
    return text.translate(_CONTROL)


#: A line of an answer's body that could pass for a manifest line: after blanks and ``>``
#: marks, ``-- ctx-tree`` (any case, two dashes or more, or a dash like ``—``) or a ``next:`` /
#: ``tokens:`` label. A markdown bullet (``- ctx-tree is…``) is not one.
#: Line starts include a carriage return and the Unicode line separators, which a reader may
#: take for line breaks. docs/security.md, "Stored text cannot pose as a manifest".
_MANIFEST_LEAD = (
    r"(?=[^\S\n]*(?:>[^\S\n]*)*"
    r"(?:(?:-{2,}|[\u2013\u2014\u2015\u2212])[^\S\n]*ctx[-_ ]?tree|(?:next|tokens)[^\S\n]*:))"
)
#: Such lines after ``\n`` (the usual case: one fast ``^`` scan) ...
_MANIFEST_LIKE = re.compile("^" + _MANIFEST_LEAD, re.IGNORECASE | re.MULTILINE)
#: ... and after any line break, for text holding another kind than ``\n`` (and ``\r\n``).
_MANIFEST_LIKE_ANY_BREAK = re.compile(
    r"(?:\A|(?<=[\n\r\x0b\x0c\x85\u2028\u2029]))" + _MANIFEST_LEAD, re.IGNORECASE
)
_OTHER_BREAK = re.compile("[\x0b\x0c\x85\u2028\u2029]|\r(?!\n)")

#: The manifest's note when body lines were quoted.
QUOTED_NOTE = "{n} line{s} starting like a manifest line {a} quoted with '>'"


def quote_manifest_like(text: str) -> tuple[str, int]:
    """``text`` with one ``>`` put before each line that could pass for a manifest line, and
    how many lines were quoted.

    A line that already starts with ``>`` marks before such a label gets one more, as mail
    does with ``>From`` lines, so removing one ``>`` from each quoted line gives the text
    back. The real manifest is then the only part of an answer with a line that starts
    ``-- ctx-tree``, ``next:`` or ``tokens:``.
    """
    other = _OTHER_BREAK.search(text) is not None
    return (_MANIFEST_LIKE_ANY_BREAK if other else _MANIFEST_LIKE).subn(">", text)


def _with_quote_note(manifest: Manifest, quoted: int) -> Manifest:
    if not quoted:
        return manifest
    one = quoted == 1
    note = QUOTED_NOTE.format(n=f"{quoted:,}", s="" if one else "s", a="is" if one else "are")
    # first, before the lines that describe the content: the reader learns it before the body's ``>``
    return replace(
        manifest,
        lines=[f"note: {note}", *manifest.lines],
        optional={i + 1 for i in manifest.optional},
    )


#: One line with its end (CRLF, a lone CR or LF), or a last line without one: where the
#: chunker ends lines, so a chunk's ``metadata["lines"]`` counts these.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str, *, keepends: bool = False) -> list[str]:
    """The lines of stored file text, ended at CRLF, a lone CR or LF only, as the chunker
    counts them (``str.splitlines`` also ends a line at a form feed, ``\\v``, ``\\x1c``-``\\x1e``,
    ``\\x85``, U+2028 and U+2029, which would shift every line number after one)."""
    found = _LINE.findall(text)
    return found if keepends else [line.rstrip("\r\n") for line in found]


def number_lines(lines: Iterable[str], first: int) -> str:
    """``"<n>\\t<line>"`` per line from line number ``first`` (1-based), newline-terminated."""
    return "".join(f"{n}\t{line}\n" for n, line in enumerate(lines, first))


@dataclass
class Manifest:
    """Lines of the manifest; ``render()`` joins them under a ``-- ctx-tree`` header.

    A line added with ``optional=True`` (what was included, the list of omitted chunks) is
    dropped by ``render(compact=True)``: :func:`fitted_answer` does so when the full manifest
    would cost more than the content it describes, so the manifest stays proportionate.

    ``complete``: nothing of the source was left out. The answer is then the body alone: no
    head, no tokens line, only the ``note`` lines (:meth:`notes_footer`).
    """

    head: str
    lines: list[str] = field(default_factory=list)
    optional: set[int] = field(default_factory=set)
    complete: bool = False

    def add(self, label: str, text: str, *, optional: bool = False) -> None:
        """Add ``label: text`` (nothing when ``text`` is empty); optional lines are the first dropped when space is short."""
        if text:
            if optional:
                self.optional.add(len(self.lines))
            self.lines.append(f"{label}: {text}")

    def render(self, *, compact: bool = False) -> str:
        """The manifest's text; ``compact`` leaves out the optional lines. A line break inside
        an entry (a file name holding one) is escaped, so no entry can pass for another."""
        kept = [ln for i, ln in enumerate(self.lines) if not (compact and i in self.optional)]
        return "\n".join(one_line(ln) for ln in [f"-- ctx-tree: {self.head}", *kept]) + "\n"

    def notes_footer(self) -> str:
        """What a :attr:`complete` answer adds to its body: its ``note`` lines as one
        ``-- ctx-tree: …`` line, or ``""`` when it has none."""
        notes = [ln.removeprefix("note: ") for ln in self.lines if ln.startswith("note: ")]
        return one_line("-- ctx-tree: " + "; ".join(notes)) + "\n" if notes else ""

    def compacted(self, limit: int = 0) -> Manifest:
        """The manifest without optional lines, the longest dropped first, until it costs at
        most ``limit`` tokens (``0``: without any of them)."""
        dropped: set[int] = set()
        by_length = sorted(self.optional, key=lambda i: -len(self.lines[i]))
        for i in by_length:
            kept = [ln for j, ln in enumerate(self.lines) if j not in dropped]
            if limit and estimate_tokens(Manifest(self.head, kept).render()) <= limit:
                break
            dropped.add(i)
        return replace(
            self,
            lines=[ln for i, ln in enumerate(self.lines) if i not in dropped],
            optional={
                len([j for j in range(i) if j not in dropped]) for i in self.optional - dropped
            },
        )


def score_text(score: float) -> str:
    """A score as answers print it, whatever produced it: 3 significant digits (BM25 ``12.5``,
    cosine ``0.834``, RRF ``0.0164``: neighbouring RRF ranks stay apart), whole from 1,000."""
    return f"{score:.0f}" if abs(score) >= 1000 else f"{score:.3g}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``"1 hit"``, ``"2 hits"``, ``"3 matches"`` (``many`` overrides the plural form)."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def over_the_capture_cap(max_bytes: int) -> str:
    """Why a tool's output was cut, in the user's terms, naming the setting as
    docs/configuration.md does: ``"the output came to more than the 800,000 bytes the store
    keeps of one output (the capture.maxBytes setting)"`` (``max_bytes``: UTF-8 bytes)."""
    return (
        f"the output came to more than the {max_bytes:,} bytes the store keeps of one output "
        "(the capture.maxBytes setting)"
    )


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


def finish(
    body: str,
    manifest: Manifest,
    budget: int,
    tokens_of_source: int,
    what: str,
    *,
    terse: bool = False,
) -> str:
    """Body + manifest with the ``tokens`` line, guaranteed within ``budget`` tokens.

    ``terse``: no ``tokens`` line (the manifest's head gives the source's size); a
    :attr:`Manifest.complete` answer that fits is the body and its notes only.

    ``budget`` and ``tokens_of_source`` are estimated tokens (:func:`estimate_tokens`). The
    body's lines that could pass for manifest lines are quoted (:func:`quote_manifest_like`)
    and the manifest says how many. The body is expected to have been fitted already; if the
    total still exceeds the budget, the manifest's optional lines go first, then the body is
    cut at a line boundary and says so.
    """
    body, quoted = quote_manifest_like(body)
    manifest = _with_quote_note(manifest, quoted)
    return _finish_quoted(body, manifest, budget, tokens_of_source, what, terse)


def _finish_quoted(
    body: str, manifest: Manifest, budget: int, tokens_of_source: int, what: str, terse: bool
) -> str:
    from ctx_tree_mcp.answers.budget import fit_lines

    if manifest.complete:
        text = body + manifest.notes_footer()
        if estimate_tokens(text) <= budget:
            return text
        manifest = replace(manifest, complete=False)  # it does not fit after all: cut below
    rendered = manifest.render()

    def assemble(b: str) -> str:
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
    rendered = manifest.render(compact=True)
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
    if estimate_tokens(text) > budget:  # the manifest nearly fills the budget: it goes first
        text = assemble("")
    if estimate_tokens(text) > budget:  # pathological: manifest alone exceeds the budget
        text, _ = fit_lines(text, budget)
    return text


def fitted_answer(
    budget: int,
    make_body: Callable[[int], tuple[str, Any]],
    make_manifest: Callable[[Any], Manifest],
    source_tokens: int | Callable[[], int],
    what: str,
    reserve: int = MANIFEST_RESERVE,
    *,
    terse: bool = False,
) -> str:
    """Answer whose body was built for the room the manifest really leaves.

    ``make_body(room_tokens) -> (body, state)`` builds the content within ``room_tokens``;
    ``make_manifest(state)`` describes it (so pointers like ``next`` are exact);
    ``source_tokens`` may be a callable read after the last ``make_manifest``. The first
    try leaves ``reserve`` tokens (at most half the budget) for the manifest; the body is then
    rebuilt for the room the manifest really leaves: less when it is larger, more when it is
    smaller. The manifest's optional lines (the longest first) are dropped while it costs more than a
    quarter of the budget, or more than the body (past
    :data:`PROPORTIONATE_FLOOR` tokens), so a small budget still gets content.

    ``terse`` (see :func:`finish`): the body is first built for the whole budget; when that
    leaves nothing out (:attr:`Manifest.complete`) and fits, it is the answer, with no
    manifest.
    """
    tokens_reserve = 0 if terse else TOKENS_LINE_RESERVE
    if terse:
        raw, state = make_body(budget)
        body, quoted = quote_manifest_like(raw)
        manifest = _with_quote_note(make_manifest(state), quoted)
        if manifest.complete and estimate_tokens(body + manifest.notes_footer()) <= budget:
            return body + manifest.notes_footer()
    room = budget - min(reserve, budget // 2)
    chosen: tuple[str, Manifest] | None = None
    for _ in range(5):
        raw, state = make_body(max(room, 0))
        body, quoted = quote_manifest_like(raw)
        manifest = _with_quote_note(make_manifest(state), quoted)
        cost = estimate_tokens(manifest.render())
        limit = min(budget // 4, max(estimate_tokens(body), PROPORTIONATE_FLOOR))
        if cost > limit:
            manifest = manifest.compacted(limit)
            cost = estimate_tokens(manifest.render())
        if manifest.complete:
            cost = estimate_tokens(manifest.notes_footer())
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
    return _finish_quoted(chosen[0], chosen[1], budget, whole, what, terse)
