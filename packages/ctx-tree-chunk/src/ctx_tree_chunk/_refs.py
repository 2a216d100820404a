"""References out of a parsed file: the names its code uses, its imports, its classes' bases.

Everything language-specific lives in ``queries/references/<language>.scm``; a language without
that file has no references. The captures a query may use:

``@reference``
    an expression that names something: a bare identifier (``helper``), or a dotted chain
    (``self.env.get_outdated_files``, ``os.path.join``, ``pkg.Type``). Its text, with white
    space removed, is split at ``.`` (also ``::`` and ``->``): the last part is the name, the
    rest the receiver. The pattern also captures the name node as ``@name``; when the text is
    not a plain chain (``f(x).attr``, ``a[0].b``) the receiver is unknown (``*``); a
    ``@receiver`` capture in the pattern gives the receiver's node instead (Java's
    ``method_invocation`` holds the arguments too). A
    reference that is the head of a longer plain chain captured too (``self`` of
    ``self.g``, ``os.path`` of ``os.path.join``) is dropped: the chain says it.
``@call``
    the callee of a call (or of ``new``): a ``@reference`` at the same node is a call.
``@skip``
    a node that is no reference although a ``@reference`` pattern matches it (a
    definition's own name, a keyword argument's name, a member name inside a chain).
``@local``
    a name bound inside a function (a parameter, an assignment's or a loop's target): a bare
    reference to the same name inside the same innermost function is to that local, not to
    anything defined elsewhere, and is dropped. The binding itself is no reference either.
``@import.module``, ``@import.name``, ``@import.alias``
    one import binding per match: the module as written (``pkg.mod``, ``.mod``,
    ``./util``, ``github.com/a/b``), the imported name (absent: the module itself is
    bound; ``*`` for a wildcard; a pattern's ``(#set! name "default")`` gives it) and the
    local name it is bound to (absent: the name, else the module's first part, or for a path
    its last part; a pattern's ``(#set! local "last")`` makes it the last part always, as
    Java's ``import a.b.C`` binds ``C``).
``@inherits``
    a base class (or an implemented interface) named in a class's definition.

Rules applied to every language: references are kept in source order, one per distinct
``(receiver, name, line)``; names are identifiers (``[A-Za-z_$][A-Za-z0-9_$]*``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from ._languages import references_file
from ._types import Import, Reference

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Query

_SPACE = re.compile(r"\s+")
_SEP = re.compile(r"::|->|\?\.|!\.")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_CHAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*\Z")
#: Receiver of a reference whose object is not a plain chain (a call's result, an index).
UNKNOWN_RECEIVER = "*"


@cache
def references_query(language: str) -> tuple[Query, Query] | None:
    """``language``'s references query compiled twice: its patterns read capture by capture,
    and those read match by match (an import's parts, a ``@receiver`` and its name belong
    together); None when the language has no references query."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    from ._languages import TREE_SITTER_LANGUAGES

    path = resources.files(__package__).joinpath("queries", references_file(language))
    if not path.is_file():
        return None
    lang: Language = get_language(TREE_SITTER_LANGUAGES[language])  # type: ignore[arg-type]
    source = path.read_text("utf-8")
    by_capture, by_match = Query(lang, source), Query(lang, source)
    raw = source.encode("utf-8")
    for i in range(by_capture.pattern_count):
        text = raw[by_capture.start_byte_for_pattern(i) : by_capture.end_byte_for_pattern(i)]
        grouped = b"@receiver" in text or b"@import." in text
        (by_capture if grouped else by_match).disable_pattern(i)
    return by_capture, by_match


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _chain(text: str) -> str | None:
    """``text`` as a plain dotted chain (separators normalized to ``.``), or None."""
    if text.isidentifier():  # most references: a bare name
        return text
    flat = _SEP.sub(".", _SPACE.sub("", text))
    return flat if _CHAIN.match(flat) else None


def _module_text(node: Node) -> str:
    text = _SPACE.sub("", _text(node))
    return text.strip("\"'`<>")


