"""Chunking without a grammar: Markdown by heading, JSON/YAML/TOML by top-level key.

* Markdown: ATX (``# Title``) and setext (``Title`` over ``===``/``---``) headings outside
  fenced code blocks.  One chunk per heading up to the next heading of any level (kind
  ``section``, symbol = heading text); text before the first heading is ``module``.  The
  outline's ``heading`` symbols span their whole section including sub-sections, with
  ``parent`` = the enclosing heading's text.
* JSON: the top-level object's keys, found by a small scanner that tracks strings,
  nesting and ``//`` comments (so slightly invalid JSON still works).  Keys sharing a line
  (minified JSON) share its chunk, named for the first of them: where the chunk starts.
  A top-level array or scalar gets fallback windows.
* YAML: line-based; a top-level key is a line at column 0 of the form ``key:`` (quoted
  keys allowed) that is not a comment, list item or document marker.
* TOML: line-based; ``[table]`` / ``[[array.of.tables]]`` headers, and ``key = value``
  lines before the first header; lines inside multi-line strings are skipped.

For YAML and TOML, comment lines directly above a key (no blank line) travel with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._text import Lines, Span, emit_split, finalize
from ._types import Chunk, Symbol

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_OR_QUOTE = re.compile(r"^ {0,3}([-*+>]|\d+[.)])(\s|$)")
_TOML_TABLE = re.compile(r"\s*\[\[?([^\[\]]*)\]\]?")
_TOML_KEY = re.compile(r"""[A-Za-z0-9_\-."' ]+""")
# Every regex here is linear: no two adjacent unbounded repeats over overlapping classes.

# (def_row, lead_row, end_row, name, kind, parent)
_Item = tuple[int, int, int, str, str, "str | None"]


def chunk_structure(
    language: str, lines: Lines, max_tokens: int
) -> tuple[list[Chunk], list[Symbol]] | None:
    """Chunk ``lines``; ``None`` means "no structure found, use fallback windows"."""
    if language == "markdown":
        items = _markdown(lines)
        chunk_kind = "section"
    elif language == "json":
        items = _json(lines)
        chunk_kind = "key"
    elif language == "yaml":
        items = _keys(lines, _yaml_key)
        chunk_kind = "key"
    else:
        items = _keys(lines, _toml_scanner())
        chunk_kind = "key"
    if not items:
        return None
    out: list[Span] = []
    # Keys sharing a line (minified JSON): the chunk from that line is named for the first.
    heads = [it for i, it in enumerate(items) if i == 0 or it[1] != items[i - 1][1]]
    starts = [lead for _d, lead, _e, _n, _k, _p in heads] + [lines.n]
    if starts[0] > 0:
        emit_split(lines, out, 0, starts[0] - 1, None, "module", max_tokens, True)
    for i, (_d, lead, _e, name, _k, _p) in enumerate(heads):
        emit_split(lines, out, lead, starts[i + 1] - 1, name, chunk_kind, max_tokens, False)
    symbols = [
        Symbol(name=n, kind=k, start_line=lead + 1, def_line=d + 1, end_line=e + 1, parent=p)
        for d, lead, e, n, k, p in items
    ]
    return finalize(lines, out, "structure"), symbols


def _last_content(lines: Lines, a: int, b: int) -> int:
    while b > a and (lines.is_blank(b) or lines.lines[b].lstrip().startswith(("#", "---", "..."))):
        b -= 1
    return b


def _markdown(lines: Lines) -> list[_Item]:
    heads: list[tuple[int, int, str]] = []  # row, level, text
    fence: str | None = None
    rows = lines.lines
    for r, line in enumerate(rows):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :]:
                fence = None
            continue
        if fence is not None:
            continue
        m = _ATX.match(line)
        if m:
            text = line[m.end() :].strip()
            closing = text.rstrip("#")
            if closing != text and (not closing or closing[-1] in " \t"):
                text = closing.strip()
            heads.append((r, len(m.group(1)), text))
            continue
        if r > 0 and _SETEXT.match(line) and not lines.is_blank(r - 1):
            prev = rows[r - 1]
            if (heads and heads[-1][0] >= r - 1) or _LIST_OR_QUOTE.match(prev) or prev[:1] in " \t":
                continue
            if r >= 2 and not lines.is_blank(r - 2):
                continue  # only one-line setext headings (a paragraph otherwise)
            level = 1 if line.strip()[0] == "=" else 2
            heads.append((r - 1, level, prev.strip()))
    heads = [h for h in heads if h[2]]
    items: list[_Item] = []
    stack: list[tuple[int, str]] = []  # level, text
    for i, (row, level, text) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        end = lines.n - 1
        for row2, level2, _t in heads[i + 1 :]:
            if level2 <= level:
                end = row2 - 1
                break
        while end > row and lines.is_blank(end):
            end -= 1
        items.append((row, row, end, text, "heading", stack[-1][1] if stack else None))
        stack.append((level, text))
    # a setext heading's text row may precede the underline row: keep rows increasing
    return items


