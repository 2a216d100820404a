"""Language-agnostic chunking of source code with tree-sitter.

Everything language-specific lives in ``queries/<language>.scm``.  The captures a query
may use:

``@definition.<kind>``
    a definition node; ``<kind>`` is one of function, method, class, interface, struct,
    enum, impl, trait, type, macro, module.  The same node captured by several patterns is
    one definition: captures are merged and the earliest pattern in the file sets the kind.
``@name``
    the node whose text names the definition; its line is the symbol's ``def_line`` (``::`` becomes ``.``; generic arguments,
    ``*`` and ``&`` are dropped).
``@receiver``
    a type that qualifies the definition from outside (Go methods): the symbol becomes
    ``Receiver.name``, kind ``method``, parent ``Receiver``.
``@trait``
    for ``impl`` definitions: the implemented trait.  An impl is named
    ``<prefix><trait> for <name>`` (prefix from ``(#set! prefix "impl ")``, default
    ``"impl "``), and definitions inside it are qualified by ``<name>`` alone, so the
    methods of ``impl Display for Foo`` are ``Foo.fmt``.
``(#set! overload "true")``
    marks bodiless overload signatures: a run of them followed by the same-named
    definition (no other definition in between) is one symbol from the first signature
    to the end of the implementation.
``@outer``
    a wrapper node that belongs to the definition (Python ``decorated_definition``); the
    symbol's ``start_line`` starts there while ``def_line`` stays on the definition.
``@leading``
    comments, attributes and decorators.  Whole-line ``@leading`` nodes directly above a
    definition (no blank line in between) travel with it, transitively.
``@import``
    import statements; module-level code holding them is chunked as ``imports``.
``@doc``
    in a definition pattern: the definition's docstring (a string literal, Python); in
    another pattern: a doc comment (it travels with a definition when also ``@leading``).
    A symbol's doc summary (``_doc.py``) is its docstring, else the summary of the ``@doc``
    comments among the leading nodes that travel with it (attributes, decorators and
    other comments in between are skipped).

Rules applied to every language:

* A ``function`` whose nearest enclosing definition is a class, interface, struct, enum,
  impl or trait is a ``method``; a ``method`` with no such parent is a ``function``.
* Names are qualified by the enclosing definitions: ``Outer.Inner.method``; a function
  nested in a function is ``outer.inner`` and stays inside its parent's chunk.
* Containers (class, interface, struct, enum, impl, trait, module) that contain
  definitions are emitted as a header chunk (up to the first member's leading comments),
  one chunk per member, chunks for code between members (symbol = the container) and a
  trailing chunk; trailing lines that hold only closing brackets or ``end`` are merged
  into the previous chunk instead of standing alone, and so are blank-only gaps.
* Module-level code between definitions becomes one chunk per gap: ``imports`` up to the
  last import statement of the gap, ``module`` for the rest.
* A chunk above ``max_chunk_tokens`` is split at statement boundaries (then blank lines,
  then any line) into ``symbol#1``, ``symbol#2``...; the definition line (and a Python
  docstring) is in ``#1``, which runs up to 1.5 times the budget to hold it after a long doc
  comment or decorators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ._doc import comment_summary, docstring_summary
from ._languages import TREE_SITTER_LANGUAGES, query_file
from ._text import Lines, Span, emit_split, finalize
from ._types import Chunk, Symbol

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Query

CONTAINERS = frozenset({"class", "interface", "struct", "enum", "impl", "trait", "module"})
_TYPE_CONTAINERS = CONTAINERS - {"module"}
_GENERIC = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_SPACE = re.compile(r"\s+")
_DEF_CAPTURE = re.compile(r"@(definition\.\w+)")


# per query pattern: (definition capture name, kind, name prefix, is an overload signature)
_PatternInfo = tuple["str | None", "str | None", "str | None", bool]


@cache
def _language(language: str) -> tuple[Language, Query, tuple[_PatternInfo, ...]]:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    lang = get_language(TREE_SITTER_LANGUAGES[language])  # type: ignore[arg-type]
    source = (
        resources.files(__package__).joinpath("queries", query_file(language)).read_text("utf-8")
    )
    query = Query(lang, source)
    raw = source.encode("utf-8")
    infos = []
    for i in range(query.pattern_count):
        text = raw[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)].decode()
        m = _DEF_CAPTURE.search(text)
        def_cap = m.group(1) if m else None
        settings = query.pattern_settings(i)
        infos.append(
            (
                def_cap,
                def_cap[11:] if def_cap else None,
                settings.get("prefix"),
                settings.get("overload") is not None,
            )
        )
    return lang, query, tuple(infos)


def clear_caches() -> None:
    """Forget loaded grammars and compiled queries (used by tests)."""
    _language.cache_clear()


def _clean_name(text: str) -> str:
    text = text.strip()
    prev = None
    while prev != text:
        prev, text = text, _GENERIC.sub("", text)
    text = text.replace("::", ".").replace("*", "").replace("&", "")
    text = _SPACE.sub(" ", text).strip()
    return text.removeprefix("mut ").removeprefix("dyn ").strip()


@dataclass(slots=True, eq=False)
class _Def:
    node: Node
    kind: str
    name: str
    def_row: int
    end_row: int
    outer_row: int
    start_byte: int = 0
    end_byte: int = 0
    receiver: str | None = None
    trait: str | None = None
    prefix: str = "impl "
    qname: str = ""
    scope: str = ""
    parent: _Def | None = None
    parent_name: str | None = None
    start_row: int = 0
    overload: bool = False
    merged: bool = False
    doc: str | None = None
    #: Row of the docstring's last line (Python), else -1: a split symbol's first part holds it.
    doc_end_row: int = -1
    children: list[_Def] = field(default_factory=list)

    @property
    def doc_row(self) -> int | None:
        """The docstring's last row (its chunk carries the doc summary), or None."""
        return self.doc_end_row if self.doc_end_row >= 0 else None

    @property
    def head_row(self) -> int:
        """The last row a split symbol's first part holds: its docstring's end, else the
        definition line."""
        return max(self.def_row, self.doc_end_row)


