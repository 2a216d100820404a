"""Secret redaction, applied before every insert and to every answer (see ``docs/security.md``).

Each secret is replaced in place by ``[REDACTED:<tag>]``; the rest of the line is kept. A match
that spans lines (a PEM block) keeps its line breaks, so line numbers stay true. Two kinds of
rule:

* **Known formats**: AWS key ids and secret keys, GitHub, Slack, Google, Stripe and SendGrid
  (``SG.``-style dotted) keys, ``sk-`` provider keys, JWTs, ``Bearer`` tokens, PEM private key
  blocks (``BEGIN … END``, or a ``BEGIN`` line and the base64 body after it when the ``END`` is
  missing), passwords in URLs (``scheme://user:password@host``) and webhook URLs whose path is
  the secret (Slack, Discord, Teams, Zapier), HTTP Basic credentials, a password on a
  ``curl``/``mysql`` command line and Hugging Face tokens.
* **Environment dumps**: three or more ``NAME=value`` lines in a row, two of whose names a
  process environment holds (``HOME``, ``PATH``, ``SHELL``, …): values replaced, names kept.
  :func:`redact_environment` is the stricter form for an answer that may quote a refused
  command's output.
* **Assignments**: the value after a secret-like name (``password``, ``pwd``, ``secret``,
  ``token``, ``api_key``, ``AccountKey``, ``credential``, …) and ``=``, ``:``, ``:=`` or ``=>``,
  in code, YAML, ``.env`` and ``;``-separated connection strings, and a password given in
  prose (``the password is …``). Whether a value given to a password is one is decided by
  one rule, :func:`_is_password`, by where it is written; for other names only values of 16+
  characters with high Shannon entropy are secrets. Ordinary constants are kept: values
  holding spaces, identifiers and header names made of words
  (``x-session-token-header-name``), code, paths, URLs, numbers and placeholders (``${VAR}``,
  ``changeme``, ``<password>``).

Every rule runs only when the lower-cased text holds one of its trigger literals (a substring
test is ~40x cheaper than a regex scan, and most text holds no secret); the assignment rule is
tried only where a secret-like name starts. Regex-based, so a novel format may pass. Each
pattern is compiled on its first use (:class:`_Lazy`): the capture hooks load this module in a
fresh process per event, where compiling every rule cost more than running the few whose
trigger the text holds.

Contract: standard library only, Python 3.8 syntax and ``re`` features (no possessive
quantifiers or atomic groups, which need 3.11): the plugin's hooks load this file by path under
the host's ``python3`` (docs/capture.md), and the ``hooks-oldest`` nox session checks that 3.8
redacts a corpus exactly as the server's Python does.
"""

from __future__ import annotations

import sys

#: Names only type checkers import (mypy takes any ``TYPE_CHECKING`` for true): ``typing``
#: would load ``re``, and importing ``re`` costs a hook's process ~27M instructions.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator, Mapping

#: ``re.IGNORECASE`` and ``re.MULTILINE``, whose values the ``re`` module fixes, written out so
#: that this module loads without ``re``: a text whose only trigger is a token prefix is
#: redacted by :class:`_Token` alone, and ``re`` is imported by the first pattern compiled.
_IGNORECASE, _MULTILINE = 2, 8


