"""Search terms: identifier splitting for the ``terms`` FTS column and safe FTS5 queries.

FTS5's ``unicode61`` tokenizer already splits ``snake_case`` at ``_``, but not ``camelCase``;
``index_terms`` adds the camelCase parts (and symbol and path words), so ``get app dir`` finds
``getAppDir``. ``match_query`` turns any user string into a valid FTS5 expression: each word
quoted as a string (so ``AND``, ``NEAR``, ``*``, ``"``, ``(`` and ``-`` are plain text), OR-ed,
so BM25 ranks nodes that match more of the words higher. No FTS5 syntax error can reach a caller.

Chinese, Japanese and Korean text has no spaces between words, so ``unicode61`` keeps a whole
run (``本工具在后台静默运行``) as one token and no word inside it could be found. ``index_terms``
therefore adds every character and every pair of adjacent characters of such runs (bigrams, as
CJK search engines do), and a query's CJK run becomes its bigrams: ``静默`` finds the run above.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CAMEL_BYTES = re.compile(_CAMEL.pattern.encode("ascii"))
#: Maps every byte but ASCII letters and digits to a space (identifier runs for camelCase).
_ASCII_ALNUM = bytes(b if chr(b).isascii() and chr(b).isalnum() else 0x20 for b in range(256))

MAX_QUERY_WORDS = 32
#: Runs of Han, Hiragana, Katakana, Hangul and Bopomofo characters (no spaces between words).
_CJK = re.compile(
    "[\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]+"
)


#: Bytes below 0xE3, the UTF-8 lead byte of U+3000 (deleted to see whether any remain).
_BELOW_CJK = bytes(range(0xE3))


def cjk_terms(text: object) -> str:
    """Every CJK character and adjacent pair of ``text``'s CJK runs, space-separated, each
    once (``"静默运行"`` → ``"静 默 运 行 静默 默运 运行"``); ``""`` for text without CJK."""
    if not isinstance(text, str) or text.isascii():
        return ""
    if not text.encode("utf-8", "surrogatepass").translate(None, _BELOW_CJK):
        return ""  # no UTF-8 lead byte of U+3000 or above: no CJK, skip the regex
    seen: dict[str, None] = {}
    for run in _CJK.findall(text):
        for ch in run:
            seen.setdefault(ch, None)
        for i in range(len(run) - 1):
            seen.setdefault(run[i : i + 2], None)
    return " ".join(seen)


def _cjk_query_terms(run: str) -> list[str]:
    """A query's CJK run as index terms: one character, else its bigrams."""
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def split_identifier(name: str) -> list[str]:
    """``"getHTTPResponse_code"`` → ``["get", "HTTP", "Response", "code"]``."""
    parts: list[str] = []
    for piece in name.split("_"):
        parts.extend(_CAMEL.findall(piece))
    return parts


def index_terms(content: str, *extra: str | None, encoded: bytes | None = None) -> str:
    """Words to index beside ``content``: the camelCase parts of its identifiers, plus every
    word of the ``extra`` strings (symbol names, paths) split the same way; lower-cased, each
    once. ``snake_case`` parts of ``content`` are left out: the tokenizer already splits there.
    ``encoded``: ``content`` as UTF-8 (surrogates passed), when the caller has it.
    """
    seen: dict[str, None] = {}
    for text in extra:
        if text:
            for ident in _IDENT.findall(text):
                for part in split_identifier(ident):
                    seen.setdefault(part.lower(), None)
    # Bytes and a translate table: several times faster than a regex over the text.
    if encoded is None:
        encoded = content.encode("utf-8", "surrogatepass")
    raw = encoded.translate(_ASCII_ALNUM)
    # A word to split has both cases: text without both (logs, numbers) skips the loop.
    mixed = raw.lower() != raw and raw.upper() != raw
    for word in set(raw.split()) if mixed else ():
        if word.islower() or word.isupper() or word[1:].islower() or word.isdigit():
            continue  # one case throughout, Capitalized or a number: nothing to split
        parts = _CAMEL_BYTES.findall(word)
        if len(parts) > 1:
            for part in parts:
                seen.setdefault(part.decode("ascii").lower(), None)
    for text in (content, *extra):
        if text and (cjk := cjk_terms(text)):
            for gram in cjk.split(" "):
                seen.setdefault(gram, None)
    return " ".join(seen)


def _raw_words(query: str) -> list[str]:
    """The query's words as typed, with each CJK run split off as a word of its own."""
    out: list[str] = []
    for raw in _WORD.findall(query):
        if raw.isascii() or not _CJK.search(raw):
            out.append(raw)
            continue
        pos = 0
        for m in _CJK.finditer(raw):
            if m.start() > pos:
                out.append(raw[pos : m.start()])
            out.append(m.group())
            pos = m.end()
        if pos < len(raw):
            out.append(raw[pos:])
    return out


def query_words(query: str) -> list[str]:
    """Lower-cased words of a query, identifiers split, CJK runs as bigrams, first
    :data:`MAX_QUERY_WORDS` unique ones."""
    words: dict[str, None] = {}
    for raw in _raw_words(query):
        if _CJK.fullmatch(raw):
            for gram in _cjk_query_terms(raw):
                words.setdefault(gram, None)
            continue
        words.setdefault(raw.lower(), None)
        for part in split_identifier(raw):
            words.setdefault(part.lower(), None)
    return list(words)[:MAX_QUERY_WORDS]


def fallback_words(query: str) -> list[str]:
    """The words a search may match *some* of (when no node has them all): those of
    :func:`query_words` except identifier parts that are lone digits or single letters
    (``qwertyuiop3`` must not fall back to ``3``). A word typed as such is always kept."""
    typed = {w.lower() for w in _raw_words(query)}
    return [
        w
        for w in query_words(query)
        if w in typed or _CJK.fullmatch(w) or (len(w) > 1 and not w.isdigit())
    ]


def match_query(query: str) -> str | None:
    """A valid FTS5 MATCH expression for ``query`` (words OR-ed, each a quoted string), or None
    when the query holds no word at all (then nothing can match)."""
    words = query_words(query)
    if not words:
        return None
    return " OR ".join(_quote(w) for w in words)


def match_all_query(query: str) -> str | None:
    """An FTS5 expression requiring every word of ``query`` (implicit-AND semantics), or None
    when the query has fewer than two words (then it equals :func:`match_query`'s).

    A word that splits into identifier parts matches either whole or as all of its parts:
    ``getAppDir`` becomes ``("getappdir" OR ("get" AND "app" AND "dir"))``, so it finds both
    ``getAppDir`` (whose parts are in the ``terms`` column) and ``get_app_dir``.
    """
    groups: dict[str, None] = {}
    for raw in _raw_words(query):
        if _CJK.fullmatch(raw):
            grams = _cjk_query_terms(raw)
            group = " AND ".join(_quote(g) for g in grams)
            groups.setdefault(f"({group})" if len(grams) > 1 else group, None)
            continue
        parts = [p.lower() for p in split_identifier(raw)]
        whole = _quote(raw.lower())
        if len(parts) > 1:
            group = f"({whole} OR ({' AND '.join(_quote(p) for p in dict.fromkeys(parts))}))"
        else:
            group = whole
        groups.setdefault(group, None)
        if len(groups) >= MAX_QUERY_WORDS:
            break
    if len(groups) < 2 and not any(g.startswith("(") for g in groups):
        return None
    return " AND ".join(groups)


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'