def _end_row(node: Node) -> int:
    row, col = node.end_point
    if col == 0 and row > node.start_point.row:
        return row - 1
    return row


def _content_end_row(node: Node) -> int:
    """Last row of ``node`` ignoring trailing comments (which some grammars put in blocks)."""
    n = node
    for _ in range(64):
        kids = n.children
        i = len(kids) - 1
        while i >= 0 and "comment" in kids[i].type:
            i -= 1
        if i < 0:
            break
        if i == len(kids) - 1 and n is not node and kids[i].child_count == 0:
            break
        n = kids[i]
    if n is node:
        return _end_row(node)
    return min(_end_row(n), _end_row(node))


def _def_row(node: Node, name: Node) -> int:
    """The line naming the definition (after Java annotations or a C return type on its
    own line), unless a braced body comes before the name (C ``typedef struct {..} T``)."""
    row = node.start_point.row
    name_row = name.start_point.row
    if name_row <= row or name_row > _end_row(node):
        return row
    for child in node.children:
        if child.start_byte >= name.start_byte:
            break
        if child.end_point.row > child.start_point.row and child.end_byte > name.start_byte - 1:
            continue  # the child holding the name
        if child.end_point.row > child.start_point.row and b"{" in (child.text or b""):
            return row
    return name_row


def _collect(
    query: Query, infos: tuple[_PatternInfo, ...], root: Node
) -> tuple[list[_Def], list[Node], list[Node], set[int]]:
    """Definitions (sorted), leading nodes, import nodes, and the start bytes of the
    leading nodes that are doc comments."""
    from tree_sitter import QueryCursor

    defs: dict[tuple[int, int, int], dict[str, Any]] = {}
    leading: list[Node] = []
    imports: list[Node] = []
    doc_comments: set[int] = set()
    for pattern, caps in QueryCursor(query).matches(root):
        def_cap, kind, prefix, overload = infos[pattern]
        if def_cap is None:
            if "leading" in caps:
                leading.extend(caps["leading"])
            if "doc" in caps:
                doc_comments.update(n.start_byte for n in caps["doc"])
            if "import" in caps:
                imports.extend(caps["import"])
            continue
        node = caps[def_cap][0]
        key = (node.start_byte, node.end_byte, node.kind_id)
        entry = defs.get(key)
        if entry is None:
            entry = defs[key] = {"node": node, "kind": kind, "pattern": pattern}
        elif pattern < entry["pattern"]:  # the earliest pattern in the query file decides
            entry["kind"], entry["pattern"] = kind, pattern
        for cap in ("name", "receiver", "trait", "outer", "doc"):
            if cap in caps and cap not in entry:
                entry[cap] = caps[cap][0]
        if prefix is not None:
            entry["prefix"] = prefix
        if overload:
            entry["overload"] = True
    out = []
    for entry in defs.values():
        name_node = entry.get("name")
        if name_node is None:
            continue
        name = _clean_name(name_node.text.decode("utf-8", "replace"))
        if not name:
            continue
        node = entry["node"]
        outer = entry.get("outer")
        d = _Def(
            node=node,
            kind=entry["kind"],
            name=name,
            def_row=_def_row(node, name_node),
            start_byte=node.start_byte,
            end_byte=node.end_byte,
            end_row=_content_end_row(node),
            outer_row=min(node.start_point.row, outer.start_point.row if outer else 1 << 30),
        )
        if "receiver" in entry:
            d.receiver = _clean_name(entry["receiver"].text.decode("utf-8", "replace")) or None
        if "trait" in entry:
            trait = _clean_name(entry["trait"].text.decode("utf-8", "replace").replace("::", "\0"))
            d.trait = trait.replace("\0", "::") or None
        if "prefix" in entry:
            d.prefix = entry["prefix"]
        d.overload = bool(entry.get("overload"))
        if "doc" in entry:
            d.doc = docstring_summary(entry["doc"].text.decode("utf-8", "replace"))
            d.doc_end_row = entry["doc"].end_point.row
        out.append(d)
    out.sort(key=lambda d: (d.start_byte, -d.end_byte))
    return out, leading, imports, doc_comments