class _Lazy:
    """A regular expression compiled on its first use; the methods are ``re.Pattern``'s."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = 2**63 - 1
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> list[object]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)


#: A PEM private key header. ``(?:[A-Z0-9_-]{1,24} ){0,3}`` covers RSA, EC, DSA, OPENSSH,
#: ENCRYPTED, PGP; bounded, so a header is never sought across the headers after it (a line of
#: BEGIN markers made each start scan to the end: quadratic).
_PEM_HEAD = r"-----BEGIN (?:[A-Z0-9_-]{1,24} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[A-Z0-9_-]{1,24} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
#: Around the base64 of a key body, also inside a string literal: whitespace, quotes,
#: concatenation, brackets, ``\n`` escapes.
_PEM_SEP = r"(?:[\s\"'`,;()\[\]+]|\\[nr])"
#: A header line inside the body (``Proc-Type: 4,ENCRYPTED``, ``Version: GnuPG``); its value
#: bounded (RFC 1421's are under 100 characters), so a header is never sought to the end of a
#: long line from each BEGIN on it (many BEGINs on one line made that quadratic).
_PEM_HEADER = r"[A-Z][A-Za-z-]{1,30}:[^\n\\]{0,200}"
#: A run of key alphabet and separators that stops before a header line's name.
_PEM_RUN = r"(?:(?![A-Z][A-Za-z-]{1,30}:)[\s\"'`,;()\[\]+A-Za-z0-9/=])+"
#: ``(?=(?P<n>X))(?P=n)`` matches ``X`` atomically (no backtracking into it, so linear time):
#: what Python 3.11's possessive quantifiers and atomic groups do, written for Python 3.8.
_PEM = _Lazy(
    _PEM_HEAD
    + r"(?:"
    # a whole block: key alphabet only up to the END line
    + rf"(?:(?=(?P<h>{_PEM_HEADER}))(?P=h)|(?=(?P<r>{_PEM_RUN}))(?P=r)|\\[nr])*"
    + _PEM_END
    # no END (cut off): the base64 body that follows the header line, no more
    + r"|(?:(?=(?P<b>"
    + rf"{_PEM_SEP}*(?:{_PEM_HEADER}|[A-Za-z0-9+/]{{16,}}={{0,2}}|[A-Za-z0-9+/]{{1,15}}={{1,2}})"
    + r"))(?P=b))+"
    + r")"
)

_NAME = (
    r"passw(?:or)?d|passphrase|(?<![A-Za-z])pass(?![A-Za-z])|pwd|(?<![A-Za-z])pw(?![A-Za-z])"
    r"|secret|token"
    r"|api[_-]?key|apikey|private[_-]?key"
    r"|access[_-]?key|account[_-]?key|auth[_-]?key|credential|client[_-]?secret"
)
#: ``<name> <op> <value>``: group 1 is the secret-like word in the name (the match starts there:
#: a regex that starts with literals scans fast); the value is quoted (group 2, 3
#: or 4) or bare (group 5: up to whitespace, ``;``, ``,``, a quote or a closing bracket).
_ASSIGN_SOURCE = (
    r"(" + _NAME + r")[A-Za-z0-9_.-]*"
    r"[\"'\]]{0,2}[ \t]*(?::[ \t]*[A-Za-z_][\w.\[\]|, ]{0,40}?[ \t]*=(?!=)|:=|=>|:(?!:)|=)[ \t]*"
    r"(?:\"([^\"\n]{1,400})\"|'([^'\n]{1,400})'|`([^`\n]{1,400})`|([^\s\"'`,;<>(){}\[\]]{1,400}))"
)
_ASSIGN = _Lazy("(?i)" + _ASSIGN_SOURCE)
#: Up to the end of the name: where a failed match could go on from (see ``_Rule.head``).
_ASSIGN_HEAD = r"(?:" + _NAME + r")[A-Za-z0-9_.-]*"
#: A word every secret-like name of ``_NAME`` holds (``api_key`` holds ``key``).
_NAME_WORDS = ("pass", "pw", "secret", "token", "key", "credential")
_NAME_CHARS = frozenset("_.-")


def _assignment_near(lowered: str, start: int, end: int, memo: dict[str, object]) -> bool:
    """Whether an ``_ASSIGN`` match may start up to 8 characters before a name word found at
    ``lowered[start:end]`` (or just after its first letter). Such a match's name runs on over
    ``[A-Za-z0-9_.-]`` to a quote, blank or its ``:``/``=``; the word's letters are in the
    name or in the value after the operator. So either the name goes on from the word's end
    (letters, digits, ``_.-``; up to two of ``"']``; blanks) to a ``:`` or ``=``, or the 8
    characters before the word hold a name word and, after it, a ``:`` or ``=`` (a
    ``[REDACTED:github_token]`` mark does not). Neither: no match uses this word.

    ``memo`` (one per text) keeps the last walk along a name: a later word in the same name
    reaches the same end, so a long name full of name words is walked once, not once a word."""
    before = lowered[max(0, start - 8) : start]
    op = max(before.rfind(":"), before.rfind("="))
    if op > 0 and any(word in before[:op] for word in _NAME_WORDS):
        return True
    walked = memo.get("name")
    if isinstance(walked, tuple) and walked[0] <= end <= walked[1]:
        return bool(walked[2])
    i, n = end, len(lowered)
    while i < n and (lowered[i].isalnum() or lowered[i] in _NAME_CHARS):
        i += 1
    name_end, quotes = i, 0
    while i < n and quotes < 2 and lowered[i] in "\"']":
        i, quotes = i + 1, quotes + 1
    while i < n and lowered[i] in " \t":
        i += 1
    near = i < n and lowered[i] in ":="
    memo["name"] = (end, name_end, near)
    return near


class _Rule:
    """One redaction rule (a plain class, not a dataclass: importing ``dataclasses`` costs a
    hook's process ~6 ms)."""

    __slots__ = (
        "anchored", "back", "folded", "gate", "gate_first", "group", "head", "keep", "near",
        "pattern", "replace", "tag", "token", "triggers",
    )  # fmt: skip

    def __init__(
        self,
        tag: str,
        pattern: _Lazy,
        group: int,  # 0 = the whole match
        triggers: tuple[str, ...],  # lower-case literals, one of which every match holds
        keep: Callable[[re.Match[str]], bool] | None = None,  # True: not a secret, leave it
        *,
        folded: _Lazy | None = None,
        anchored: bool = False,
        back: int = 8,
        gate: _Lazy | None = None,
        gate_first: bool = False,
        replace: Callable[[re.Match[str]], str] | None = None,
        near: Callable[[str, int, int, dict[str, object]], bool] | None = None,
        token: _Token | None = None,
        head: _Lazy | None = None,
    ) -> None:
        self.tag, self.pattern, self.group, self.triggers = tag, pattern, group, triggers
        #: a fixed-shape token found without ``re`` (``pattern`` is then unused)
        self.token = token
        #: for an anchored rule, ``near(lowered, start, end, memo)`` of a trigger found at
        #: ``lowered[start:end]``: False when no match can start around it (checked in plain
        #: Python, so a text whose triggers all fail it never compiles the rule's pattern);
        #: ``memo`` is a dict it may keep state in across the triggers of one text
        self.near = near
        #: for an anchored rule, the start of ``folded`` up to where what follows no longer
        #: depends on where the match started (a name and the rest of it, ``curl`` and the
        #: rest of its line): when ``folded`` fails at a start where ``head`` matches, every
        #: start before ``head``'s end fails too and is not tried. Without it, a line of 1,000
        #: ``curl`` words, or a name of 1,000 ``pass_``, was matched to its end 1,000 times.
        self.head = head
        self.keep = keep
        #: the same pattern without ``(?i)``, written in lower case, to scan the lower-cased
        #: text: Python's ``re`` skips ahead on a literal prefix only when the case is fixed
        #: (~10x faster)
        self.folded = folded
        #: every match holds one of ``triggers`` within its first characters: the pattern is
        #: searched for only around where they occur (found by ``str.find``)
        self.anchored = anchored
        #: how far before a trigger an anchored match may start (``private_`` before ``key``)
        self.back = back
        #: a cheaper pattern (a literal first) every match holds: the rule runs only where a
        #: trigger alone is too common (``:`` for ``.pgpass`` lines)
        self.gate = gate
        #: the gate costs less than looking for the triggers (many of them, or common ones):
        #: it is searched first unless every trigger is already known (the hooks' scan)
        self.gate_first = gate_first
        #: the match's replacement, for a rule that hides more than one part of its match
        #: (default: ``group`` becomes ``[REDACTED:<tag>]``)
        self.replace = replace


def _anchored_rule(
    tag: str, pattern: str, group: int, trigger: str, head: str | None = None
) -> _Rule:
    """A rule whose matches start with ``trigger`` (any case), tried only where it occurs;
    ``head`` as :attr:`_Rule.head`."""
    return _Rule(
        tag,
        _Lazy(pattern),
        group,
        (trigger,),
        folded=_Lazy(pattern, _IGNORECASE),
        anchored=True,
        head=None if head is None else _Lazy(head, _IGNORECASE),
    )


#: A token starts and ends where no letter or digit is beside it: ``re``'s ``\\b`` with ``_``
#: taken for a separator, as file names use it (``backup_ghp_….txt``, ``dir_AKIA…/``):
#: ``(?<![^\\W_])`` and ``(?![^\\W_])``.
def _joins(c: str) -> bool:
    return c.isalnum()


class _Run:
    """``lo`` to ``hi`` characters of ``chars`` (``hi`` None: no limit), as ``[chars]{lo,hi}``."""

    __slots__ = ("chars", "hi", "lo")

    def __init__(self, chars: str, lo: int, hi: int | None = None) -> None:
        self.chars, self.lo, self.hi = frozenset(chars), lo, hi


#: No trigger looked for yet (the default of the ``seen`` arguments; never written to).
_UNKNOWN: Mapping[str, bool] = {}


class _TokenMatch:
    """The part of ``re.Match`` a rule's replacement uses, for a :class:`_Token` match."""

    __slots__ = ("_end", "_start", "string")

    class re:  # stands for ``Match.re``: a token has no groups
        groups = 0

    def __init__(self, string: str, start: int, end: int) -> None:
        self.string, self._start, self._end = string, start, end

    def group(self, _group: int = 0) -> str:
        return self.string[self._start : self._end]

    def span(self, _group: int = 0) -> tuple[int, int]:
        return self._start, self._end

    def start(self, _group: int = 0) -> int:
        return self._start

    def end(self, _group: int = 0) -> int:
        return self._end


class _Token:
    """A token of fixed shape, matched without ``re`` (a hook's process that meets one need
    not load it): where no letter or digit is before it (:func:`_joins`), one of
    ``alternatives``, each a sequence of literals (a tuple of case-sensitive spellings) and
    :class:`_Run` s, then, when ``boundary``, no letter or digit. The same matches as the regular expression it documents: a run is
    greedy and gives back characters only to reach the final boundary; a run other than the
    last is followed by a literal whose first character it cannot hold, so it never has to.

    A failed try moves the next one past the first run when no start inside that run can
    match where this one did not (see :meth:`_try`): ``-eyJ`` 1,000 times over is scanned once,
    not 1,000 times.
    """

    __slots__ = ("alternatives", "boundary", "prefixes", "skips")

    def __init__(self, alternatives: tuple[tuple[object, ...], ...], boundary: bool) -> None:
        self.alternatives, self.boundary = alternatives, boundary
        prefixes: set[str] = set()
        skips = []
        for alternative in alternatives:
            first = alternative[0]
            assert isinstance(first, tuple), "a token starts with a literal"
            prefixes.update(first)
            for part, after in zip(alternative, alternative[1:]):
                if isinstance(part, _Run):
                    assert isinstance(after, tuple) and all(a[0] not in part.chars for a in after)
            # a start inside the unbounded run after the first literal either cannot spell
            # the literal (its first letter is not the run's) or spells it with the run's own
            # letters, and then runs on to the same end as this start did
            run = alternative[1] if len(alternative) > 1 else None
            skips.append(
                isinstance(run, _Run)
                and run.hi is None
                and (
                    all(set(p) <= run.chars for p in first)
                    or all(p[0] not in run.chars for p in first)
                )
            )
        self.prefixes = tuple(sorted(prefixes))
        self.skips = tuple(skips)

    def match(self, text: str, pos: int) -> _TokenMatch | None:
        return self._try(text, pos)[0]

    def _try(self, text: str, pos: int) -> tuple[_TokenMatch | None, int]:
        """The match at ``pos`` or None, and the first start after ``pos`` that may match."""
        if pos and _joins(text[pos - 1]):
            return None, pos + 1
        resume = len(text)
        for alternative, skips in zip(self.alternatives, self.skips):
            end, run_end = self._match(text, pos, alternative)
            if end >= 0:
                return _TokenMatch(text, pos, end), end
            resume = min(resume, run_end if skips and run_end > pos else pos + 1)
        return None, resume

    def _match(self, text: str, at: int, parts: tuple[object, ...]) -> tuple[int, int]:
        """The end of the match of ``parts`` at ``at``, or -1; and where the first run ended
        (-1: not reached)."""
        n, last, first_run_end = len(text), len(parts) - 1, -1
        for index, part in enumerate(parts):
            if isinstance(part, tuple):
                spelling = next((p for p in part if text.startswith(p, at)), None)
                if spelling is None:
                    return -1, first_run_end
                at += len(spelling)
                continue
            assert isinstance(part, _Run)
            end, stop = at, n if part.hi is None else min(n, at + part.hi)
            while end < stop and text[end] in part.chars:
                end += 1
            if first_run_end < 0:
                first_run_end = end
            longest = end - at
            if longest < part.lo:
                return -1, first_run_end
            if index < last or not self.boundary:
                at += longest
                continue
            for size in range(longest, part.lo - 1, -1):  # give back to reach a boundary
                cut = at + size
                if not (cut < n and _joins(text[cut])):
                    return cut, first_run_end
            return -1, first_run_end
        if self.boundary and at < n and _joins(text[at]):
            return -1, first_run_end
        return at, first_run_end

    def sub(
        self, text: str, sub: Callable[[_TokenMatch], str], seen: Mapping[str, bool] = _UNKNOWN
    ) -> str:
        """``text`` with each match, leftmost first and not overlapping, replaced by
        ``sub(match)``; found by ``str.find`` of each prefix. ``seen``: :func:`redact`'s
        ``{trigger: in the lower-cased text}``; a prefix whose lower case it says is absent is
        not scanned for (a scan of 100 KB costs ~0.3M instructions)."""
        starts: set[int] = set()
        for prefix in self.prefixes:
            if seen.get(prefix.lower()) is False:
                continue
            at = text.find(prefix)
            while at >= 0:
                starts.add(at)
                at = text.find(prefix, at + 1)
        pieces: list[str] = []
        done = skip = 0  # the end of the last match; no match starts before ``skip``
        for start in sorted(starts):
            if start < skip:
                continue
            m, skip = self._try(text, start)
            if m is not None:
                pieces += [text[done:start], sub(m)]
                done = skip
        return "".join(pieces) + text[done:] if pieces else text


def _token_rule(
    tag: str,
    alternatives: tuple[tuple[object, ...], ...],
    triggers: tuple[str, ...],
    boundary: bool = False,
) -> _Rule:
    """A case-sensitive token rule (``\\bAKIA[0-9A-Z]{16}\\b``) run only when the lower-cased
    text holds one of ``triggers``, and matched by :class:`_Token` where a prefix occurs."""
    token = _Token(alternatives, boundary)
    return _Rule(tag, _Lazy(""), 0, triggers, token=token)


_UPPER, _DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
_ALNUM = _UPPER + _UPPER.lower() + _DIGITS
_B64URL = _ALNUM + "_-"
_ALNUM_SET = frozenset(_ALNUM)


def _entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    import math
    from collections import Counter

    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


#: One word: an upper-case run (an acronym) or an optionally capitalised lower-case run.
_WORD = r"(?:[A-Z]+(?![a-z])|[A-Z]?[a-z]+)"
#: Words joined by ``-``, ``_``, ``.``, ``/`` or ``:`` or run together in camelCase, a short
#: number after a word allowed: names, header names, config keys, dotted paths. Words run
#: together are any run of letters (every one splits into ``_WORD`` s), so the pattern says
#: ``[A-Za-z]+``: written ``(?:_WORD)+`` it could split a run in exponentially many ways, and
#: did, for every one when the match failed after it (a 24-letter value took seconds). A
#: short number may lead (``4_no_priv``) and separators may start and end it (a prefix being
#: joined to more: ``'security.token_provider.'``).
_WORDS = _Lazy(
    r"[-_./:]*(?:[0-9]{1,3}[-_./:]+)?[A-Za-z]+[0-9]{0,3}(?:[-_./:]+[A-Za-z]+[0-9]{0,3})*[-_./:]*"
)
_WORD_RE = _Lazy(_WORD)
#: A name in code, qualified or not: ``self._token``, ``Foo::BAR``, ``\\App\\Key``,
#: ``$this->key``, a nullable type ``?string``.
_IDENT_PATH = _Lazy(
    r"[?\\$]?[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->|\\)\$?[A-Za-z_][A-Za-z0-9_]*)*(?:\[\])?"
)
_PLACEHOLDER = _Lazy(
    r"(?i)^(?:\$\{?[\w.:-]*\}?|\{\{.*\}\}|<[^<>]*>|%\(?\w*\)?s?|\*+|x{3,}|\.{3}|…"
    r"|changeme|change_me|value|password|passwd|passphrase|pass|pwd|pw|secret|token"
    r"|null|none|nil|true|false|undefined|redacted"
    r"|bool|boolean|string|str|int|integer|float|double|bytes|array|object|mixed|any|void|list|dict"
    r"|example|dummy|test|(?:your|my)[-_a-z]*|env\(.*|os\.environ.*|process\.env.*)$"
)


def _words(value: str) -> int:
    """How many words ``value`` reads as (see ``_WORDS``), or 0 when it does not read as words
    (random strings do not: their "words" average under three letters)."""
    if not _WORDS.fullmatch(value):
        return 0
    count = len(_WORD_RE.findall(value))
    letters = sum(c.isalpha() for c in value)
    return count if letters >= 3 * count else 0


def _plain_value(value: str) -> bool:
    """True for values that are not secrets whatever name precedes them."""
    return (
        not value.strip()
        or "[REDACTED:" in value
        or any(c.isspace() for c in value)
        or value.isdigit()
        or value.startswith(("/", "./", "../", "~/", "http://", "https://", "file:"))
        or _file_reference(value)
        or _PLACEHOLDER.match(value) is not None
        or _FORMAT_MARK.search(value) is not None
        or "(?" in value  # a regular expression
        or "\\x" in value
    )


#: File name extensions of source, test and document files: a value ending in one names a file
#: (``PASS: tests/test_io.py``), not a password.
_FILE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "jsx",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "go",
        "rs",
        "java",
        "kt",
        "rb",
        "php",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "swift",
        "scala",
        "sh",
        "md",
        "rst",
        "txt",
        "json",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "html",
        "css",
        "vue",
        "svelte",
        "sql",
        "proto",
    ]
)


