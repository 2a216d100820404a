"""THE token estimator of ctx-tree, and the line-aware cut that goes with it.

A BPE tokenizer (the yardstick is OpenAI's ``cl100k_base``) spends very different numbers of
tokens on the same number of characters: about one per four characters of English or Python,
one per two of a lockfile's hashes, one or more per Chinese character, two to three per
emoji. ``ceil(chars / 4)`` therefore let a 300-token answer of Chinese cost about 730 real
tokens. :func:`estimate_tokens` instead counts classes of bytes of the UTF-8 text in C
(``bytes.translate`` then ``bytes.count``), and weighs them:

* ASCII: letters, digits, punctuation, spaces and line ends, plus the boundaries that split a
  BPE token (a word start after a space, a letter next to a digit as in hex hashes);
* other characters by their UTF-8 lead byte, which tells the script apart: 2-byte (Latin
  accents, Greek, Cyrillic, Hebrew, Arabic) 0.45 a character, as they join into words;
  ``U+0800``-``U+1FFF`` (Indic, Thai, …) 1.5; ``U+2000``-``U+2FFF`` (symbols, arrows, ZWJ)
  2.2; CJK and kana 1.4; Hangul 1.4; ``U+E000``-``U+FFFF`` (variation selectors, fullwidth
  forms) 1.0; 4-byte (emoji, rare CJK) 3.0.

The weights were fitted so that the estimate is at least the ``cl100k_base`` count on every
1,200-character window of a corpus of Python, JavaScript, TypeScript, Go and Rust sources,
Markdown, lockfiles, Russian, Chinese, Japanese and Korean prose and emoji, and rarely more than
1.3 times it (``docs/benchmarks.md``). Text of random rare CJK characters (two to three tokens
each) and raw base64 are the known cases it underestimates. It costs a few microseconds per
kilobyte.
"""

from __future__ import annotations

from functools import lru_cache
from math import ceil

#: Characters per estimated token for a length alone (:func:`tokens_for_chars`): the ASCII
#: prose and code rate.
CHARS_PER_TOKEN = 4
#: No text of more than ``MAX_CHARS_PER_TOKEN * n + MAX_CHARS_PER_TOKEN`` characters is
#: estimated at ``n`` tokens or fewer (the cheapest character, a space, weighs 0.064): a length
#: test that skips estimating texts that cannot fit.
MAX_CHARS_PER_TOKEN = 16


def _class_table() -> bytes:
    """Byte → class letter: ``a`` ASCII letter, ``0`` digit, space, ``n`` line end, ``.``
    other ASCII; UTF-8 lead bytes: ``b`` 2-byte, ``e`` U+0800-1FFF, ``s`` U+2000-2FFF,
    ``c`` U+3000-9FFF, ``h`` U+A000-DFFF, ``f`` U+E000-FFFF, ``d`` 4-byte; ``x``
    continuation byte (not counted)."""
    table = bytearray(256)
    for byte in range(256):
        char = chr(byte)
        if byte < 128:
            if char.isalpha():
                cls = "a"
            elif char.isdigit():
                cls = "0"
            elif char in "\r\n":
                cls = "n"
            elif char.isspace():
                cls = " "
            else:
                cls = "."
        elif byte < 0xC0:
            cls = "x"
        elif byte < 0xCE:  # U+0080-037F: Latin-1, Latin extended, IPA, diacritics
            cls = "l"
        elif byte < 0xD0:  # U+0380-03FF: Greek
            cls = "g"
        elif byte < 0xD4:  # U+0400-04FF: Cyrillic
            cls = "y"
        elif 0xD6 <= byte < 0xD8:  # U+0580-05FF: Hebrew (and the end of Armenian)
            cls = "w"
        elif 0xD8 <= byte < 0xDC:  # U+0600-06FF: Arabic
            cls = "r"
        elif byte < 0xE0:  # other 2-byte: Armenian, Syriac, Thaana, N'Ko, ...
            cls = "b"
        elif byte < 0xE2:
            cls = "e"
        elif byte == 0xE2:
            cls = "s"
        elif byte == 0xE3:  # U+3000-3FFF: CJK punctuation, kana
            cls = "k"
        elif byte < 0xEA:  # U+4000-9FFF: Han
            cls = "c"
        elif byte < 0xEE:
            cls = "h"
        elif byte < 0xF0:
            cls = "f"
        else:
            cls = "d"
        table[byte] = ord(cls)
    return bytes(table)


