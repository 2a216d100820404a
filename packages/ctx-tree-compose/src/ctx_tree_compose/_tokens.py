"""THE token estimator of ctx-tree, and the line-aware cut that goes with it.

A BPE tokenizer (the yardstick is OpenAI's ``cl100k_base``) spends very different numbers of
tokens on the same number of characters: about one per four characters of English or Python,
one per two of a lockfile's hashes, one or more per Chinese character, two to three per
emoji, and one for an 80-character ``====`` rule. ``ceil(chars / 4)`` therefore let a 300-token
answer of Chinese cost about 730 real tokens. :func:`estimate_tokens` instead maps the UTF-8
bytes to classes (``bytes.translate``) and counts, in C, what a BPE splits on:

* word starts, camelCase humps, long words (every 8 lower-case letters), upper-case letters,
  number starts and 3-digit groups, letter-digit boundaries (hex hashes), punctuation marks and
  groups, spaces and line ends;
* the merges it makes: a second space (indentation), a line end after a line end or after
  punctuation (``):\n``), a second punctuation mark (``==``), and a run of 4 or more of one
  punctuation character (``=====``, pytest's dots) as one run;
* other characters by their UTF-8 lead byte, which tells the script apart: 2-byte (Latin
  accents, Greek, Cyrillic, Hebrew, Arabic) 0.45-2.5 a character, as they join into words;
  ``U+0800``-``U+1FFF`` (Indic, Thai, …) 1.5; ``U+2000``-``U+2FFF`` (symbols, arrows, ZWJ)
  2.2; CJK and kana 1.1-1.5; Hangul 1.25; ``U+E000``-``U+FFFF`` 1.0; 4-byte (emoji) 3.0.

Pairs of classes are counted as bit planes of one integer (an AND and a popcount each).
The ASCII weights were fitted against ``cl100k_base`` on 1,200-character windows of code, logs,
test-runner output and prose (``bench/tokens.py``): the median estimate is 1.04-1.08 times the
real count for each kind, 5% of windows fall under 0.99 and few under 0.91; ``o200k_base``
agrees as closely (``docs/benchmarks.md``). Text of random rare CJK characters, raw base64 and
random capitals are the known cases it underestimates. It costs tens of microseconds per
kilobyte; texts of 16 to 65,536 characters are memoised.
"""

from __future__ import annotations

import re
from functools import lru_cache
from math import ceil

#: Characters per estimated token for a length alone (:func:`tokens_for_chars`): the ASCII
#: prose and code rate.
CHARS_PER_TOKEN = 4
#: No text of more than ``MAX_CHARS_PER_TOKEN * n + MAX_CHARS_PER_TOKEN`` characters is
#: estimated at ``n`` tokens or fewer (the cheapest character, one more of a run of ``=`` or
#: ``.``, weighs 0.025): a length test that skips estimating texts that cannot fit.
MAX_CHARS_PER_TOKEN = 48


def _class_table() -> bytes:
    """Byte → class letter: ``a`` ASCII lower-case letter, ``A`` upper-case, ``0`` digit,
    space, ``n`` line end, ``.`` other ASCII; UTF-8 lead bytes: ``p`` Latin-1 signs, ``l`` Latin-1 letters and extended,
    ``g`` Greek, ``y`` Cyrillic, ``w`` Hebrew, ``r`` Arabic, ``b`` other 2-byte, ``e``
    U+0800-1FFF, ``s`` U+2000-2FFF, ``k`` U+3000-3FFF, ``c`` U+4000-9FFF, ``h`` U+A000-DFFF,
    ``f`` U+E000-FFFF, ``d`` 4-byte; ``x`` continuation byte (not counted)."""
    table = bytearray(256)
    for byte in range(256):
        char = chr(byte)
        if byte < 128:
            if char.isalpha():
                cls = "A" if char.isupper() else "a"
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
        elif byte == 0xC2:  # U+0080-00BF: Latin-1 punctuation and signs (· « © ¿), one token
            cls = "p"
        elif byte < 0xCE:  # U+00C0-037F: Latin-1 letters, Latin extended, IPA, diacritics
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
#: Bits of the ASCII classes (a class → one bit of a byte): each class is then a bit plane of
#: one big integer, and "how often is class X followed by class Y" is an AND and a popcount
#: (C speed; ``bytes.count`` of a 2-byte pattern is about ten times slower).
_BIT = {"a": 0, "A": 1, "0": 2, " ": 3, "n": 4, ".": 5}
_BITS = bytes(1 << _BIT[chr(c)] if chr(c) in _BIT else 0 for c in range(256))
#: What each figure of :func:`_features` costs (tokens), fitted against cl100k_base on code,
#: logs, test output and prose (``bench/tokens.py``, docs/benchmarks.md). A letter costs nothing
#: by itself: a word costs its start, and every full 8 lower-case letters one more piece. A
#: negative weight is a merge a BPE makes (a second space, ``):\n``, ``==``); each is at most
#: the weight of the character it follows, so adding a character never lowers the estimate. A
#: run of 4 or more of one punctuation character (``=====``, pytest's dots) costs a run and a
#: little per character instead of a punctuation mark per character.
_WEIGHTS = (
    0.401,  # upper-case letters
    0.082,  # digits
    0.587,  # punctuation marks outside runs
    0.362,  # spaces
    1.841,  # line ends
    1.174,  # letter next to a digit (hex, ids)
    0.643,  # word starts
    1.551,  # camelCase humps
    0.186,  # punctuation groups
    1.342,  # number starts
    0.0,  # digit after a digit
    0.815,  # 3 digits in a row
    0.939,  # 8 lower-case letters in a row
    2.561,  # runs of one punctuation character
    0.282,  # characters of those runs past the fourth
    -0.326,  # space after a space
    -0.201,  # upper-case after upper-case
    -1.791,  # line end after a line end
    -1.6,  # line end after punctuation
    -0.257,  # punctuation after punctuation
    1.0,  # non-ASCII characters, weighted by script (_W_NON_ASCII)
)
#: Per punctuation character: its 4-run (a C-speed ``in`` gate) and the pattern of its runs
#: (a literal prefix, which the regex engine scans for fast).
_RUNS = tuple(
    (char.encode() * 4, re.compile(re.escape(char.encode() * 4) + re.escape(char.encode()) + b"*"))
    for char in "-=.*_#~+/<>|^`'\"!?,:;\\"
)
#: The run pattern of each of those characters, by byte value; ``None`` for the others.
_RUN_PATTERNS: list[re.Pattern[bytes] | None] = [None] * 256
for _seed, _pattern in _RUNS:
    _RUN_PATTERNS[_seed[0]] = _pattern