def _build_tree(defs: list[_Def]) -> list[_Def]:
    roots: list[_Def] = []
    stack: list[_Def] = []
    for d in defs:
        while stack and not (
            stack[-1].start_byte <= d.start_byte and d.end_byte <= stack[-1].end_byte
        ):
            stack.pop()
        parent = stack[-1] if stack else None
        d.parent = parent
        if d.receiver:
            d.qname = f"{d.receiver}.{d.name}"
            d.parent_name = d.receiver
            if d.kind == "function":
                d.kind = "method"
        else:
            own = d.name
            if d.kind == "impl":
                own = d.prefix + (f"{d.trait} for {d.name}" if d.trait else d.name)
            d.qname = f"{parent.scope}.{own}" if parent else own
            d.parent_name = parent.qname if parent else None
        if d.kind == "impl":
            d.scope = f"{parent.scope}.{d.name}" if parent else d.name
        else:
            d.scope = d.qname
        if d.kind in ("function", "method"):
            in_type = parent is not None and parent.kind in _TYPE_CONTAINERS
            d.kind = "method" if in_type or d.receiver else "function"
        (parent.children if parent else roots).append(d)
        stack.append(d)
    return roots


def _merge_overloads(siblings: list[_Def]) -> list[_Def]:
    out: list[_Def] = []
    for d in siblings:
        d.children = _merge_overloads(d.children)
        prev = out[-1] if out else None
        if prev is not None and prev.overload and prev.qname == d.qname:
            prev.end_row = max(prev.end_row, d.end_row)
            prev.children.extend(d.children)
            prev.overload = d.overload
            prev.node = d.node
            d.merged = True
            continue
        out.append(d)
    return out


def _attach_leading(
    roots: list[_Def], lead: dict[int, int], docs: dict[int, int], lines: Lines
) -> None:
    """Extend each definition up over its leading nodes (``lead``: end row -> start row),
    and give one without a docstring the summary of the doc comments among them (``docs``:
    end row -> start row of a doc comment; whole lines, so their text is the comment's)."""

    def visit(siblings: list[_Def], lower: int, upper: int) -> None:
        prev_end = lower - 1
        for d in siblings:
            floor = prev_end + 1
            s = max(min(d.outer_row, d.def_row), floor)
            found: list[str] = []
            while s - 1 >= floor and (s - 1) in lead and lead[s - 1] >= floor:
                if docs and (s - 1) in docs:
                    found.append("".join(lines.lines[docs[s - 1] : s]).strip())
                s = lead[s - 1]
            if found and d.doc is None:
                found.reverse()
                d.doc = comment_summary(found)
            d.start_row = min(s, d.def_row)
            d.end_row = max(min(d.end_row, upper), d.def_row)
            visit(d.children, d.def_row + 1, d.end_row)
            prev_end = max(prev_end, d.end_row)

    visit(roots, 0, lines.n - 1)


def _leading_map(
    leading: list[Node], doc_comments: set[int], lines: Lines, raw: bytes, offset: int
) -> tuple[dict[int, int], dict[int, int]]:
    """Whole-line leading nodes as ``{end row: start row}``, and the doc comments among
    them likewise."""
    lead: dict[int, int] = {}
    docs: dict[int, int] = {}
    for node in leading:
        srow, scol = node.start_point
        erow, ecol = node.end_point
        if erow >= lines.n or srow >= lines.n:
            continue
        # whole-line nodes only: nothing but whitespace before the start / after the end
        ls = lines.byte_starts[srow] - offset
        if raw[ls : ls + scol].strip():
            continue
        if ecol == 0 and erow > srow:
            erow -= 1
        else:
            le = lines.byte_starts[erow] - offset
            if raw[le + ecol : lines.byte_starts[erow + 1] - offset].strip():
                continue
        lead[erow] = min(srow, lead.get(erow, srow))
        if doc_comments and node.start_byte in doc_comments:
            docs[erow] = srow
    return lead, docs


def _boundaries(node: Node) -> list[int]:
    rows: set[int] = set()
    n = node
    for _ in range(8):
        kids = n.named_children
        if not kids:
            break
        rows.update(k.start_point.row for k in kids)
        span = n.end_point.row - n.start_point.row
        big = max(kids, key=lambda k: k.end_point.row - k.start_point.row)
        bspan = big.end_point.row - big.start_point.row
        if bspan < 3 or bspan * 2 < span:
            break
        n = big
    return sorted(rows)