def _file_reference(value: str) -> bool:
    """A relative path to a file with a source or document extension, as a test runner prints
    it: ``tests/test_io.py``, ``.a/foo.py``, ``src/app.test.ts``, optionally followed by a
    test id or a line (``::test_read``, ``:12``)."""
    path = value.split("::", 1)[0]
    head, sep, line = path.rpartition(":")
    if sep and line.isdigit():
        path = head
    name = path.rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem.strip(".") or ext.lower() not in _FILE_EXTENSIONS:
        return False
    return all(c.isalnum() or c in "._-/" for c in path)


#: A format string's field (``"%s:%s"``, ``"{0}"``, ``"{}@{}"``): a template, not a value.
_FORMAT_MARK = _Lazy(r"%[-#0-9.]*[sdrfx]|%\(\w+\)|\{[0-9]?\}")


def _code_like(m: re.Match[str], value: str) -> bool:
    """A bare value that is a code expression: a call or subscript (``get_token(``), a dotted
    name (``self._token``), or a type or argument followed by ``|``, ``,`` or ``)``."""
    after = m.string[m.end() : m.end() + 3].lstrip(" \t")[:1]
    if after in ("(", "["):
        return True
    return bool(_IDENT_PATH.fullmatch(value)) and (
        any(c in value for c in ".:>\\$?") or after in ("|", ",", ")")
    )


#: What a ``.env`` line holds before the name's secret-like word: blanks, ``export``, the
#: start of the name (``DB_`` of ``DB_PASSWORD``).
_DOTENV_HEAD = _Lazy(r"[ \t]*(?:export[ \t]+)?[A-Za-z0-9_]*")
#: What a ``.env`` line holds after the value: blanks, a ``#`` comment (matched from the
#: value's end: ``$`` is the line's end).
_DOTENV_TAIL = _Lazy(r"[ \t\r]*$|[ \t]+#", _MULTILINE)