_CLASSES = _class_table()
_CONTINUATION = bytes(range(0x80, 0xC0))
# Weights per class count (tokens), fitted against cl100k_base (see the module docstring).
_W_LETTER, _W_DIGIT, _W_PUNCT, _W_SPACE, _W_NEWLINE = 0.157, 0.83, 0.645, 0.064, 0.979
_W_LETTER_DIGIT, _W_WORD, _W_PUNCT_RUN = 1.386, 0.346, 0.213
_W_NON_ASCII = (
    (b"l", 2.5),  # an accent marks a language whose words split into more tokens than English
    (b"g", 1.15),
    (b"y", 0.7),
    (b"w", 1.35),
    (b"r", 0.9),
    (b"b", 1.3),
    (b"e", 1.5),
    (b"s", 2.2),
    (b"k", 1.1),
    (b"c", 1.5),
    (b"h", 1.25),
    (b"f", 1.0),
    (b"d", 3.0),
)


def estimate_tokens(text: str) -> int:
    """Estimate the tokens ``text`` costs an agent (see the module docstring for how).

    This is THE estimator of ctx-tree: every budget, node size and manifest figure is in
    these units. ``""`` costs 0; any other text at least 1. Adding text never lowers the
    estimate (every weight is positive), so a prefix never costs more than its text.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"estimate_tokens() needs a str, got {type(text).__name__}")
    if _CACHE_MIN <= len(text) <= _CACHE_MAX:
        return _cached(text)
    return _estimate(text)


#: Texts of these lengths (characters) are memoised: a stored chunk is estimated again on every
#: answer that lists it, and its ``str`` keeps its hash, so a hit costs a dict lookup.
_CACHE_MIN, _CACHE_MAX = 16, 1 << 16


@lru_cache(maxsize=8192)
def _cached(text: str) -> int:
    return _estimate(text)


def _estimate(text: str) -> int:
    if not text:
        return 0
    data = text.encode("utf-8", "surrogatepass")
    ascii_only = len(data) == len(text)
    # continuation bytes carry no class: dropped, so the counts scan a third of a CJK text
    count = (data if ascii_only else data.translate(None, _CONTINUATION)).translate(_CLASSES).count
    estimate = (
        _W_LETTER * count(b"a")
        + _W_DIGIT * count(b"0")
        + _W_PUNCT * count(b".")
        + _W_SPACE * count(b" ")
        + _W_NEWLINE * count(b"n")
        + _W_LETTER_DIGIT * (count(b"a0") + count(b"0a"))
        + _W_WORD * (count(b" a") + count(b".a") + count(b"na"))
        + _W_PUNCT_RUN * (count(b" .") + count(b"a.") + count(b"n."))
    )
    if not ascii_only:
        estimate += sum(weight * count(cls) for cls, weight in _W_NON_ASCII)
    return max(1, ceil(estimate))


def tokens_for_chars(chars: int) -> int:
    """An estimate for a text known only by its length (``length(content)`` from SQL), at the
    ASCII rate ``ceil(chars / 4)``: a planning figure; what is finally shown is measured
    with :func:`estimate_tokens`. Raises ``ValueError`` for a negative count."""
    if chars < 0:
        raise ValueError(f"chars must be >= 0, got {chars}")
    return -(-chars // CHARS_PER_TOKEN)


def fit_lines(text: str, budget_tokens: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``budget_tokens`` (as estimated by :func:`estimate_tokens`).

    Returns ``(prefix, truncated)``. ``prefix`` is the longest prefix of whole lines (a
    line ends with, and keeps, its ``"\\n"``) whose estimate is ``<= budget_tokens``; if
    not even the first line fits, the longest prefix of the first line that fits, so the
    result is never over budget. ``truncated`` is True when ``prefix != text``.
    ``fit_lines(text, b)`` with a text that already fits returns ``(text, False)``.

    Raises:
        ValueError: ``budget_tokens`` is negative.
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"fit_lines() needs a str, got {type(text).__name__}")
    if budget_tokens < 0:
        raise ValueError(f"budget_tokens must be >= 0, got {budget_tokens}")
    if len(text) <= MAX_CHARS_PER_TOKEN * (budget_tokens + 1) and (
        estimate_tokens(text) <= budget_tokens
    ):
        return text, False
    # Binary searches (the estimate only grows with the prefix).
    limit = min(len(text), MAX_CHARS_PER_TOKEN * (budget_tokens + 1))
    low, high = 0, limit  # the largest position whose whole lines before it fit
    while low < high:
        mid = (low + high + 1) // 2
        if _estimate(text[: text.rfind("\n", 0, mid) + 1]) <= budget_tokens:
            low = mid
        else:
            high = mid - 1
    end = text.rfind("\n", 0, low) + 1
    if end:
        return text[:end], True
    # Not one whole line fits: the longest prefix of characters that does.
    low, high = 0, min(limit, (text.find("\n") + 1) or len(text))
    while low < high:
        mid = (low + high + 1) // 2
        if _estimate(text[:mid]) <= budget_tokens:
            low = mid
        else:
            high = mid - 1
    return text[:low], True