_W_NON_ASCII = (
    (b"p", 1.0),
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


def _runs(data: bytes, classes: bytes) -> tuple[int, int]:
    """How many runs of 4+ of one punctuation character ``data`` holds, and their characters.

    ``classes`` (its classes after one leading space; ASCII ``data`` only) gives where 4
    punctuation marks stand in a row; each such place is checked for one repeated character.
    Past 64 places (dense punctuation), each character's 4-run is looked for instead."""
    runs = chars = 0
    at = classes.find(b"....")
    if at < 0:
        return 0, 0
    if len(classes) == len(data) + 1:
        for _ in range(64):
            start = at - 1
            pattern = _RUN_PATTERNS[data[start]]
            found = pattern.match(data, start) if pattern is not None else None
            if found is not None:
                end = found.end()
                runs += 1
                chars += end - start
                at = classes.find(b"....", end + 1)
            else:
                at = classes.find(b"....", at + 1)
            if at < 0:
                return runs, chars
    runs = chars = 0
    for seed, pattern in _RUNS:
        if seed in data:
            for match in pattern.finditer(data):
                runs += 1
                chars += match.end() - match.start()
    return runs, chars


def _features(text: str) -> tuple[float, ...]:
    """The figures :data:`_WEIGHTS` weigh, in its order (``text`` not empty)."""
    data = text.encode("utf-8", "surrogatepass")
    ascii_only = len(data) == len(text)
    # continuation bytes carry no class: dropped, so the counts scan a third of a CJK text. A
    # leading space makes the first word a word start like any other.
    kept = data if ascii_only else data.translate(None, _CONTINUATION)
    classes = (b" " + kept).translate(_CLASSES)
    count = classes.count
    bits = int.from_bytes(classes.translate(_BITS), "big")
    ones = int.from_bytes(b"\x01" * len(classes), "big")
    lower, upper, digit, space, newline, punct = ((bits >> i) & ones for i in range(6))
    letter, sep = lower | upper, space | newline | punct
    after_sep, after_letter, after_digit = sep >> 8, letter >> 8, digit >> 8
    after_punct, after_upper = punct >> 8, upper >> 8
    runs, run_chars = _runs(data, classes)
    n_punct = count(b".")
    punct_pairs = (after_punct & punct).bit_count()
    non_ascii = 0.0
    if not ascii_only:
        non_ascii = sum(weight * count(cls) for cls, weight in _W_NON_ASCII)
    return (
        count(b"A"),
        count(b"0"),
        n_punct - run_chars,
        count(b" "),
        count(b"n"),
        (after_letter & digit).bit_count() + (after_digit & letter).bit_count(),
        (after_sep & letter).bit_count(),
        ((lower >> 8) & upper).bit_count(),
        n_punct - punct_pairs,
        (after_sep & digit).bit_count(),
        (after_digit & digit).bit_count(),
        count(b"000"),
        count(b"aaaaaaaa"),
        runs,
        run_chars - 4 * runs,
        ((space >> 8) & space).bit_count(),
        (after_upper & upper).bit_count(),
        ((newline >> 8) & newline).bit_count(),
        (after_punct & newline).bit_count(),
        punct_pairs,
        non_ascii,
    )


def _estimate(text: str) -> int:
    if not text:
        return 0
    estimate = sum(w * f for w, f in zip(_WEIGHTS, _features(text), strict=True))
    return max(1, ceil(estimate - _WEIGHTS[3]))  # the leading space is not the text's


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