class _Line:
    """The line of a match (one that holds no line break), as the checks of a value in
    configuration read it: where it ``start`` s and ``end`` s (its line break or the text's
    end), how far ``.env``'s ``dotenv_head`` (``[export] DB_``) and a YAML key line's
    ``key_head`` (``  - "db_``) reach into it from its start (a match may start at or before
    them; both patterns match every prefix of what they match), and its ``first_equals``
    (``end`` when none)."""

    __slots__ = ("dotenv_head", "end", "first_equals", "key_head", "start", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text, self.start, self.end = text, start, end
        self.dotenv_head = _DOTENV_HEAD.match(text, start, end).end()  # type: ignore[union-attr]
        self.key_head = _KEY_LINE_HEAD.match(text, start, end).end()  # type: ignore[union-attr]
        equals = text.find("=", start, end)
        self.first_equals = end if equals < 0 else equals


#: The line :func:`_line_of` found last. Matches are checked left to right, so each line is
#: read once, not once a match (a minified line holding 10,000 ``password=`` pairs was read
#: 10,000 times). :func:`redact` clears it, so no text outlives its call.
_LAST_LINE: _Line | None = None


def _line_of(m: re.Match[str]) -> _Line:
    """The :class:`_Line` of ``m`` (which must not span lines)."""
    global _LAST_LINE
    text, last = m.string, _LAST_LINE  # one read: another thread may replace it
    if last is not None and last.text is text and last.start <= m.start() and m.end() <= last.end:
        return last
    # a later line: its start is after the last line's end, which is a line break
    lo = last.end if last is not None and last.text is text and last.end <= m.start() else 0
    end = text.find("\n", m.end())
    line = _Line(text, text.rfind("\n", lo, m.start()) + 1, len(text) if end < 0 else end)
    _LAST_LINE = line
    return line


#: Another ``Key=value`` pair after a ``;``: the value is inside a connection string.
_NEXT_PAIR = _Lazy(r";[ \t]*[A-Za-z][A-Za-z0-9 _]*=")
#: The secret-like words a ``.env`` or connection-string name ends with to have even a word for
#: a value redacted.
_CONFIG_WORDS = ("password", "passwd", "pwd", "passphrase", "pass", "pw", "secret", "token")
#: Words that make such a value a name rather than a secret (``db_password``); not ``pass``,
#: which ordinary passwords hold (``plainpass99``).
_NAMING_WORDS = ("password", "passwd", "pwd", "passphrase", "secret", "token")
#: What may follow that word before the ``=``: nothing, or a ``_KEY`` (``SECRET_KEY``).
_CONFIG_TAILS = ("=", "_key=", "-key=")


def _in_configuration(m: re.Match[str], name: str) -> bool:
    """The value of ``m`` is set in configuration rather than code, by a name that ends with a
    password or token word (or that and ``_KEY``): a ``.env`` line (``[export]
    DB_PASSWORD=value`` or ``API_TOKEN="value"`` alone on its line) or a ``;``-separated
    connection string (``…;Password=value;…``)."""
    text = m.string
    group = next(g for g in (2, 3, 4, 5) if m.group(g) is not None)
    opens = m.start(group) - (group != 5)  # a quoted value starts at its quote
    if not name.endswith(_CONFIG_WORDS) or text[m.end(1) : opens].lower() not in _CONFIG_TAILS:
        return False  # the name goes on after the word (PASSWORD_FILE), or code's ``x = y``
    line = _line_of(m)
    if m.start() <= line.dotenv_head and _DOTENV_TAIL.match(text, m.end()):
        return True
    # a connection string: the name is a pair's whole key, after a ``;`` or an opening quote
    i = m.start()
    while i > line.start and text[i - 1].isspace():
        i -= 1
    if i > line.start and text[i - 1] == ";" and line.first_equals < i:
        return True
    return (i == line.start or text[i - 1] in "\"'") and _NEXT_PAIR.match(
        text, m.end(), line.end
    ) is not None


#: Words of prose, labels and messages (``"Enter your password"``, ``"is too short"``): a
#: quoted value holding one is not a passphrase.
_PROSE_WORDS_TEXT = (
    "a an the is are was were be been being to of in on at for with by from and or not no nor "
    "your you my our their this that these those it its must should can cannot could will would "
    "may might please enter here there required invalid incorrect wrong too field new old "
    "confirm characters character least most more less than if then when who what which how "
    "why do does did has have had am i me we us they them he she his her as so but type show "
    "hide forgot reset change set"
)
_PROSE_WORDS = frozenset(_PROSE_WORDS_TEXT.split())
#: Two to eight space-separated words, as a passphrase is written.
_PASSPHRASE = _Lazy(r"[^\s\"'`]+(?: [^\s\"'`]+){1,7}")
#: Before a password name on a YAML or properties line: the indent, a list dash, a quote, the
#: start of the key (``db_`` of ``db_password``).
_KEY_LINE_HEAD = _Lazy(r"[ \t]*(?:-[ \t]+)?[\"']?[A-Za-z0-9_.-]*")


def _password_name(name: str) -> bool:
    return "passw" in name or "pwd" in name or "passphrase" in name or name in ("pass", "pw")


def _passphrase(value: str) -> bool:
    """2-8 words with single spaces (``"correct horse battery staple"``), none of them a word
    of prose (``"Enter your password"``, ``"must be at least 12 characters"``), no placeholder
    or format mark, no word naming a secret (``"Mot de passe"``), not ending like a
    sentence."""
    return (
        _PASSPHRASE.fullmatch(value) is not None
        and value[-1] not in ".?!:…"
        and not any(c in value for c in "{}%$<>()")
        and not any(_naming_word(w.strip(",;")) for w in value.lower().split())
    )


def _naming_word(word: str) -> bool:
    """A word of prose or one naming a secret (``passe``, ``passwords``, ``keys``)."""
    return word in _PROSE_WORDS or word.startswith(("pass", "pwd", "secret", "token", "key"))


def _key_line(m: re.Match[str]) -> bool:
    """``m`` is a bare value on a YAML or properties line of its own, after ``:``
    (``  - db_password: <value>  # staging``)."""
    text = m.string
    return (
        text[m.end(1) : m.start(5)].strip(" \t\"'") == ":"
        and m.start() <= _line_of(m).key_head
        and _DOTENV_TAIL.match(text, m.end()) is not None
    )


#: What may follow a password word in a name that still holds a password
#: (``password_confirmation``, ``PASSWORD_2``, ``pwd_plain``); any other rest names something
#: about a password (``password_hint``, ``INVALID_PASSWORD_ERROR``, ``passwordHasher``,
#: ``password-hasher``), which holds none.
_HOLDER_TAILS = frozenset(
    [
        "confirm",
        "confirmation",
        "again",
        "repeat",
        "retype",
        "verify",
        "new",
        "old",
        "current",
        "plain",
        "plaintext",
        "value",
        "str",
        "string",
        "text",
        "raw",
        "clear",
        "cleartext",
    ]
)
#: A locale or a country code whose country is Palau (``'PW' => …``, ``en_PW``): not a
#: password name.
_PALAU = frozenset(("pw", "en_pw", "pau_pw", "pt_pw"))


def _holder_tail(tail: str) -> bool:
    word = tail.strip("_.-").lower()
    return not word or word.isdigit() or word in _HOLDER_TAILS


def _one_case(value: str) -> bool:
    """The words of ``value`` (split at ``-_./:`` and digits) are written alike: all in lower
    case, all in upper case, or all capitalised (``Content-Type``, ``PasswordHasher``); or it is
    one word (``passwordField``). ``correct-Horse-battery`` is not."""
    parts = "".join(" " if c in "-_./:0123456789" else c for c in value).split()
    if len(parts) <= 1:
        return True
    kinds = {"lower" if p.islower() else "upper" if p.isupper() else p[:1].isupper() for p in parts}
    return len(kinds) == 1 and kinds != {False}


def _name_like(value: str, words: int = 1) -> bool:
    """``value`` reads as a name of ``words`` words or more, written alike."""
    return _words(value) >= words and _one_case(value)


def _names_a_secret(value: str) -> bool:
    """A value that is a name holding a secret's word (``db_password``, ``PASSWORD_FIELD``,
    ``passwordHash``): a variable's or a field's name, not a password
    (``MyPassword123!`` is one)."""
    lowered = value.lower()
    return any(w in lowered for w in _NAMING_WORDS) and _name_like(value)


def _is_password(value: str, quoted: bool, where: str, word: str, tail: str) -> bool:
    """Whether ``value``, set for a name whose secret word is ``word`` (lower case:
    ``password``, ``pw``, …; a token or secret word only ``where`` is ``config``) followed by
    ``tail`` in the name (``_ERROR`` of ``PASSWORD_ERROR``), is a password. The one rule for
    secrets with no shape of their own (docs/security.md, "Passwords without a shape").

    ``where``: ``config`` (a ``.env`` line, a connection string, an environment dump's
    ``K=V``), ``line`` (a YAML or properties key on its own line), ``code`` (an assignment,
    a keyword argument, a dict entry) or ``prose`` (``the password is …``).

    Never a password: fewer than 4 characters, plain values (placeholders, paths, URLs,
    numbers, format strings), a name holding a secret's word (``db_password``), a name that
    goes on after the word (``PASSWORD_ERROR``; not ``password_confirmation``). Then:
    configuration, any value (words too); a key line, a word with a digit or a symbol
    (``hunter22``, ``walrus-42``; not ``Passwort``); code, a quoted value unless it reads as
    two or more words written alike (``"new-password"``; not ``"correct-Horse-battery9"``),
    after ``pw``, ``pwd`` or ``pass`` only one with a digit or a symbol (``'PW' => …``
    is a country), and a bare value of 6+ characters unless it reads as words written alike
    (``hunter22`` could be a variable); prose, a word with a letter and a digit unless it
    reads as several words written alike (``sha256-hashed``), or any word not written as a
    name; a quoted passphrase (2-8 words, no word of prose) after a password word that ends
    the name."""
    strong = "passw" in word or "passphrase" in word
    if tail and not _holder_tail(tail):
        return False
    if any(c.isspace() for c in value):
        return quoted and not tail and where != "prose" and _passphrase(value)
    if len(value) < 4 or _plain_value(value) or _names_a_secret(value):
        return False
    letter = any(c.isalpha() for c in value)
    other = any(not c.isalpha() for c in value)
    if where == "config":
        return not ("_" in value and _words(value) >= 2)
    if where == "line":
        return letter and other and value[0] not in "!&*|>%@{["
    if where == "prose":
        digit = any(c.isdigit() for c in value)
        return letter and ((digit and not _name_like(value, 2)) or not _name_like(value))
    if quoted:
        if strong:
            return not _name_like(value, 2)
        return letter and other and not _name_like(value, 2)
    return len(value) >= 6 and not _name_like(value)


def _keep_assignment(m: re.Match[str]) -> bool:
    word = m.group(1).lower()
    quoted = next((q for q in m.group(2, 3, 4) if q is not None), None)
    value = quoted if quoted is not None else m.group(5)
    if quoted is None and _code_like(m, value):
        return True
    text = m.string
    group = next(g for g in (2, 3, 4, 5) if m.group(g) is not None)
    opens = m.start(group) - (group != 5)  # a quoted value starts at its quote
    tail = _NAME_TAIL.match(text, m.end(1), opens).group(0)  # type: ignore[union-attr]
    if _in_configuration(m, word):
        return not _is_password(value, quoted is not None, "config", word, "")
    if _password_name(word):
        if _palau(m):
            return True
        where = "line" if quoted is None and not tail and _key_line(m) else "code"
        return not _is_password(value, quoted is not None, where, word, tail)
    if _plain_value(value) or len(value) < 16 or _words(value):
        return True
    # a random value: hex needs ~3 bits/char (16 symbols), base64-ish ~3.5 (gitleaks uses 3.7)
    hexish = all(c in "0123456789abcdefABCDEF" for c in value)
    return _entropy(value) < (3.0 if hexish else 3.5)


#: The rest of a name after its secret-like word, up to its end.
_NAME_TAIL = _Lazy(r"[A-Za-z0-9_.-]*")


def _palau(m: re.Match[str]) -> bool:
    """The name is Palau's country code, alone or in a locale (``'PW'``, ``"en_PW"``)."""
    text, start = m.string, m.start(1)
    if text[start : m.end(1)] != "PW":
        return False
    lo = start
    while lo > 0 and lo > start - 4 and (text[lo - 1].isalpha() or text[lo - 1] == "_"):
        lo -= 1
    key = text[lo : m.end(1)].lower()
    return key in _PALAU or (len(key) in (5, 6) and key.endswith("_pw") and key[:-3].isalpha())


#: A password given in prose: ``the db password is <value>``, ``the pw was
#: 'Gl4ss-Onion'`` (a note, a prompt, an answer, a commit message). Group 1 is the word,
#: group 2 the value (its closing punctuation left out; it ends at a ``|`` or a bracket, as in
#: a pattern: ``rg 'password is …|…'``). In lower case: searched for in the lower-cased text
#: as it is.
_PROSE_PASSWORD = (
    r"(?<![a-z0-9_])(passw(?:or)?d|passphrase|pwd|pw)s?[ \t]+(?:is|was)[ \t]+"
    r"(?:(?:set[ \t]+to|now|still)[ \t]+)?[\"'`]?"
    r"([^\s\"'`|()<>\[\]]{3,127}[^\s\"'`|()<>\[\].,;:!?])"
)


def _keep_prose(m: re.Match[str]) -> bool:
    return not _is_password(m.group(2), False, "prose", m.group(1).lower(), "")


#: A URL with a password: ``scheme://user:password@host``. The password runs to the first ``@``
#: that is followed by a host name, so ``@`` and ``/`` inside it are covered
#: (``postgres://app:<a/b>@db/x``); one that starts with a port and a ``/`` is a
#: path (``https://host:8443/@scope/pkg``).
_URL_PASSWORD = _Lazy(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]*:((?![0-9]*/)[^\s\"'<>?#]{1,256}?)@"
    r"(?=[A-Za-z0-9.\[\]_-]+(?:[:/?#\s\"'<>;,)]|$))",
    _MULTILINE,
)


def _scheme_near(lowered: str, start: int, _end: int, _memo: dict[str, object]) -> bool:
    """False when no letter of a scheme (``[a-z0-9+.-]``) is just before a ``://`` at
    ``start``: no ``_URL_PASSWORD`` match ends its scheme there."""
    return start > 0 and (lowered[start - 1].isalnum() or lowered[start - 1] in "+.-")


def _keep_url(m: re.Match[str]) -> bool:
    return _plain_value(m.group(1))


_AWS_SECRET = (
    r"\baws_?secret_?access_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)

#: Names a process environment holds (``env`` and ``export -p`` print them), not a program's
#: own settings: a run of ``NAME=value`` lines holding two of them is an environment dump.
_ENV_NAME_WORDS = (
    "HOME PATH SHELL USER USERNAME LOGNAME PWD OLDPWD SHLVL TERM TERM_PROGRAM COLORTERM LANG "
    "LANGUAGE LC_ALL LC_CTYPE HOSTNAME TMPDIR MAIL EDITOR DISPLAY SSH_AUTH_SOCK SSH_CLIENT "
    "SSH_CONNECTION SSH_TTY XDG_RUNTIME_DIR XDG_SESSION_ID XDG_SESSION_TYPE XDG_DATA_DIRS "
    "XDG_CONFIG_DIRS DBUS_SESSION_BUS_ADDRESS LS_COLORS LESSOPEN MOTD_SHOWN _"
)
_ENV_NAMES = frozenset(_ENV_NAME_WORDS.split())
#: Before ``NAME=value`` on a line: blanks, or ``declare -x`` as ``export -p`` prints it.
_ENV_PREFIX = r"[^\S\n]*(?:declare[^\S\n]+-x[^\S\n]+)?"
#: Three or more ``NAME=value`` lines in a row, as ``env`` prints them.
_ENV_BLOCK = _Lazy(rf"(?m)^(?:{_ENV_PREFIX}[A-Za-z_][A-Za-z0-9_]*=[^\n]*(?:\n|\Z)){{3,}}")
#: What every block holding two of those names holds: a line break, then a line starting
#: with an upper-case ``NAME=`` (one search costs less than looking for the 34 names).
_ENV_GATE = _Lazy(rf"\n{_ENV_PREFIX}[A-Z_][A-Z0-9_]*=")
#: One line of such a block: the name (group 1) and the value (group 2).
_ENV_LINE_RE = _Lazy(rf"{_ENV_PREFIX}([A-Za-z_][A-Za-z0-9_]*)=([^\n]*)")


def _keep_env_block(m: re.Match[str]) -> bool:
    names = {line.group(1) for line in _ENV_LINE_RE.finditer(m.group(0))}
    return len(names & _ENV_NAMES) < 2


def _env_values(m: re.Match[str]) -> str:
    """The block with each line's value replaced, names kept."""
    return _ENV_LINE_RE.sub(
        lambda line: (
            line.group(0)[: line.start(2) - line.start(0)]
            + "[REDACTED:environment]"
            + line.group(0)[line.end(2) - line.start(0) :]
        ),
        m.group(0),
    )


#: The parts of an environment variable's name that make its value a secret (``MASTER_KEY``,
#: ``JWT_PRIVATE``, ``SESSION_SECRET_BASE``): whole ``_``-separated parts, so not ``MONKEY``,
#: ``TOKENIZER`` or ``KEYBOARD``.
_ENV_SECRET_WORD = (
    r"KEYS?|SECRETS?|TOKENS?|PASSWORDS?|PASSWD|PASSPHRASE|PASS|PWD|PW|CREDENTIALS?|CREDS"
    r"|PRIVATE|SIGNING|AUTH|APIKEY"
)
#: Parts after which any value is a secret, words included (``DB_PASSWORD=<a word>``), in a
#: dump's shapes; the other parts (``KEY_COLUMN``, ``AUTH_TYPE``) need a value that does not
#: read as words.
_ENV_STRONG_TEXT = (
    "SECRET SECRETS TOKEN TOKENS PASSWORD PASSWORDS PASSWD PASSPHRASE PASS PWD PW "
    "CREDENTIAL CREDENTIALS CREDS APIKEY"
)
_ENV_STRONG = frozenset(_ENV_STRONG_TEXT.split())
#: ``NAME=value``, ``"NAME": "value"``, ``NAME: value``, ``'NAME' => 'value'``, ``"NAME=value"``
#: for an upper-case NAME holding one of those parts; the match starts at the part (group 1),
#: the rest of the name is checked by :func:`_keep_env_secret`. The value is quoted (group 2
#: or 3) or bare (group 4).
_ENV_SECRET_HEAD = r"(?<![A-Za-z0-9])(?:" + _ENV_SECRET_WORD + r")(?:_[A-Z0-9]+)*"
_ENV_SECRET_SOURCE = (
    r"(?<![A-Za-z0-9])(" + _ENV_SECRET_WORD + r")(?:_[A-Z0-9]+)*(?![A-Za-z0-9])"
    r"[\"']?[ \t]*(?:=>|=|:)(?![=:])[ \t]*"
    r"(?:\"([^\"\n]{1,400})\"|'([^'\n]{1,400})'|([^\s\"'`,;<>(){}\[\]]{1,400}))"
)
#: The name parts that name a password, and any secret-like part.
_ENV_PASSWORD = frozenset(["PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE", "PASS", "PWD", "PW"])
_ENV_PART = _Lazy(_ENV_SECRET_WORD)
#: Code's ``NAME = value``, not a dump's ``NAME=value``.
_CODE_EQUALS = _Lazy(r"[ \t]=[ \t]")
#: An upper-case name from its first secret-like part on.
_ENV_NAME_RUN = _Lazy(r"[A-Z0-9_]*")
#: A name-like value (``"API_KEY"``, ``X-Auth-Token``, ``password``): a word of ``value.lower()``.
_ENV_NAMING = ("key", "secret", "token", "pass", "pwd", "credential", "auth", "private", "sign")


def _env_part_near(lowered: str, start: int, end: int, _memo: dict[str, object]) -> bool:
    """False when no match can start at a trigger found at ``lowered[start:end]``: both places
    it is tried (``start``, and ``start + 1`` after a ``_``) follow an ASCII letter or digit,
    which the pattern's look-behind refuses (``Bench0Token1`` holds no name part), or it lies
    in a ``[REDACTED:<tag>]`` mark, where ``]`` follows the tag's name part, not ``=`` or ``:``
    (``[REDACTED:github_token]``)."""
    mark = lowered.rfind("[redacted:", max(0, start - 40), start)
    if mark >= 0 and "]" not in lowered[mark:start]:
        return False
    return any(at == 0 or lowered[at - 1] not in _ALNUM_SET for at in (start, start + 1))


def _keep_env_secret(m: re.Match[str]) -> bool:
    """Keep (True) unless ``m`` is an environment variable's secret value.

    The whole name must be upper case (``SESSION_SECRET_BASE``, not ``session_secret`` or
    ``mySECRET``). After a strong last part (:data:`_ENV_STRONG`) in a dump's shape (``K=V``,
    ``"K": "V"``, ``K: V``) any value of 4+ characters is a secret; otherwise, and in code's
    ``NAME = value``, only a random-looking value: 8+ characters, mostly letters and digits,
    that do not read as words, or 16+ of high entropy that are not an identifier; in a dump's
    shapes also a word with digits of 8+ (``MASTER_KEY=<word2x>``). ``KEY_COLUMN = "name"``
    is kept. Never: placeholders,
    paths, URLs, numbers, code, values naming a variable (``"API_KEY"``)."""
    text = m.string
    start = i = m.start()
    while i > 0 and (text[i - 1] in "_0123456789" or "A" <= text[i - 1] <= "Z"):
        i -= 1
    if (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")) or text[i:start][:1].isdigit():
        return True  # part of a longer, not upper-case, name
    quoted = m.group(2) if m.group(2) is not None else m.group(3)
    value = quoted if quoted is not None else m.group(4)
    if len(value) < 4 or _plain_value(value) or (quoted is None and _code_like(m, value)):
        return True
    value_at = m.start(2 if m.group(2) is not None else 3 if m.group(3) is not None else 4)
    name_end = _ENV_NAME_RUN.match(text, m.start(1)).end()  # type: ignore[union-attr]
    parts = [p for p in text[m.start(1) : name_end].split("_") if p and not p.isdigit()]
    between = text[name_end:value_at]
    code = _CODE_EQUALS.search(between) is not None and ":" not in between
    if parts and (
        parts[-1] in _ENV_PASSWORD
        or (parts[0] in _ENV_PASSWORD and not any(_ENV_PART.fullmatch(p) for p in parts[1:]))
    ):  # a password (PASSWORD_CONFIRM), or something about one (PASSWORD_ERROR): docs/security.md
        if _palau(m):
            return True
        last = parts[-1] in _ENV_PASSWORD
        word = parts[-1] if last else parts[0]
        tail = "" if last else text[m.end(1) : name_end]
        where = "code" if code else "config"
        return not _is_password(value, quoted is not None, where, word.lower(), tail)
    words = _words(value)
    lowered = value.lower()
    if words and any(w in lowered for w in _ENV_NAMING):
        return True
    if parts and parts[-1] in _ENV_STRONG and not code:
        return False
    mostly_alnum = sum(c.isalnum() for c in value) * 10 >= len(value) * 6
    digit = any(c.isdigit() for c in value)
    mixed = digit or (value.lower() != value and value.upper() != value)
    random = any(c.isalpha() for c in value) and (
        (len(value) >= 16 and _entropy(value) >= 3.5 and not _CAMEL.fullmatch(value))
        or (not words and len(value) >= 8 and mostly_alnum and mixed)
    )
    if random:
        return False
    # a dump's word with digits in it; code keeps ``"sha256hex"``
    return code or not (
        len(value) >= 8 and mostly_alnum and digit and any(c.isalpha() for c in value)
    )


#: Words run together or joined, each of 1+ lower-case letters after an optional capital:
#: an identifier (``DjangoModelBackend``, ``read_only_mode``), not a random string. A word
#: after the first starts with a separator or a capital, so a lower-case run is split one way
#: only (``(?:[-_./:]*[A-Z]?[a-z]+)*`` split it in exponentially many).
_CAMEL = _Lazy(r"_*[A-Za-z][a-z]+(?:(?:[-_./:]+[A-Z]?|[A-Z])[a-z]+)*_*")


#: Credential files' own formats (the secret files of docs/security.md, as a program that is
#: not a file reader may print them):
#: a ``.pgpass`` line ``host:port:database:user:password`` (the host has a letter or a dot, or
#: is ``*``; the port is 5432, 6432 or ``*``: see the rule's triggers),
_PGPASS = _Lazy(
    r"(?m)^([A-Za-z0-9._*-]+|\[[0-9A-Fa-f:]+\]):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+"
    r":((?:\\:|[^\s:])+)[ \t]*$"
)


def _keep_pgpass(m: re.Match[str]) -> bool:
    host = m.group(1)
    return not (host == "*" or any(c.isalpha() or c == "." for c in host))


#: docker's ``config.json`` ``auths`` (``"auth": "<base64 user:password>"``) and its tokens,
_DOCKER_AUTH = _Lazy(r'"(?:auth|identitytoken|registrytoken)"\s*:\s*"([^"\s]{4,})"')
#: a kubeconfig's ``*-data`` keys (``client-key-data``; certificates too),
_KUBE_DATA = _Lazy(r"(?m)^[ \t]*(?:-[ \t]+)?[a-z]+(?:-[a-z]+)*-data:[ \t]*\"?([A-Za-z0-9+/=]{16,})")
#: gh's ``hosts.yml`` ``oauth_token``,
_OAUTH_TOKEN = _Lazy(r"(?m)^[ \t]*oauth_token:[ \t]*[\"']?([^\s\"']{4,})")
#: a Terraform state's or ``terraform output -json``'s sensitive value (a string, number or
#: boolean; either key order),
_TF_VALUE = r'(?:"((?:[^"\\\n]|\\.)*)"|(-?[0-9][0-9.eE+-]*|true|false))'
_TF_TYPE = r'"type"\s*:\s*(?:"[^"\n]*"|\[[^\]\n]*\])'
_TF_SENSITIVE = _Lazy(  # group 1 is empty: the value is group 2 to 5
    rf'()(?:"value"\s*:\s*{_TF_VALUE}\s*,\s*{_TF_TYPE}\s*,\s*"sensitive"\s*:\s*true'
    rf'|"sensitive"\s*:\s*true\s*,\s*{_TF_TYPE}\s*,\s*"value"\s*:\s*{_TF_VALUE})'
)
#: a ``.netrc`` entry's ``password``,
_NETRC_SOURCE = r"machine[ \t]+\S+(?:\s+(?:login|account|port)[ \t]+\S+)+\s+password[ \t]+(\S+)"
_NETRC = _Lazy(_NETRC_SOURCE)


def _keep_netrc(m: re.Match[str]) -> bool:
    return m.start() > 0 and (m.string[m.start() - 1].isalnum() or m.string[m.start() - 1] == "_")


#: on the lower-cased text: the pattern is in lower case, and without ``re.IGNORECASE`` its
#: literal start (``machine``) is searched for fast
_NETRC_FOLDED = _Lazy(_NETRC_SOURCE)
#: a password hash of ``.htpasswd`` or ``/etc/shadow`` (``user:$apr1$…``, ``user:{SHA}…``),
_PASSWORD_HASH = _Lazy(
    r"(?m)^[\w.@-]+:(\$(?:apr1|2[abxy]|1|5|6|7|y|gy)\$[^\s:]+|\{SHA\}[A-Za-z0-9+/=]{8,})"
)
#: ``.npmrc``'s ``_auth``, ``_authToken`` and ``_password`` (any registry).
_NPMRC_AUTH = r"(?i)(?<![^\s:/])_(?:auth|authtoken|password)[ \t]*=[ \t]*\"?([^\s\"]{4,})"


def _keep_tf(m: re.Match[str]) -> bool:
    return "[REDACTED:" in m.group(0)


#: One of them is in every match of the rule above (lower case).
#: ``PRIVATE`` and ``AUTH`` only after an ``_`` (``JWT_PRIVATE``, ``REDIS_AUTH``; ``SIGNING``
#: names hold ``KEY`` or ``SECRET``): the words alone are in most code and prose, each trigger
#: costs a scan of the text, and the hooks skip loading this module for text holding none.
_ENV_TRIGGERS = ("key", "secret", "token", "pass", "pw", "credential", "creds", "_private", "_auth")


_RULES: tuple[_Rule, ...] = (
    _Rule("private_key", _PEM, 0, ("-----begin",)),
    _Rule(
        "openai_api_key",
        _Lazy(r"(?i)\bOPENAI_API_KEY\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{8,})"),
        1,
        ("_api_key",),
    ),
    _Rule(
        "anthropic_api_key",
        _Lazy(r"(?i)\bANTHROPIC_API_KEY\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{8,})"),
        1,
        ("_api_key",),
    ),
    _token_rule(  # (?<![^\W_])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![^\W_])
        "aws_access_key",
        ((("AKIA", "ASIA", "ABIA", "ACCA"), _Run(_UPPER + _DIGITS, 16, 16)),),
        ("akia", "asia", "abia", "acca"),
        boundary=True,
    ),
    _Rule(
        "aws_secret_key",
        _Lazy("(?i)" + _AWS_SECRET),
        1,
        ("secret",),
        folded=_Lazy(_AWS_SECRET),
    ),
    # (?<![^\W_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![^\W_])
    _token_rule(
        "github_token",
        (
            (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _Run(_ALNUM, 36, 255)),
            (("github_pat_",), _Run(_ALNUM + "_", 22, 255)),
        ),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        boundary=True,
    ),
    _token_rule(  # (?<![^\W_])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}
        "jwt",
        ((("eyJ",), _Run(_B64URL, 8), (".eyJ",), _Run(_B64URL, 8), (".",), _Run(_B64URL, 8)),),
        ("eyj",),
    ),
    _anchored_rule("bearer_token", r"(?i)\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)", 1, "bearer"),
    # (?<![^\W_])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}: ``ant-``, ``proj-`` are letters of the run
    _token_rule("api_key", ((("sk-",), _Run(_B64URL, 20)),), ("sk-",)),
    _token_rule(  # (?<![^\W_])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}
        "sendgrid_key",
        ((("SG.",), _Run(_B64URL, 16, 32), (".",), _Run(_B64URL, 16, 64)),),
        ("sg.",),
    ),
    _Rule(
        "webhook_url",
        _Lazy(
            r"(?i)\b(?:hooks\.slack\.com/(?:services|workflows|triggers)"
            r"|(?:discord|discordapp)\.com/api/webhooks"
            r"|[a-z0-9-]+\.webhook\.office\.com/webhookb2"
            r"|hooks\.zapier\.com/hooks/catch)"
            r"/([A-Za-z0-9_@/+=.-]{8,})"
        ),
        1,
        ("hooks.", "webhook"),
    ),
    # tried only before each ``://``: a scheme is at most 21 characters
    _Rule(
        "url_password",
        _URL_PASSWORD,
        1,
        ("://",),
        _keep_url,
        folded=_URL_PASSWORD,
        anchored=True,
        back=22,
        near=_scheme_near,
    ),
    _token_rule(  # (?<![^\W_])xox[abposr]-[A-Za-z0-9-]{10,}
        "slack_token",
        ((("xox",), _Run("abposr", 1, 1), ("-",), _Run(_ALNUM + "-", 10)),),
        ("xox",),
    ),
    _token_rule(  # (?<![^\W_])gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}
        "gitlab_token",
        ((("glpat-", "gldt-", "glrt-", "glptt-"), _Run(_B64URL, 20)),),
        ("glpat-", "gldt-", "glrt-", "glptt-"),
    ),
    _token_rule(  # (?<![^\W_])npm_[A-Za-z0-9]{36}(?![^\W_])
        "npm_token", ((("npm_",), _Run(_ALNUM, 36, 36)),), ("npm_",), boundary=True
    ),
    # tried only where their first word occurs (anchored): a scan of every position would cost
    # each rule ~15-30 ms a 1.7 MB text whenever the word is anywhere in it
    _anchored_rule("huggingface_token", r"(?<![^\W_])hf_[A-Za-z0-9]{34,40}(?![^\W_])", 0, "hf_"),
    _anchored_rule(
        "basic_auth",
        r"\bAuthorization[\"']?\s*[:=,]\s*[\"']?Basic\s+([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        1,
        "authorization",
    ),
    # a password given on a command line: curl's -u/--user with user and password, mysql's -p
    # (a $VARIABLE or ${VARIABLE} is kept)
    _anchored_rule(
        "cli_password",
        r"(?<![\w-])curl\b[^\n]*?\s(?:-u|--user)[\s=]+[\"']?[^\s:\"'$]+:(?![$\"'])([^\s\"']{4,})",
        1,
        "curl",
        # a later ``curl`` of the line reaches no ``-u`` the first did not
        head=r"(?<![\w-])curl\b[^\n]*",
    ),
    _anchored_rule(
        "cli_password",
        r"(?<![\w-])mysql(?:dump|admin)?\b[^\n]*?\s-p(?![$\"'])([^\s\"']{4,})",
        1,
        "mysql",
        head=r"(?<![\w-])mysql(?:dump|admin)?\b[^\n]*",
    ),
    _token_rule(  # (?<![^\W_])AIza[0-9A-Za-z_-]{35}(?![^\W_])
        "google_api_key", ((("AIza",), _Run(_B64URL, 35, 35)),), ("aiza",), boundary=True
    ),
    _token_rule(  # (?<![^\W_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}
        "stripe_key",
        ((("sk_live_", "sk_test_", "rk_live_", "rk_test_"), _Run(_ALNUM, 16)),),
        ("_live_", "_test_"),
    ),
    _Rule(
        "environment",
        _ENV_BLOCK,
        0,
        # every block holds two names of _ENV_NAMES, so one that is not ``_``
        tuple(sorted(n.lower() + "=" for n in _ENV_NAMES - {"_"})),
        _keep_env_block,
        replace=_env_values,
        # two of the names, each at a line's start: one after a line break
        gate=_ENV_GATE,
        gate_first=True,
    ),
    _Rule(
        "secret",
        _ASSIGN,
        -1,  # the value's group: 2 to 5, whichever matched
        _NAME_WORDS,
        _keep_assignment,
        folded=_Lazy(_ASSIGN_SOURCE),
        anchored=True,
        near=_assignment_near,
        # the name up to its end: a name word later in the same name ends it at the same place
        head=_Lazy(_ASSIGN_HEAD, _IGNORECASE),
    ),
    _Rule(
        "secret",
        _Lazy("(?i)" + _PROSE_PASSWORD),
        2,
        ("pass", "pw"),
        _keep_prose,
        folded=_Lazy(_PROSE_PASSWORD),
        anchored=True,
        back=0,
    ),
    _Rule(
        "pgpass_password",
        _PGPASS,
        2,
        # the usual ports (PostgreSQL, a second cluster, PgBouncer) or ``*``: ``:`` alone is in
        # almost every text, and the hooks load this module only for text holding a trigger
        (":5432:", ":6432:", ":*:"),
        _keep_pgpass,
        gate=_Lazy(r":(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:[^\s:]"),
        gate_first=True,
    ),
    _Rule("docker_auth", _DOCKER_AUTH, 1, ('"auth"', '"identitytoken"')),
    _Rule("kubeconfig_data", _KUBE_DATA, 1, ("-data:",)),
    _Rule("oauth_token", _OAUTH_TOKEN, 1, ("oauth_token",)),
    _Rule("terraform_sensitive", _TF_SENSITIVE, -1, ('"sensitive"',), _keep_tf),
    _Rule("netrc_password", _NETRC, 1, ("pass",), _keep_netrc, folded=_NETRC_FOLDED),
    _Rule(
        "password_hash",
        _PASSWORD_HASH,
        1,
        ("$apr1$", "{sha}", "$2", "$1$", "$5$", "$6$", "$y$"),
        gate=_Lazy(r":(?:\$(?:apr1|2[abxy]|1|5|6|7|y|gy)\$|\{SHA\})"),
        gate_first=True,
    ),
    _Rule(
        "npm_auth",
        _Lazy(_NPMRC_AUTH),
        1,
        ("_auth", "_password"),
        folded=_Lazy(_NPMRC_AUTH, _IGNORECASE),
        anchored=True,
        back=0,
    ),
    _Rule(
        "vault_token",
        _Lazy(r"(?<![^\W_])hv[sbr]\.[A-Za-z0-9_-]{24,}"),
        0,
        ("hv",),
        gate=_Lazy(r"hv[sbr]\."),
        gate_first=True,
    ),
    _Rule(
        "secret",
        _Lazy(_ENV_SECRET_SOURCE),
        -1,  # the value's group: 2 to 4, whichever matched
        _ENV_TRIGGERS,
        _keep_env_secret,
        folded=_Lazy(_ENV_SECRET_SOURCE, _IGNORECASE),
        anchored=True,
        back=0,
        near=_env_part_near,
        # the name's parts: a part later in the same name has the same last part
        head=_Lazy(_ENV_SECRET_HEAD, _IGNORECASE),
    ),
)


def redact(text: str, present: Mapping[str, bool] | None = None) -> tuple[str, dict[str, int]]:
    """Return ``text`` with secrets replaced and ``{tag: count}`` of what was replaced.

    A replacement keeps the line breaks of what it replaced (a PEM block of ten lines becomes
    ``[REDACTED:private_key]`` and nine empty lines), so line numbers do not move.

    ``present``: ``{trigger: trigger in text.lower()}`` for triggers already looked for (the
    capture hooks test them all before loading this module); those are not scanned for again.
    A trigger it leaves out is looked for here; a wrong entry makes a rule run or not run.
    """
    global _LAST_LINE
    try:
        return _redact(text, present)
    finally:
        _LAST_LINE = None


def _redact(text: str, present: Mapping[str, bool] | None) -> tuple[str, dict[str, int]]:
    counts: dict[str, int] = {}
    if not text:
        return text, counts
    lowered = text.lower()
    # trigger -> in the text (rules share triggers)
    seen: dict[str, bool] = dict(present) if present else {}
    for rule in _RULES:
        # (not before ``re`` is loaded: a hook's text whose only secret is a token loads none)
        gate_first = (
            rule.gate_first and "re" in sys.modules and not all(t in seen for t in rule.triggers)
        )
        if (
            (gate_first and rule.gate is not None and rule.gate.search(text) is None)
            or not any(_holds(lowered, t, seen) for t in rule.triggers)
            or (not gate_first and rule.gate is not None and rule.gate.search(text) is None)
        ):
            continue

        def _sub(m: re.Match[str], rule: _Rule = rule) -> str:
            whole = m.group(0)
            if (rule.replace is None and "[REDACTED:" in whole) or (
                rule.keep is not None and rule.keep(m)
            ):
                return whole
            group = rule.group
            if group < 0:
                group = next(g for g in range(2, (m.re.groups or 0) + 1) if m.group(g) is not None)
            counts[rule.tag] = counts.get(rule.tag, 0) + 1
            if rule.replace is not None:
                return rule.replace(m)
            start, end = m.span(group)
            base = m.start(0)
            hidden = whole[start - base : end - base]
            mark = f"[REDACTED:{rule.tag}]" + "\n" * hidden.count("\n")
            return whole[: start - base] + mark + whole[end - base :]

        if rule.token is not None:
            new = rule.token.sub(text, _sub, seen)  # type: ignore[arg-type]
        elif rule.anchored and len(lowered) == len(text):
            new = _sub_anchored(rule, text, lowered, _sub, seen)
        elif rule.folded is not None and len(lowered) == len(text):
            new = _sub_folded(rule, text, lowered, _sub)
        else:
            new = rule.pattern.sub(_sub, text)
        if new != text:
            text, lowered = new, new.lower()
            # a trigger found before may be gone: re-scan the found ones (each scan of a large
            # text costs ~40 us); one absent stays absent except across a new mark
            for trigger in [t for t, found in seen.items() if found]:
                del seen[trigger]
            _forget_around_marks(lowered, seen)
    return text, counts


#: More marks than this in a text: every absent trigger is looked for again.
_MARKS_LOOKED_AROUND = 32


def _forget_around_marks(lowered: str, seen: dict[str, bool]) -> None:
    """Forget each trigger ``seen`` says is absent that occurs across or beside a
    ``[REDACTED:<tag>]`` mark (and the line breaks after it) of ``lowered``: a replacement
    changes only what its mark covers, so an absent trigger can appear only there (the mark
    ``[REDACTED:github_token]=x`` holds ``token``, as ``GITHUB_TOKEN=x`` does)."""
    absent = [t for t, found in seen.items() if not found]
    if not absent:
        return
    reach = max(map(len, absent)) - 1
    n = len(lowered)
    at, marks = lowered.find("[redacted:"), 0
    while at >= 0 and absent:
        marks += 1
        if marks > _MARKS_LOOKED_AROUND:
            for trigger in absent:
                del seen[trigger]
            return
        end = lowered.find("]", at)
        end = n if end < 0 else end + 1
        while end < n and lowered[end] == "\n":
            end += 1
        window = lowered[max(0, at - reach) : end + reach]
        for trigger in [t for t in absent if t in window]:
            del seen[trigger]
            absent.remove(trigger)
        at = lowered.find("[redacted:", end)


def _holds(lowered: str, trigger: str, seen: dict[str, bool]) -> bool:
    found = seen.get(trigger)
    if found is None:
        found = seen[trigger] = trigger in lowered
    return found


def _sub_anchored(
    rule: _Rule,
    text: str,
    lowered: str,
    sub: Callable[[re.Match[str]], str],
    seen: Mapping[str, bool] = _UNKNOWN,
) -> str:
    """``rule.pattern.sub(sub, text)`` for a pattern whose matches hold one of
    ``rule.triggers`` in their first ``rule.back`` characters: tried (``match``, no
    scan) only at the few places before each one ``str.find`` finds, with ``rule.folded`` on
    the lower-cased text first (a failed try costs a fraction of a microsecond). A rule with
    no ``folded`` pattern (a case-sensitive one starting with its trigger's letters) is tried
    on ``text`` alone. A trigger ``seen`` (as :meth:`_Token.sub`) says is absent is not
    scanned for. Starts a failed try rules out (``rule.head``) are skipped."""
    starts: set[int] = set()
    memo: dict[str, object] = {}
    for trigger in rule.triggers:
        if seen.get(trigger) is False:
            continue
        at = lowered.find(trigger)
        while at >= 0:
            # up to ``back`` before the trigger, and just after its first character (a trigger
            # may start with the ``_`` before a name part: ``_auth``)
            if rule.near is None or rule.near(lowered, at, at + len(trigger), memo):
                starts.update(range(max(0, at - rule.back), at + 2))
            at = lowered.find(trigger, at + 1)
    pieces, done, failed = [], 0, 0
    for start in sorted(starts):
        if start < done or start < failed:
            continue
        if rule.folded is not None and rule.folded.match(lowered, start) is None:
            head = rule.head.match(lowered, start) if rule.head is not None else None
            if head is not None:
                failed = head.end()
            continue
        m = rule.pattern.match(text, start)
        if m is None:
            continue
        pieces += [text[done : m.start()], sub(m)]
        done = m.end()
    return "".join(pieces) + text[done:] if pieces else text


def _sub_folded(rule: _Rule, text: str, lowered: str, sub: Callable[[re.Match[str]], str]) -> str:
    """``rule.pattern.sub(sub, text)``, found by scanning ``lowered`` with ``rule.folded`` and
    matched again on ``text`` at each hit (same length, so the same positions)."""
    assert rule.folded is not None
    pieces, done = [], 0
    for hit in rule.folded.finditer(lowered):
        m = rule.pattern.match(text, hit.start())
        if m is None or m.start() < done:
            continue
        pieces += [text[done : m.start()], sub(m)]
        done = m.end()
    return "".join(pieces) + text[done:] if pieces else text


def redact_text(text: str, present: Mapping[str, bool] | None = None) -> str:
    """:func:`redact` without the counts."""
    return redact(text, present)[0]


#: ``NAME=value`` with an upper-case NAME, as ``env`` prints it, anywhere in a line: the value
#: runs to the end of the line.
_ENV_ASSIGNMENT = _Lazy(r"(?<![\w$.-])(?:[A-Z][A-Z0-9_]*|_)=(?!=)([^\n]+)")


def redact_environment(text: str) -> str:
    """``text`` with the value of every ``NAME=value`` (upper-case NAME) replaced by
    ``[REDACTED:environment]``: for text that may quote the output of a command that printed
    the environment (an answer in the turn where such a command ran; docs/capture.md).
    Stricter than :func:`redact`, which takes only runs of lines with known variable names."""
    return _ENV_ASSIGNMENT.sub(
        lambda m: m.group(0)[: m.start(1) - m.start(0)] + "[REDACTED:environment]", text
    )


_LINE_END = _Lazy(r"\r\n|\r|\n")


def private_key_lines(text: str) -> list[tuple[int, int]]:
    """1-based inclusive ``(first, last)`` line ranges of the PEM private key blocks in ``text``
    (a whole file): lines that must never be shown, whatever slice of the file is asked for."""
    if "-----begin" not in text.lower():
        return []
    ranges = []
    line, counted = 1, 0  # the line of ``text[counted]``, counted on from the last block
    for m in _PEM.finditer(text):  # lines end at LF, CRLF or a lone CR, as read numbers them
        line += len(_LINE_END.findall(text, counted, m.start()))
        ranges.append((line, line + len(_LINE_END.findall(m.group(0)))))
        counted = m.start()  # a ``-``: never the LF of a CRLF
    return ranges


#: A line of a PEM body alone (64 base64 characters a line; OpenSSH keys: 70), after an
#: optional line number (``cat -n``, ``nl``, grep's ``N:``).
_KEY_BODY_LINE = _Lazy(r"(\s*\d+[\t:-]\s?)?([A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70})\s*")
_KEY_WIDE_RUN = _Lazy(r"[A-Za-z0-9+/]{64}")


def redact_key_bodies(text: str) -> str:
    """``text`` with every run of three or more lines that each hold one line of a PEM body
    (and nothing else but a line number) replaced line by line by ``[REDACTED:private_key]``.

    For command output: a command that prints part of a file (``sed -n 40,60p``) can show a
    key's body without its ``BEGIN`` line, which :func:`redact` needs to know it is a key.
    Certificate bodies look the same and are hidden too; hex digests (no upper- and
    lower-case letters both) are not. Line count and line numbers are kept."""
    if not _KEY_WIDE_RUN.search(text):
        return text
    lines = text.split("\n")
    run: list[int] = []
    for i in range(len(lines) + 1):
        m = _KEY_BODY_LINE.fullmatch(lines[i]) if i < len(lines) else None
        body = m.group(2) if m else ""
        if m and any(c.isupper() for c in body) and any(c.islower() for c in body):
            run.append(i)
            continue
        if len(run) >= 3:
            for j in run:
                prefix = _KEY_BODY_LINE.fullmatch(lines[j]).group(1) or ""  # type: ignore[union-attr]
                lines[j] = prefix + "[REDACTED:private_key]"
        run = []
    return "\n".join(lines)


def redact_value(value: Mapping[str, object]) -> dict[str, object]:
    """Redact every string inside a JSON-like mapping (metadata), keys kept; tuples become
    lists, as JSON has them."""
    return {k: _redact_json(v) for k, v in value.items()}


def _redact_json(value: object) -> object:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _redact_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_json(v) for v in value]
    return value
