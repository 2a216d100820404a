"""Doc summaries: the first paragraph of a docstring or of the doc comments above a symbol.

Pure text functions; which nodes are a symbol's docstring or doc comments is said by the
``@doc`` captures of ``queries/<language>.scm`` (see ``_code.py``).  A summary has its comment
markers stripped, tag lines (``@param``, ``:param x:``) and tool directives
(``//go:generate``, ``// eslint-disable-line``) dropped, whitespace collapsed, and is at
most :data:`MAX_CHARS` characters, cut at a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["MAX_CHARS", "comment_summary", "docstring_summary"]

#: Longest summary, in characters (a cut one ends with "…" within this length).
MAX_CHARS = 300

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w")
_FENCES = ("```", "~~~")
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
_STRING_PREFIX = re.compile(r"^[rRuUbBfF]{0,2}(\"\"\"|'''|\"|')")
# a tag line ends the description: JSDoc/Javadoc/KDoc/phpDoc/YARD `@tag`, reST `:param x:`
_TAG = re.compile(
    r"^(?:[@\\][A-Za-z]\w*|:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|"
    r"raises?|except|exception|var|ivar|cvar|vartype|meta)\b)"
)
_TAG_STARTS = frozenset("@\\:")
# tags whose text is the summary itself (Doxygen `@brief`, JSDoc `@description`)
_SUMMARY_TAG = re.compile(r"^[@\\](?:brief|short|summary|description|desc)\b\s*")
# flag tags alone on a line (`@public`, `@internal`): dropped, the description may follow
_FLAG_TAG = re.compile(r"^@[A-Za-z][\w-]*\s*$")
# tool directives, not prose: `//go:build`, `//nolint:x`, `# shellcheck disable=...`
_DIRECTIVE_RAW = re.compile(r"^(?://|#)[a-z][\w.-]*:\S|^#!")
_DIRECTIVE = re.compile(
    r"^(?:eslint[- ]|eslint$|prettier-ignore|istanbul ignore|c8 ignore|jshint |tslint:|"
    r"noinspection|NOLINT|clang-format |shellcheck |rubocop:|frozen_string_literal:|"
    r"-\*-|#?(?:end)?region\b|type: ignore|noqa\b|pragma\b)"
)
# a block tag inside a line (`/** Runs it. @param x the x */`) ends the description there
_TAG_IN_LINE = re.compile(
    r"\s[@\\](?:param|arg|argument|returns?|throws|exception|raises|see|example|deprecated|"
    r"since|public|private|protected|internal|beta|alpha|experimental|remarks|type|typedef|"
    r"template|override|async|default|yields?|author|version|todo)\b"
)
# :meth:`.Flask.route` -> Flask.route; :class:`Request <Request>` -> Request
_ROLE = re.compile(r":[\w.-]+(?::[\w.-]+)?:`[~.!]?([^`<]*?)(?:\s*<[^`]*>)?`")
_INLINE_TAG = re.compile(r"\{@\w+\s+([^}|]*?)(?:\s*\|[^}]*)?\}")  # {@link Foo} -> Foo
_XML_REF = re.compile(r"<(?:see|seealso|paramref|typeparamref)\s+\w+\s*=\s*\"([^\"]*)\"\s*/?>")
_PARAGRAPH_TAG = re.compile(r"<(?:p|para|br)\s*/?>|</summary>", re.I)
_MARKUP_TAG = re.compile(
    r"</?(?:p|para|b|i|em|strong|code|c|tt|summary|remarks|see|seealso|a|ul|ol|li|br)\b[^>]*>",
    re.I,
)


def docstring_summary(literal: str) -> str | None:
    """The summary of a string literal's source (``'''Adds x.\\n\\n More.'''`` -> ``"Adds x."``):
    prefix and quotes removed, first paragraph kept; ``None`` when it holds no text."""
    m = _STRING_PREFIX.match(literal)
    if m is None:
        return None
    quote = m.group(1)
    body = literal[m.end() :]
    if body.endswith(quote):
        body = body[: -len(quote)]
    body = body.lstrip()
    if not body.startswith(_FENCES):  # only the first paragraph is read
        blank = _BLANK_LINE.search(body)
        if blank is not None:
            body = body[: blank.start()]
    return _paragraph(body.splitlines())


def comment_summary(comments: list[str]) -> str | None:
    """The summary of the comments directly above a definition, top to bottom (each the
    whole source text of one comment: ``// a``, ``/** b */``, ``# c``).  When some of them
    are doc comments (``/**``, ``///``), only those count.  ``None`` when nothing is left."""
    if not comments:
        return None
    docs = [c for c in comments if c.startswith(("/**", "///")) and not c.startswith("/**/")]
    return _paragraph(_comment_lines(docs or comments))


def _comment_lines(comments: list[str]) -> Iterator[str]:
    """The comments' lines without their markers, directives left out (read lazily: only
    the first paragraph is wanted)."""
    for comment in comments:
        if comment.startswith("/*"):
            body = comment[3:] if comment.startswith(("/**", "/*!")) else comment[2:]
            for raw in _lines(body.removesuffix("*/")):
                line = raw.strip()
                if line.startswith("*"):
                    line = line.lstrip("*").strip()
                if line and _noise(line):
                    continue
                yield line
            yield ""  # one block comment is one paragraph at most
            continue
        for raw in comment.splitlines():
            line = raw.strip()
            if _DIRECTIVE_RAW.match(line):
                continue
            for marker in ("///", "//", "#"):
                if line.startswith(marker):
                    line = line[len(marker) :].strip()
                    break
            if line and _noise(line):
                continue
            yield line


def _lines(text: str) -> Iterator[str]:
    """``text.splitlines()`` on ``\n``, lazily: a long doc block is read only up to where
    its first paragraph ends."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def _noise(line: str) -> bool:
    """A directive (`eslint-disable`), or a rule line (`// ------`) that is no code fence."""
    if _DIRECTIVE.match(line):
        return True
    return not _WORD.search(line) and not line.startswith(_FENCES)


def _unmarked(lines: Iterable[str]) -> Iterator[str]:
    """Lines with C# XML doc and Javadoc HTML tags removed; ``<p>`` and closing
    ``</summary>`` become paragraph breaks, ``<see cref="X"/>`` becomes ``X``."""
    for line in lines:
        if "<" not in line:
            yield line
            continue
        line = _PARAGRAPH_TAG.sub("\n\n", _XML_REF.sub(r"\1", line))
        yield from _MARKUP_TAG.sub("", line).split("\n")


def _paragraph(lines: Iterable[str]) -> str | None:
    """First paragraph of cleaned comment or docstring lines, as one capped line."""
    words: list[str] = []
    size = 0
    in_tag = in_fence = False
    for raw in _unmarked(lines):
        line = raw.strip()
        if line.startswith(_FENCES):  # a fenced code block is a paragraph of its own
            if words:
                break
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line:
            if words:
                break
            in_tag = False
            continue
        if line[0] in _TAG_STARTS and _TAG.match(line):
            summary = _SUMMARY_TAG.match(line)
            if summary is not None:
                words.append(line[summary.end() :])
                in_tag = False
                continue
            if words:
                break  # the tags that follow a description end it
            in_tag = not _FLAG_TAG.match(line)  # a tag's own text may run on: skip it
            continue
        if in_tag:
            continue
        m = _TAG_IN_LINE.search(line) if "@" in line or "\\" in line else None
        if m is not None:
            words.append(line[: m.start()])
            break
        words.append(line)
        size += len(line) + 1
        if size > 2 * MAX_CHARS:
            break  # enough to cut at a word
    if not words:
        return None
    text = " ".join(words)
    if "{@" in text:
        text = _INLINE_TAG.sub(r"\1", text)
    if ":`" in text:
        text = _ROLE.sub(r"\1", text)
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return None
    if len(text) > MAX_CHARS:
        cut = text.rfind(" ", 0, MAX_CHARS)
        text = text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS - 1].rstrip(" ,;:") + "…"
    return text