def extract(
    language: str,
    root: Node,
    functions: list[tuple[int, int]],
    classes: list[tuple[int, int, str]],
) -> tuple[list[Reference], list[Import], dict[str, list[str]]]:
    """References, imports and bases of one parsed file.

    Args:
        language: a language with a references query (else nothing is found).
        root: the tree's root node.
        functions: ``(start byte, end byte)`` of every function-like definition (locals are
            scoped to the innermost one holding them), sorted by start.
        classes: ``(start byte, end byte, qualified name)`` of every class-like definition.

    Returns:
        ``(references, imports, bases)``: references in source order, one per distinct
        ``(receiver, name, line)``; imports in source order; ``{class name: [base, ...]}``.
    """
    from tree_sitter import QueryCursor

    queries = references_query(language)
    if queries is None:
        return [], [], {}
    by_capture, by_match = queries
    caps = QueryCursor(by_capture).captures(root)
    # a reference's name is the @name node it ends with (itself for a bare identifier)
    names = {n.end_byte: n for n in caps.get("name", ())}
    refs: dict[tuple[int, int], tuple[Node, Node | None, Node | None]] = {}
    for node in caps.get("reference", ()):
        key = (node.start_byte, node.end_byte)
        refs.setdefault(key, (node, names.get(key[1]), None))
    calls = {(n.start_byte, n.end_byte) for n in caps.get("call", ())}
    skip = {(n.start_byte, n.end_byte) for n in caps.get("skip", ())}
    local_nodes = list(caps.get("local", ()))
    skip.update((n.start_byte, n.end_byte) for n in local_nodes)
    inherits = list(caps.get("inherits", ()))
    imports: list[Import] = []
    for pattern, match in QueryCursor(by_match).matches(root):
        if "import.module" in match:
            imp = _import(match, by_match.pattern_settings(pattern))
            if imp is not None:
                imports.append(imp)
        if "reference" in match and "receiver" in match and "name" in match:
            node = match["reference"][0]
            refs[(node.start_byte, node.end_byte)] = (
                node,
                match["name"][0],
                match["receiver"][0],
            )
        for node in match.get("call", ()):
            calls.add((node.start_byte, node.end_byte))
    scopes = Scopes(functions)
    locals_of = _locals(local_nodes, scopes)
    # the heads of plain chains (``self`` of ``self.g``): the chain stands for them. A chain
    # written with spaces or ``::`` is measured in its own bytes, so its heads are not found
    # and stay (a redundant reference, never a lost one).
    chains = {key: _chain(_text(node)) for key, (node, _n, _r) in refs.items()}
    heads: set[tuple[int, int]] = set()
    for (start, end), text in chains.items():
        if text is not None and "." in text and end - start == len(text.encode()):
            heads.update((start, start + len(p.encode())) for p in _prefixes(text))
    out: list[Reference] = []
    seen: set[tuple[str | None, str, int]] = set()
    for key in sorted(refs):
        if key in skip:
            continue
        node, name_node, receiver_node = refs[key]
        text = chains[key]
        if key in heads:
            continue
        receiver: str | None
        if receiver_node is not None and name_node is not None:
            name = _text(name_node).strip()
            receiver = _chain(_text(receiver_node)) or UNKNOWN_RECEIVER
        elif text is not None:
            *recv, name = text.split(".")
            receiver = ".".join(recv) or None
        else:
            if name_node is None:
                continue
            name = _text(name_node).strip()
            receiver = UNKNOWN_RECEIVER
        if not (name.isidentifier() or _NAME.match(name)):
            continue
        if receiver is None and name in locals_of.get(scopes.innermost(key[0]), ()):
            continue
        line = node.start_point.row + 1
        if (receiver, name, line) in seen:
            continue
        seen.add((receiver, name, line))
        out.append(Reference(name, receiver, line, key in calls))
    return out, imports, _bases(inherits, classes)


def _prefixes(chain: str) -> list[str]:
    parts = chain.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


class Scopes:
    """Function-like definitions as nested byte ranges: which one holds a byte, innermost."""

    def __init__(self, functions: list[tuple[int, int]]) -> None:
        self.ranges = sorted(functions)
        self.parent: list[int] = []
        stack: list[int] = []
        for i, (start, _end) in enumerate(self.ranges):
            while stack and self.ranges[stack[-1]][1] <= start:
                stack.pop()
            self.parent.append(stack[-1] if stack else -1)
            stack.append(i)

    def innermost(self, at: int) -> int:
        """Index of the innermost range holding byte ``at``, or -1. A range that does not hold
        it can only be inside one that does, so the search climbs its parents."""
        i = bisect_right(self.ranges, (at, 1 << 62)) - 1
        while i >= 0 and not self.ranges[i][0] <= at < self.ranges[i][1]:
            i = self.parent[i]
        return i


def _locals(nodes: list[Node], scopes: Scopes) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for node in nodes:
        at = scopes.innermost(node.start_byte)
        if at >= 0:
            out.setdefault(at, set()).add(_text(node).strip())
    return out


def _import(caps: dict[str, list[Node]], settings: dict[str, str | None]) -> Import | None:
    module = _module_text(caps["import.module"][0])
    if not module:
        return None
    given = settings.get("name")
    name = _SPACE.sub("", _text(caps["import.name"][0])) if "import.name" in caps else given
    if "import.alias" in caps:
        local = _text(caps["import.alias"][0]).strip()
    elif name:
        local = name.rsplit(".", 1)[-1]
    elif settings.get("local") == "last":
        local = re.split(r"[./]", module)[-1]
    else:
        parts = [p for p in re.split(r"[./]", module) if p]
        local = parts[0] if "/" not in module else (parts[-1] if parts else "")
    if not local:
        return None
    line = caps["import.module"][0].start_point.row + 1
    return Import(local, module, name or None, line)


def _bases(inherits: list[Node], classes: list[tuple[int, int, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node in inherits:
        chain = _chain(_text(node))
        if chain is None:
            continue
        owner = None
        for start, end, name in classes:  # innermost class holding the base
            if start <= node.start_byte < end and (owner is None or start >= owner[0]):
                owner = (start, name)
        if owner is not None and chain not in out.setdefault(owner[1], []):
            out[owner[1]].append(chain)
    return out


def clear_caches() -> None:
    """Forget compiled references queries (used by tests)."""
    references_query.cache_clear()