def _json(lines: Lines) -> list[_Item]:
    keys: list[tuple[int, str]] = []
    ends: list[int] = []
    depth = 0
    in_str = False
    esc = False
    expect_key = False
    key_start: tuple[int, int] | None = None
    buf: list[str] = []
    last_content = -1
    top_object: bool | None = None
    for r, line in enumerate(lines.lines):
        i = 0
        n = len(line)
        while i < n:
            ch = line[i]
            if in_str:
                if key_start is not None:
                    buf.append(ch)
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
                    if key_start is not None:
                        keys.append((key_start[0], "".join(buf[:-1])))
                        key_start = None
                        buf = []
                    last_content = r
                i += 1
                continue
            if ch == "/" and line.startswith("//", i):
                break
            if ch.isspace():
                i += 1
                continue
            if top_object is None:
                top_object = ch == "{"
                if not top_object:
                    return []
            if ch == '"':
                in_str = True
                if depth == 1 and expect_key:
                    if keys:
                        ends.append(last_content)
                    key_start = (r, i)
                    expect_key = False
            elif ch in "{[":
                depth += 1
                if depth == 1:
                    expect_key = True
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    ends.append(last_content)
                    expect_key = False
                    i += 1
                    continue
            elif ch == "," and depth == 1:
                expect_key = True
                i += 1
                continue
            if depth >= 1:
                last_content = r
            i += 1
    while len(ends) < len(keys):
        ends.append(max(last_content, keys[len(ends)][0]))
    return [(r, r, max(r, e), k, "key", None) for (r, k), e in zip(keys, ends, strict=False)]


def _yaml_key(line: str) -> str | None:
    if not line or line[0] in " \t\r\n#%-[{&*!|>?@`" or line.startswith("..."):
        return None
    if line[0] in "\"'":
        end = line.find(line[0], 1)
        while end > 0 and line[0] == '"' and line[end - 1] == "\\":
            end = line.find('"', end + 1)
        if end < 0:
            return None
        rest = line[end + 1 :].lstrip(" \t")
        if not rest.startswith(":") or rest[1:2] not in ("", " ", "\t", "\r", "\n"):
            return None
        return line[1:end]
    pos = line.find(":")
    while pos >= 0:
        if line[pos + 1 : pos + 2] in ("", " ", "\t", "\r", "\n"):
            key = line[:pos].strip()
            return key if key and "#" not in key else None
        pos = line.find(":", pos + 1)
    return None


def _toml_scanner() -> Callable[[str], str | None]:
    multi: str | None = None  # the open multi-line string's quotes
    table = False  # inside a [table] (its keys are not top-level)

    def key(line: str) -> str | None:
        nonlocal multi, table
        if multi is not None:
            if line.count(multi) % 2 == 1:
                multi = None
            return None
        found = None
        m = _TOML_TABLE.match(line)
        if m and line[m.end() :].strip()[:1] in ("", "#") and m.group(1).strip():
            table = True
            found = m.group(1).strip()
        elif not table and line[:1] not in (" ", "\t", "#", "["):
            eq = line.find("=")
            if eq > 0 and _TOML_KEY.fullmatch(line[:eq].rstrip(" \t")):
                found = line[:eq].strip()
        for q in ('"""', "'''"):
            if line.count(q) % 2 == 1:
                multi = q
                break
        return found

    return key


def _keys(lines: Lines, detect: Callable[[str], str | None]) -> list[_Item]:
    found: list[tuple[int, str]] = []
    for r, line in enumerate(lines.lines):
        k = detect(line)
        if k:
            found.append((r, k))
    items: list[_Item] = []
    prev_end = -1
    for i, (r, k) in enumerate(found):
        lead = r
        while lead - 1 > prev_end and lines.lines[lead - 1].lstrip().startswith("#"):
            lead -= 1
        nxt = found[i + 1][0] if i + 1 < len(found) else lines.n
        end = _last_content(lines, r, nxt - 1)
        items.append((r, lead, end, k, "key", None))
        prev_end = r
    return items
