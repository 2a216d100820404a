"""ctx-tree's side of an answer: its look (:data:`STYLE`), the quoting that keeps stored
text from posing as a manifest, numbered lines (like native Read) and the wording of scores,
counts and cuts.

Every answer is plain text: the content first, then a compact manifest starting ``-- ctx-tree``
that says what was left out and the exact call that returns more. An answer that left nothing
out (:attr:`~ctx_tree_compose.Manifest.complete`) is the content alone, as the native tool
would print it; its notes, if any, follow as one ``-- ctx-tree:`` line. The manifest's format
and every budget rule are ``ctx-tree-compose``'s (:func:`~ctx_tree_compose.fit_answer`);
docs/tools.md, "Footer and manifest".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from ctx_tree_compose import (
    MANIFEST_RESERVE,
    Manifest,
    Style,
    finish_answer,
    fit_answer,
)

from ctx_tree_mcp.answers.surface import call

#: Whatever a tool's body builder hands to its manifest builder (:func:`fitted_answer`).
State = TypeVar("State")

__all__ = [
    "STYLE",
    "Manifest",
    "call",
    "finish",
    "fitted_answer",
    "number_lines",
    "one_line",
    "quote_manifest_like",
    "score_text",
    "split_lines",
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


def _guard(body: str) -> tuple[str, str | None]:
    """The body with its manifest-like lines quoted, and the note that says so (or None)."""
    body, quoted = quote_manifest_like(body)
    if not quoted:
        return body, None
    one = quoted == 1
    return body, QUOTED_NOTE.format(n=f"{quoted:,}", s="" if one else "s", a="is" if one else "are")


#: How ctx-tree's answers look (compose's :class:`~ctx_tree_compose.Style`): a manifest under
#: ``-- ctx-tree:``, each of its lines on one line (:func:`one_line`), and every body quoted
#: (:func:`quote_manifest_like`) before it is measured, the note about it first.
STYLE = Style(lead="ctx-tree", escape=one_line, guard=_guard)


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


def score_text(score: float) -> str:
    """A score as answers print it, whatever produced it: 3 significant digits (BM25 ``12.5``,
    cosine ``0.834``, RRF ``0.0164``: neighbouring RRF ranks stay apart), whole from 1,000."""
    return f"{score:.0f}" if abs(score) >= 1000 else f"{score:.3g}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``"1 hit"``, ``"2 hits"``, ``"3 matches"`` (``many`` overrides the plural form)."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def size_text(size: int) -> str:
    """A size in bytes as people read it, in decimal units with about two significant
    digits: ``"512 bytes"``, ``"254 KB"``, ``"2.8 MB"``, ``"1.3 GB"`` (never ``"0.0 MB"``)."""
    if size < 1000:
        return plural(size, "byte")
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        value = size / scale
        if value < 9.95:
            return f"{value:.1f} {unit}"
        if value < 999.5:
            return f"{value:.0f} {unit}"
    return f"{size / 1e12:,.1f} TB"


def over_the_capture_cap(max_bytes: int) -> str:
    """Why a tool's output was cut, in the user's terms, naming the setting as
    docs/configuration.md does: ``"the output came to more than the 800,000 bytes the store
    keeps of one output (the capture.maxBytes setting)"`` (``max_bytes``: UTF-8 bytes)."""
    return (
        f"the output came to more than the {max_bytes:,} bytes the store keeps of one output "
        "(the capture.maxBytes setting)"
    )


def finish(
    body: str,
    manifest: Manifest,
    budget: int,
    tokens_of_source: int,
    what: str,
    *,
    terse: bool = False,
) -> str:
    """:func:`ctx_tree_compose.finish_answer` in ctx-tree's :data:`STYLE`: body + manifest +
    ``tokens`` line within ``budget`` tokens, the body's manifest-like lines quoted."""
    return finish_answer(body, manifest, budget, tokens_of_source, what, terse=terse, style=STYLE)


def fitted_answer(
    budget: int,
    make_body: Callable[[int], tuple[str, State]],
    make_manifest: Callable[[State], Manifest],
    source_tokens: int | Callable[[], int],
    what: str,
    reserve: int = MANIFEST_RESERVE,
    *,
    terse: bool = False,
) -> str:
    """:func:`ctx_tree_compose.fit_answer` in ctx-tree's :data:`STYLE`: the body built for the
    room its manifest really leaves, the whole within ``budget`` tokens."""
    return fit_answer(
        budget, make_body, make_manifest, source_tokens, what, reserve, terse=terse, style=STYLE
    )
