"""Search terms: identifier splitting for the ``terms`` FTS column and safe FTS5 queries.

FTS5's ``unicode61`` tokenizer already splits ``snake_case`` at ``_``, but not ``camelCase``;
``index_terms`` adds the camelCase parts (and symbol and path words), so ``get app dir`` finds
``getAppDir``. ``match_query`` turns any user string into a valid FTS5 expression: each word
quoted as a string (so ``AND``, ``NEAR``, ``*``, ``"``, ``(`` and ``-`` are plain text), OR-ed,
so BM25 ranks nodes that match more of the words higher. No FTS5 syntax error can reach a caller.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

MAX_QUERY_WORDS = 32


def split_identifier(name: str) -> list[str]:
    """``"getHTTPResponse_code"`` → ``["get", "HTTP", "Response", "code"]``."""
    parts: list[str] = []
    for piece in name.split("_"):
        parts.extend(_CAMEL.findall(piece))
    return parts


def index_terms(content: str, *extra: str | None) -> str:
    """Words to index beside ``content``: camelCase parts of its identifiers, plus ``extra``
    strings (symbol names, paths) split the same way, lower-cased, each once."""
    seen: dict[str, None] = {}
    for text in (*[e for e in extra if e], content):
        for ident in _IDENT.findall(text):
            parts = split_identifier(ident)
            if len(parts) > 1 or text is not content:
                for part in parts:
                    seen.setdefault(part.lower(), None)
    return " ".join(seen)


def query_words(query: str) -> list[str]:
    """Lower-cased words of a query, identifiers split, first :data:`MAX_QUERY_WORDS` unique ones."""
    words: dict[str, None] = {}
    for raw in _WORD.findall(query):
        words.setdefault(raw.lower(), None)
        for part in split_identifier(raw):
            words.setdefault(part.lower(), None)
    return list(words)[:MAX_QUERY_WORDS]


def match_query(query: str) -> str | None:
    """A valid FTS5 MATCH expression for ``query`` (words OR-ed, each a quoted string), or None
    when the query holds no word at all (then nothing can match)."""
    words = query_words(query)
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
