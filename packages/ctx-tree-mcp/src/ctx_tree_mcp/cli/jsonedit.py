"""Rewrite a JSON document as little as its new value needs: every member and element that did
not change keeps its text as the user wrote it (indentation, one-line arrays, key order,
escapes), and what changed is written in the document's own indentation.

:func:`edit_json` is what ``ctx-tree install``/``uninstall`` use on a host's settings file
(docs/install.md): adding or removing ctx-tree's entry leaves the rest of the file's bytes
as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


@dataclass
class _Node:
    """A value's span in the text; an object's members (key, where the key starts, value) or
    an array's items."""

    start: int
    end: int
    members: list[tuple[str, int, _Node]] = field(default_factory=list)
    items: list[_Node] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def _parse(text: str, i: int) -> _Node:
    """The value starting at or after ``i`` (``text`` is valid JSON)."""
    i = _skip(text, i)
    if text[i] == "{":
        node, i = _Node(i, i), _skip(text, i + 1)
        while text[i] != "}":
            key, after = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            colon = _skip(text, after)
            value = _parse(text, colon + 1)
            node.members.append((key, i, value))
            i = _skip(text, value.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    if text[i] == "[":
        node, i = _Node(i, i), _skip(text, i + 1)
        while text[i] != "]":
            item = _parse(text, i)
            node.items.append(item)
            i = _skip(text, item.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    _, end = _DECODER.raw_decode(text, i)
    return _Node(i, end)


def _line_indent(text: str, at: int) -> str:
    """The blanks that start the line holding ``text[at]``."""
    start = text.rfind("\n", 0, at) + 1
    end = start
    while end < at and text[end] in " \t":
        end += 1
    return text[start:end]


class _Style:
    """How the document is written: its indentation unit and its ``key: value`` separator."""

    def __init__(self, text: str, root: _Node) -> None:
        self.unit, self.colon = "  ", ": "
        for node in _walk(root):
            if node.members:
                _, key_at, value = node.members[0]
                after_key = json.decoder.scanstring(text, key_at + 1)[1]  # type: ignore[attr-defined]
                self.colon = text[after_key : value.start]
                outer, inner = _line_indent(text, node.start), _line_indent(text, key_at)
                if "\n" in text[node.start : key_at] and inner.startswith(outer) and inner != outer:
                    self.unit = inner[len(outer) :]
                return

    def dump(self, value: Any, indent: str) -> str:
        """``value`` as this document writes it, its lines after the first at ``indent``."""
        text = json.dumps(value, indent=len(self.unit.expandtabs(8)), ensure_ascii=False)
        if self.unit.startswith("\t"):
            text = "\n".join(_tabs(line, len(self.unit.expandtabs(8))) for line in text.split("\n"))
        if self.colon != ": ":
            text = _recolon(text, self.colon)
        return text.replace("\n", "\n" + indent)


def _tabs(line: str, width: int) -> str:
    stripped = line.lstrip(" ")
    return "\t" * ((len(line) - len(stripped)) // width) + stripped


def _recolon(text: str, colon: str) -> str:
    """``text`` (from :func:`json.dumps`) with each member's ``": "`` written as ``colon``."""
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            _, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            out.append(text[i:end])
            if text.startswith(": ", end):
                out.append(colon)
                end += 2
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _walk(node: _Node) -> list[_Node]:
    out = [node]
    for _, _, value in node.members:
        out += _walk(value)
    for item in node.items:
        out += _walk(item)
    return out


def edit_json(text: str, new: Any) -> str:
    """``text`` (a JSON document) rewritten to hold ``new``: the parts whose value is unchanged
    keep their text; changed ones are written in the document's indentation. Raises
    ``ValueError`` when ``text`` is not JSON."""
    old = json.loads(text)
    root = _parse(text, 0)
    style = _Style(text, root)
    return text[: root.start] + _emit(text, root, old, new, style) + text[root.end :]


def _emit(text: str, node: _Node, old: Any, new: Any, style: _Style) -> str:
    if type(old) is type(new) and old == new:
        return text[node.start : node.end]
    indent = _line_indent(text, node.start)
    if isinstance(old, dict) and isinstance(new, dict) and node.members:
        return _emit_object(text, node, old, new, style, indent)
    if isinstance(old, list) and isinstance(new, list) and node.items:
        return _emit_array(text, node, old, new, style, indent)
    return style.dump(new, indent)


def _emit_object(
    text: str, node: _Node, old: dict[str, Any], new: dict[str, Any], style: _Style, indent: str
) -> str:
    members = node.members
    first_key = members[0][1]
    lead = text[node.start + 1 : first_key]
    tail = text[members[-1][2].end : node.end - 1]
    sep = "," + lead if len(members) < 2 else text[members[0][2].end : members[1][1]]
    inner = _line_indent(text, first_key) if "\n" in lead else indent + style.unit
    parts = []
    for key, key_at, value in members:
        if key not in new:
            continue
        after_key = json.decoder.scanstring(text, key_at + 1)[1]  # type: ignore[attr-defined]
        head = text[key_at : value.start]
        if after_key > value.start:  # never: a key ends before its value
            head = text[key_at:after_key] + style.colon
        parts.append(head + _emit(text, value, old[key], new[key], style))
    for key, value in new.items():
        if key not in old:
            parts.append(
                json.dumps(key, ensure_ascii=False) + style.colon + style.dump(value, inner)
            )
    if not parts:
        return "{}"
    if list(new) != [k for k in old if k in new] + [k for k in new if k not in old]:
        return style.dump(new, indent)  # keys moved: no member's text is kept where it was
    return "{" + lead + sep.join(parts) + tail + "}"


def _alike(old: Any, new: Any) -> bool:
    """Two objects sharing a member, or two arrays: one changed into the other."""
    if isinstance(old, dict) and isinstance(new, dict):
        return any(k in new and type(new[k]) is type(v) and new[k] == v for k, v in old.items())
    return isinstance(old, list) and isinstance(new, list)


def _emit_array(
    text: str, node: _Node, old: list[Any], new: list[Any], style: _Style, indent: str
) -> str:
    items = node.items
    lead = text[node.start + 1 : items[0].start]
    tail = text[items[-1].end : node.end - 1]
    sep = "," + lead if len(items) < 2 else text[items[0].end : items[1].start]
    inner = _line_indent(text, items[0].start) if "\n" in lead else indent + style.unit
    # old items kept in order; an item changed in place (a hook group that lost a handler) is
    # rewritten inside; the rest is new
    parts, j = [], 0
    for value in new:
        k = j
        while k < len(old) and (type(old[k]) is not type(value) or old[k] != value):
            k += 1
        if k < len(old):
            parts.append(text[items[k].start : items[k].end])
            j = k + 1
        elif j < len(old) and _alike(old[j], value):
            parts.append(_emit(text, items[j], old[j], value, style))
            j += 1
        else:
            parts.append(style.dump(value, inner))
    if not parts:
        return "[]"
    return "[" + lead + sep.join(parts) + tail + "]"