class _Assembler:
    def __init__(
        self, lines: Lines, max_tokens: int, root: Node, import_spans: list[tuple[int, int]]
    ) -> None:
        self.lines = lines
        self.max = max_tokens
        self.root = root
        self.import_spans = import_spans
        self.out: list[Span] = []

    def emit(
        self,
        a: int,
        b: int,
        symbol: str | None,
        kind: str,
        node: Node | None,
        gap: bool,
        doc: str | None = None,
        def_row: int | None = None,
        doc_row: int | None = None,
    ) -> None:
        emit_split(
            self.lines,
            self.out,
            a,
            b,
            symbol,
            kind,
            self.max,
            gap,
            (lambda: _boundaries(node)) if node is not None else None,
            doc,
            def_row,
            doc_row,
        )

    def gap(self, a: int, b: int, owner: _Def | None) -> None:
        if b < a:
            return
        if owner is not None:
            self.emit(a, b, owner.qname, owner.kind, owner.node, True)
            return
        last = -1
        for s, e in self.import_spans:
            if a <= s <= b:
                last = max(last, min(e, b))
        if last >= a:
            self.emit(a, last, None, "imports", self.root, True)
            a = last + 1
        self.emit(a, b, None, "module", self.root, True)

    def region(self, a: int, b: int, defs: list[_Def], owner: _Def | None) -> None:
        cursor = a
        for d in defs:
            if d.end_row < cursor or d.start_row > b:
                continue
            s = max(d.start_row, cursor)
            if s > cursor:
                self.gap(cursor, s - 1, owner)
            end = min(d.end_row, b)
            self.definition(d, s, end)
            cursor = end + 1
        self.gap(cursor, b, owner)

    def definition(self, d: _Def, s: int, end: int) -> None:
        kids = d.children if d.kind in CONTAINERS else []
        if not kids:
            if s <= d.def_row:
                self.emit(s, end, d.qname, d.kind, d.node, False, d.doc, d.head_row, d.doc_row)
            else:
                self.emit(s, end, d.qname, d.kind, d.node, False)
            return
        if s > d.def_row:  # the definition line was already emitted with something else
            self.region(s, end, kids, d)
            return
        header_end = min(max(kids[0].start_row - 1, d.def_row), end)
        self.emit(s, header_end, d.qname, d.kind, d.node, False, d.doc, d.head_row, d.doc_row)
        self.region(header_end + 1, end, kids, d)

    def finish(self, chunking: str) -> list[Chunk]:
        return finalize(self.lines, self.out, chunking)


def chunk_code(
    language: str,
    raw: bytes,
    offset: int,
    lines: Lines,
    max_tokens: int,
    found: dict[str, Any] | None = None,
) -> tuple[list[Chunk], list[Symbol], bool]:
    """Chunk source code; ``raw`` is the input without a BOM (``offset`` bytes dropped).

    With ``found`` (a dict), the same parse also yields the file's references: ``found``
    gets ``references`` and ``imports`` (lists), and the symbols their ``bases``
    (``_refs.py``); lines are those of ``raw``."""
    from tree_sitter import Parser

    lang, query, infos = _language(language)
    tree = Parser(lang).parse(raw)
    root = tree.root_node
    defs, leading, imports, doc_comments = _collect(query, infos, root)
    roots = _merge_overloads(_build_tree(defs))
    lead, docs = _leading_map(leading, doc_comments, lines, raw, offset)
    _attach_leading(roots, lead, docs, lines)
    spans = sorted((n.start_point.row, _end_row(n)) for n in imports)
    asm = _Assembler(lines, max_tokens, root, spans)
    asm.region(0, lines.n - 1, roots, None)
    chunks = asm.finish("tree-sitter")
    bases: dict[str, list[str]] = {}
    if found is not None:
        from ._refs import extract

        live = [d for d in defs if not d.merged]
        functions = [(d.start_byte, d.end_byte) for d in live if d.kind in ("function", "method")]
        classes = [(d.start_byte, d.end_byte, d.qname) for d in live if d.kind in _TYPE_CONTAINERS]
        refs, imported, bases = extract(language, root, functions, classes)
        found["references"] = refs
        found["imports"] = imported
    symbols = [
        Symbol(
            name=d.qname,
            kind=d.kind,
            start_line=d.start_row + 1,
            def_line=d.def_row + 1,
            end_line=d.end_row + 1,
            parent=d.parent_name,
            doc=d.doc,
            bases=tuple(bases.get(d.qname, ())),
        )
        for d in defs
        if not d.merged
    ]
    return chunks, symbols, root.has_error
