"""Reference edges between stored symbol chunks (docs/search.md, "References between symbols").

Each file chunk the index or a read stores keeps the names its code uses (metadata ``refs``:
``name``, ``receiver.name``, ``*.name`` when the receiver is no plain name; found by
``ctx_tree_chunk`` with ``queries/references/<language>.scm``), and each file root its imports
(``imports``: ``[local, module, name]`` rows) and its classes' bases (``bases``). An edge is
resolved when asked, over the live chunks only, so it is never stale: a file stored again
(by the index or a read) brings its new references, and a superseded version's are gone.

A reference ``R`` in chunk ``C`` of file ``F`` names the definition:

* a bare name: a definition at the top of ``F``; in a language whose methods call their
  siblings bare (Java), first a member of ``C``'s class or its bases; else what an import of
  ``F`` binds to that name, followed into the imported module's file (and through that
  file's own imports, 3 steps at most: re-exports); else, in a language whose files share
  their package's names (Go, Java), a definition of another file of ``F``'s directory; else
  one of a module a wildcard import brings. A name bound as a local of ``C``'s function
  (a parameter, an assignment) was dropped when the file was parsed.
* ``self.name`` / ``this.name``: a member of ``C``'s class, else of its bases (each resolved
  as a name of ``F``), 3 levels up.
* ``a.b.name`` where ``a`` is a module an import binds (or ``a.b`` a package path): ``name``
  at the top of that module's file; where ``a`` names a class: its member ``name``.
* any other receiver (an object whose type the parse cannot tell, ``*``): the one definition
  of that name in the project when exactly one file defines it; none when several do, so a
  same-named symbol in another scope gives no edge.

A name that resolves to nothing in the project (a builtin, a library) gives no edge. The
target is the chunk holding the definition's line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tree_chunk import ChunkedFile
    from ctx_tree_schema import Node
    from ctx_tree_store import Store, SymbolChunk

#: References kept per chunk at most (in source order): a generated table's chunk names
#: hundreds, and no neighbour list shows them.
REFS_PER_CHUNK = 200
#: Steps followed through re-exports and base classes.
MAX_HOPS = 3
#: Kinds whose members a ``self``/``this`` reference or a ``Class.member`` reaches.
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "module"})
_PART = re.compile(r"#\d+\Z")


@dataclass(frozen=True, slots=True)
class Rules:
    """How a language's names reach their definitions (see the module's doc)."""

    #: Receivers that mean the enclosing class's instance (``self``, ``this``).
    self_words: tuple[str, ...] = ()
    #: Files of one directory share their top-level names (Go packages, Java packages).
    package_scope: bool = False
    #: Bare names reach the enclosing class's members (Java).
    bare_members: bool = False
    #: How an import's module names a file: ``dotted`` (Python), ``path`` (relative
    #: JavaScript/TypeScript specifiers), ``directory`` (Go import paths), ``class``
    #: (Java: ``a.b.C`` is ``a/b/C.java``).
    modules: str = "dotted"
    #: File name extensions of the language's source files.
    extensions: tuple[str, ...] = ()
    #: File stems that stand for their directory (``__init__``, ``index``).
    package_files: tuple[str, ...] = ()
    #: Languages whose definitions this one's references may name (itself included).
    family: tuple[str, ...] = ()


_JS = Rules(
    self_words=("this",),
    modules="path",
    extensions=(".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"),
    package_files=("index",),
    family=("javascript", "typescript", "tsx"),
)
#: Per language (``ctx_tree_chunk`` names); a language absent here has no reference edges.
LANGUAGES: dict[str, Rules] = {
    "python": Rules(
        self_words=("self", "cls"),
        extensions=(".py", ".pyi"),
        package_files=("__init__",),
        family=("python",),
    ),
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "go": Rules(package_scope=True, modules="directory", extensions=(".go",), family=("go",)),
    "java": Rules(
        self_words=("this",),
        package_scope=True,
        bare_members=True,
        modules="class",
        extensions=(".java",),
        family=("java",),
    ),
}


def chunk_references(chunked: ChunkedFile) -> tuple[list[list[str]], dict[str, Any]]:
    """What a stored file keeps of its references: per chunk (in chunk order) its
    references as ``name``, ``receiver.name`` or ``*.name`` strings, each once, in source
    order, at most :data:`REFS_PER_CHUNK`; and the root's ``imports`` and ``bases``
    metadata (absent when empty). A bare name that can reach nothing (a language whose
    files see only their own and imported names, neither of which holds it: a builtin, a
    global of the runtime) is not kept. Pure."""
    import bisect

    rules = LANGUAGES.get(chunked.language or "")
    known: set[str] | None = None  # bare names that may resolve; None: any
    file_scoped = rules is not None and not (rules.package_scope or rules.bare_members)
    if file_scoped and not any(i.name == "*" for i in chunked.imports):
        known = {s.name for s in chunked.symbols if "." not in s.name}
        known.update(i.local for i in chunked.imports)
    ends = [c.end_line for c in chunked.chunks]
    per_chunk: list[dict[str, None]] = [{} for _ in chunked.chunks]
    for ref in chunked.references:
        if ref.receiver is None and known is not None and ref.name not in known:
            continue
        i = bisect.bisect_left(ends, ref.line)
        if i >= len(per_chunk):
            continue
        text = ref.name if ref.receiver is None else f"{ref.receiver}.{ref.name}"
        if len(per_chunk[i]) < REFS_PER_CHUNK:
            per_chunk[i].setdefault(text, None)
    extra: dict[str, Any] = {}
    if chunked.imports:
        extra["imports"] = [[i.local, i.module, i.name] for i in chunked.imports]
    bases = {s.name: list(s.bases) for s in chunked.symbols if s.bases}
    if bases:
        extra["bases"] = bases
    return [list(refs) for refs in per_chunk], extra


def expand(text: str) -> list[str]:
    """A stored reference and the references its chain holds: ``"self.env.doctreedir"`` →
    ``["self.env.doctreedir", "self.env"]``; ``*.x`` alone. The chain's head alone is not
    one: it may be a local of the function (``result`` of ``result.ready()``), which the
    parse dropped as a bare name but not as a chain's head."""
    if text.startswith("*.") or text.count(".") < 2:
        return [text]
    parts = text.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 1, -1)]


def split_ref(text: str) -> tuple[str | None, str]:
    """``"self.env.get"`` → ``("self.env", "get")``; ``"get"`` → ``(None, "get")``."""
    receiver, _dot, name = text.rpartition(".")
    return (receiver or None), name


@dataclass(frozen=True, slots=True)
class Target:
    """A definition: its file (relative path) and qualified symbol name."""

    rel: str
    symbol: str


@dataclass(frozen=True, slots=True)
class Edge:
    """A resolved reference: ``src`` chunk uses ``dst`` chunk through ``ref`` (as stored)."""

    src: str
    dst: str
    ref: str


@dataclass
class _File:
    """A live file root as the resolver reads it."""

    root_id: str
    rel: str
    lang: str | None
    symbols: dict[str, tuple[str, int]]  # qualified name -> (kind, definition line)
    imports: list[tuple[str, str, str | None]]
    bases: dict[str, list[str]]


class RefGraph:
    """Resolves references over one store's live file chunks; caches what it reads, so make
    one per answer (the store may change between answers)."""

    def __init__(self, store: Store, root: str) -> None:
        from ctx_tree_mcp.policy.names import file_uri

        self.store = store
        self.prefix = file_uri(root).rstrip("/") + "/"
        self._rels: list[str] | None = None
        self._by_module: dict[str, list[str]] | None = None
        self._dirs: dict[str, list[str]] | None = None
        self._files: dict[str, _File | None] = {}
        self._file_by_root: dict[str, _File | None] = {}
        self._chunks: dict[str, list[SymbolChunk]] = {}
        self._defining: dict[str, list[SymbolChunk]] = {}
        self._named: dict[tuple[str, str], SymbolChunk | None] = {}

    # --- the project's files ------------------------------------------------------------

    def rels(self) -> list[str]:
        """Relative paths of the live files under the project root."""
        if self._rels is None:
            n = len(self.prefix)
            self._rels = sorted(u[n:] for u in self.store.file_versions(self.prefix))
        return self._rels

    def _module_index(self) -> dict[str, list[str]]:
        """Module path -> files (Python and Java style): a file's dotted path from the
        project root, and each of its suffixes that starts below a folder that is no Python
        package (``src/``, ``lib/``, Java's ``src/main/java/``): ``import logging`` is the
        top-level ``logging``, never ``pkg/util/logging.py``."""
        if self._by_module is None:
            rels = self.rels()
            packages = {
                posixpath.dirname(r) for r in rels if r.endswith(("/__init__.py", "/__init__.pyi"))
            }
            index: dict[str, list[str]] = {}
            for rel in rels:
                stem, ext = posixpath.splitext(rel)
                if ext not in (".py", ".pyi", ".java"):
                    continue
                parts = stem.split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                for i in range(len(parts)):
                    if i and "/".join(parts[:i]) in packages:
                        break
                    index.setdefault(".".join(parts[i:]), []).append(rel)
            self._by_module = index
        return self._by_module

    def _dir_index(self) -> dict[str, list[str]]:
        if self._dirs is None:
            dirs: dict[str, list[str]] = {}
            for rel in self.rels():
                dirs.setdefault(posixpath.dirname(rel), []).append(rel)
            self._dirs = dirs
        return self._dirs

    def file(self, rel: str) -> _File | None:
        """The live file ``rel`` as the resolver reads it, or None."""
        if rel not in self._files:
            root = self.store.latest_by_source(self.prefix + rel)
            self._files[rel] = self._read(root) if root is not None else None
        return self._files[rel]

    def file_of_root(self, root_id: str) -> _File | None:
        """The file whose live root is ``root_id``, or None."""
        if root_id not in self._file_by_root:
            root = self.store.get(root_id)
            f = self._read(root) if root is not None else None
            self._file_by_root[root_id] = f
            if f is not None:
                self._files.setdefault(f.rel, f)
        return self._file_by_root[root_id]

    def _read(self, root: Node) -> _File | None:
        meta = root.metadata
        if root.status.value != "live" or not meta.get("is_file_root"):
            return None
        symbols: dict[str, tuple[str, int]] = {}
        for row in meta.get("symbols", ()):
            if len(row) >= 5:
                symbols.setdefault(str(row[0]), (str(row[1]), int(row[3])))
        f = _File(
            root.id,
            str(meta.get("relpath", "")),
            meta.get("lang"),
            symbols,
            [(str(a), str(b), c) for a, b, c in meta.get("imports", ())],
            dict(meta.get("bases", {})),
        )
        self._file_by_root[root.id] = f
        return f

    def chunks(self, root_id: str) -> list[SymbolChunk]:
        """The live chunks of a file root (no content), in line order."""
        if root_id not in self._chunks:
            found = self.store.chunks_of(root_id)
            found.sort(key=lambda c: c.metadata.get("lines", [0])[0])
            self._chunks[root_id] = found
        return self._chunks[root_id]

    def defining(self, name: str) -> list[SymbolChunk]:
        """Live chunks whose symbol's last part is ``name``."""
        if name not in self._defining:
            self._defining[name] = self.store.chunks_defining(name)
        return self._defining[name]

    # --- modules --------------------------------------------------------------------------

    def module_files(self, f: _File, module: str) -> list[str]:
        """The files an import of ``module`` in ``f`` names (none for a library)."""
        rules = LANGUAGES.get(f.lang or "")
        if rules is None:
            return []
        if rules.modules == "dotted":
            absolute = _absolute_module(f.rel, module)
            if absolute is None:
                return []
            return self._longest(absolute)
        if rules.modules == "class":
            return self._longest(module)
        if rules.modules == "path":
            if not module.startswith("."):
                return []
            base = posixpath.normpath(posixpath.join(posixpath.dirname(f.rel), module))
            rels = set(self.rels())
            for ext in ("", *rules.extensions):
                if base + ext in rels:
                    return [base + ext]
            for stem in rules.package_files:
                for ext in rules.extensions:
                    if f"{base}/{stem}{ext}" in rels:
                        return [f"{base}/{stem}{ext}"]
            return []
        if rules.modules == "directory":
            dirs = self._dir_index()
            parts = module.strip("/").split("/")
            for i in range(len(parts)):
                d = "/".join(parts[i:])
                if d in dirs:
                    return [r for r in dirs[d] if r.endswith(rules.extensions)]
            return []
        return []

    def _longest(self, dotted: str) -> list[str]:
        """Files whose module path ends with the most of ``dotted`` (all of it at least)."""
        found = self._module_index().get(dotted, [])
        if len(found) <= 1:
            return found
        # several files end so: the ones whose whole path is the module come first
        exact = [r for r in found if _module_of(r) == dotted]
        return exact or found

    # --- resolution -----------------------------------------------------------------------

    def resolve(self, f: _File, symbol: str, ref: str) -> list[Target]:
        """The definitions ``ref`` (as stored) in a chunk of ``f`` whose symbol is ``symbol``
        names (see the module's doc); none when it names nothing in the project or too
        many things."""
        rules = LANGUAGES.get(f.lang or "")
        if rules is None:
            return []
        receiver, name = split_ref(ref)
        if receiver is None:
            if name in rules.self_words:
                return []
            return self._bare(f, symbol, name, rules)
        if receiver in rules.self_words:
            cls = _enclosing_class(f, symbol)
            return self._member(f, cls, name, 0) if cls else []
        if receiver != "*":
            found = self._dotted(f, receiver, name, rules)
            if found is not None:
                return found
        return self._unique(f, name)

    def _bare(self, f: _File, symbol: str, name: str, rules: Rules) -> list[Target]:
        if rules.bare_members:
            cls = _enclosing_class(f, symbol)
            if cls:
                found = self._member(f, cls, name, 0)
                if found:
                    return found
        if name in f.symbols:
            return [Target(f.rel, name)]
        for local, module, imported in f.imports:
            if local == name:
                return self._imported(f, module, imported, 0)
        if rules.package_scope:
            found = self._in_package(f, name)
            if found:
                return found
        for local, module, imported in f.imports:
            if local == "*" and imported == "*":
                for rel in self.module_files(f, module):
                    g = self.file(rel)
                    if g is not None and name in g.symbols:
                        return [Target(g.rel, name)]
        return []

    def _in_package(self, f: _File, name: str) -> list[Target]:
        out = []
        for rel in self._dir_index().get(posixpath.dirname(f.rel), ()):
            if rel == f.rel or posixpath.splitext(rel)[1] != posixpath.splitext(f.rel)[1]:
                continue
            g = self.file(rel)
            if g is not None and name in g.symbols:
                out.append(Target(g.rel, name))
        return out

    def _imported(self, f: _File, module: str, imported: str | None, hops: int) -> list[Target]:
        """What an import binds: a definition of the module's file (followed through its
        own imports), or the module itself (``Target(rel, "")``)."""
        if imported in (None, "*", "default"):
            files = self.module_files(f, module)
            if imported == "default":
                return [Target(r, "") for r in files]
            return [Target(r, "") for r in files]
        # ``from pkg import mod`` may bind a module
        rules = LANGUAGES.get(f.lang or "")
        if rules is not None and rules.modules == "dotted":
            sub = module + ("" if module.endswith(".") else ".") + imported
            files = self.module_files(f, sub)
            if files:
                return [Target(r, "") for r in files]
        for rel in self.module_files(f, module):
            g = self.file(rel)
            if g is None:
                continue
            if imported in g.symbols:
                return [Target(g.rel, imported)]
            if hops < MAX_HOPS:  # a re-export
                for local, mod, name in g.imports:
                    if local == imported:
                        return self._imported(g, mod, name, hops + 1)
        return []

    def _dotted(self, f: _File, receiver: str, name: str, rules: Rules) -> list[Target] | None:
        """``receiver.name`` where the receiver is a plain chain: None when its head is no
        module or class the file knows (the caller falls back)."""
        head, *rest = receiver.split(".")
        if head in rules.self_words:
            return None  # self.attr.name: the attribute's type is unknown
        start: list[Target] = []
        if head in f.symbols and f.symbols[head][0] in CLASS_KINDS:
            start = [Target(f.rel, head)]
        else:
            for local, module, imported in f.imports:
                if local == head:
                    # an import binds it: into the project, or to a library (no edge)
                    return [
                        t
                        for x in self._imported(f, module, imported, 0)
                        for t in self._walk(x, rest, name)
                    ]
            if rules.package_scope:
                start = self._in_package(f, head)
        if not start:
            return None
        return [t for x in start for t in self._walk(x, rest, name)]

    def _walk(self, t: Target, rest: list[str], name: str) -> list[Target]:
        """From a module or class target, down the attribute chain ``rest`` to ``name``."""
        g = self.file(t.rel)
        if g is None:
            return []
        if not t.symbol:  # a module: its submodules, then its names
            if rest:
                head, *tail = rest
                if head in g.symbols:
                    return self._walk(Target(g.rel, head), tail, name)
                sub = (
                    self.module_files(g, _module_of(g.rel) + "." + head)
                    if g.lang == "python"
                    else []
                )
                return [x for r in sub for x in self._walk(Target(r, ""), tail, name)]
            if name in g.symbols:
                return [Target(g.rel, name)]
            for local, module, imported in g.imports:  # re-exported by the package
                if local == name:
                    return [x for x in self._imported(g, module, imported, 1) if x.symbol]
            return []
        qualified = ".".join([t.symbol, *rest])
        return self._member(g, qualified, name, 0)

    def _member(self, f: _File, cls: str, name: str, hops: int) -> list[Target]:
        """``cls.name`` in ``f``, else in ``cls``'s bases."""
        if f"{cls}.{name}" in f.symbols:
            return [Target(f.rel, f"{cls}.{name}")]
        if hops >= MAX_HOPS:
            return []
        rules = LANGUAGES.get(f.lang or "") or Rules()
        for base in f.bases.get(cls, ()):
            receiver, base_name = split_ref(base)
            if receiver is None:
                targets = self._bare(f, cls, base_name, replace_members(rules))
            else:
                targets = self._dotted(f, receiver, base_name, rules) or []
            for t in targets:
                g = self.file(t.rel)
                if g is not None and t.symbol:
                    found = self._member(g, t.symbol, name, hops + 1)
                    if found:
                        return found
        return []

    def _unique(self, f: _File, name: str) -> list[Target]:
        """The one definition of ``name`` in the project's code of ``f``'s language family,
        if there is exactly one and the name is distinctive (:func:`distinctive`): a short
        plain word (``join``, ``pop``, ``resolve``) is as likely a library type's method."""
        rules = LANGUAGES.get(f.lang or "")
        if rules is None or not distinctive(name):
            return []
        found: dict[tuple[str, str], None] = {}
        for c in self.defining(name):
            g = self.file_of_root(c.root_id)
            if g is not None and g.lang in rules.family and c.symbol in g.symbols:
                found.setdefault((g.rel, c.symbol), None)
        if len(found) != 1:
            return []
        return [Target(rel, sym) for rel, sym in found]

    # --- chunks ---------------------------------------------------------------------------

    def chunk_of(self, t: Target) -> SymbolChunk | None:
        """The chunk holding target ``t``'s definition line (a module target: none)."""
        f = self.file(t.rel)
        if f is None or not t.symbol or t.symbol not in f.symbols:
            return None
        key = (f.root_id, t.symbol)
        if key not in self._named:
            self._named[key] = self.store.chunk_named(f.root_id, self.prefix + f.rel, t.symbol)
        if self._named[key] is not None:
            return self._named[key]
        line = f.symbols[t.symbol][1]
        for c in self.chunks(f.root_id):
            lines = c.metadata.get("lines") or [0, 0]
            if lines[0] <= line <= lines[1]:
                return c
        return None

    def callees(self, chunk: SymbolChunk) -> list[Edge]:
        """What ``chunk``'s references name, as edges out of it (each target once)."""
        f = self.file_of_root(chunk.root_id)
        if f is None:
            return []
        out: dict[str, Edge] = {}
        done: set[str] = set()
        for stored in chunk.metadata.get("refs", ()):
            for ref in expand(str(stored)):
                if ref in done:
                    continue
                done.add(ref)
                for t in self.resolve(f, chunk.symbol, ref):
                    target = self.chunk_of(t)
                    if target is not None and target.id != chunk.id:
                        out.setdefault(target.id, Edge(chunk.id, target.id, ref))
        return list(out.values())

    def callers(self, chunk: SymbolChunk, candidates: int | None = None) -> list[Edge]:
        """The chunks whose references name a definition ``chunk`` holds the line of, as
        edges into it (each source once); of a name many chunks hold, the newest
        ``candidates`` of them are checked (default: the store's lookup bound)."""
        f = self.file_of_root(chunk.root_id)
        if f is None:
            return []
        lines = chunk.metadata.get("lines") or [0, 0]
        held = [q for q, (_kind, line) in f.symbols.items() if lines[0] <= line <= lines[1]]
        out: dict[str, Edge] = {}
        for qname in held:
            name = qname.rsplit(".", 1)[-1]
            target = Target(f.rel, qname)
            for cand, names in self._mentions(name, candidates):
                if cand.id == chunk.id or cand.id in out:
                    continue
                g = self.file_of_root(cand.root_id)
                if g is None:
                    continue
                refs = {r for s in cand.metadata.get("refs", ()) for r in expand(str(s))}
                for ref in sorted(refs):
                    if split_ref(ref)[1] in names and target in self.resolve(g, cand.symbol, ref):
                        out[cand.id] = Edge(cand.id, chunk.id, ref)
                        break
        return list(out.values())

    def _mentions(self, name: str, limit: int | None) -> list[tuple[SymbolChunk, set[str]]]:
        """Chunks that may use ``name``, each with the names it may use it by: those whose
        code holds the name, and the chunks of a file that imports it under another name
        (``from m import name as alias``) holding the alias."""
        found = (
            self.store.chunks_mentioning(name)
            if limit is None
            else self.store.chunks_mentioning(name, limit)
        )
        out = [(c, {name}) for c in found]
        seen = {c.id for c in found}
        for root_id in {c.root_id for c in found}:
            g = self.file_of_root(root_id)
            if g is None:
                continue
            aliases = {local for local, _m, imported in g.imports if imported == name}
            aliases.discard(name)
            if not aliases:
                continue
            for c in self.chunks(root_id):
                refs = {split_ref(r)[1] for s in c.metadata.get("refs", ()) for r in expand(str(s))}
                if c.id not in seen and refs & aliases:
                    seen.add(c.id)
                    out.append((c, aliases))
        return out

    def chunk(self, node: Node) -> SymbolChunk | None:
        """``node`` as a chunk the graph reads, or None (not a live chunk under a file root)."""
        from ctx_tree_store import SymbolChunk, symbol_of

        if node.kind.value != "file_chunk" or node.parent_id is None:
            return None
        if node.metadata.get("is_file_root") or node.status.value != "live":
            return None
        return SymbolChunk(node.id, node.parent_id, symbol_of(node.source_uri), node.metadata)


def distinctive(name: str) -> bool:
    """A compound identifier of 8 characters or more (``snake_case`` inside, or mixed
    case): a name a library is unlikely to share (the directory map's rule)."""
    return len(name) >= 8 and ("_" in name.strip("_") or name != name.lower())


def project_root(node: Node) -> str | None:
    """The project root a stored file chunk belongs to: its absolute ``path`` less its
    ``relpath`` (None for a node that is no file chunk)."""
    meta = node.metadata
    path, rel = meta.get("path"), meta.get("relpath")
    if node.kind.value != "file_chunk" or not isinstance(path, str) or not isinstance(rel, str):
        return None
    if not rel or not path.endswith("/" + rel):
        return None
    return path[: -len(rel) - 1]


def replace_members(rules: Rules) -> Rules:
    """``rules`` without bare member lookup (a base class's name is no member)."""
    from dataclasses import replace

    return replace(rules, bare_members=False)


def _enclosing_class(f: _File, symbol: str) -> str | None:
    """The innermost class-like symbol of ``f`` that ``symbol`` is in (or is)."""
    parts = _PART.sub("", symbol).split(".")
    for i in range(len(parts), 0, -1):
        q = ".".join(parts[:i])
        kind = f.symbols.get(q, ("", 0))[0]
        if kind in CLASS_KINDS and kind != "module":
            return q
    return None


def _module_of(rel: str) -> str:
    stem = posixpath.splitext(rel)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _absolute_module(rel: str, module: str) -> str | None:
    """A Python import's module as a dotted path from the project root's view (relative
    imports resolved against ``rel``); None for a relative import above the root."""
    if not module.startswith("."):
        return module
    level = len(module) - len(module.lstrip("."))
    rest = module[level:]
    package = _module_of(rel).split(".")
    if not rel.endswith(("__init__.py", "__init__.pyi")):
        package = package[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    parts = [*base, *([rest] if rest else [])]
    return ".".join(p for p in parts if p) or None


def reference_neighbors(
    graph: RefGraph, node: Node, candidates: int | None = None
) -> list[tuple[str, str]]:
    """``(other id, via)`` of a live symbol chunk's callees (``references:out <ref>``) then
    callers (``references:in <ref>``, ``candidates`` as :meth:`RefGraph.callers`); ``[]``
    for any other node."""
    chunk = graph.chunk(node)
    if chunk is None:
        return []
    out = [(e.dst, f"references:out {e.ref}") for e in graph.callees(chunk)]
    out += [(e.src, f"references:in {e.ref}") for e in graph.callers(chunk, candidates)]
    return out


def walk(
    store: Store,
    root: str,
    start: Node,
    depth: int,
    edge_kinds: Sequence[Any] | None,
    limit: int,
) -> list[tuple[Node, int, str]]:
    """``Store.neighbors`` plus reference edges (when ``edge_kinds`` is None or holds
    ``references``): breadth first up to ``depth`` hops, nearest first, at most ``limit``
    nodes, the start excluded, each node once at its nearest depth: ``(node, hops, via)``.
    At each hop a node's spine and stored edges come first, then its callees and callers."""
    from ctx_tree_schema import EdgeKind

    refs = edge_kinds is None or EdgeKind.REFERENCES in [EdgeKind(k) for k in edge_kinds]
    graph = RefGraph(store, root)
    seen = {start.id}
    frontier = [start]
    found: list[tuple[Node, int, str]] = []
    for hop in range(1, depth + 1):
        adjacency = store.adjacent_many([n.id for n in frontier], edge_kinds)
        step: list[tuple[str, str]] = []
        for current in frontier:
            pairs = list(adjacency.get(current.id, ()))
            if refs:
                pairs += reference_neighbors(graph, current)
            for other, via in pairs:
                if other not in seen:
                    seen.add(other)
                    step.append((other, via))
        step = step[: limit - len(found)]
        nodes = store.get_many([other for other, _via in step])
        found.extend((nodes[o], hop, via) for o, via in step if o in nodes)
        frontier = [nodes[o] for o, _via in step if o in nodes]
        if len(found) >= limit or not frontier:
            break
    return found


__all__ = [
    "Edge",
    "RefGraph",
    "Target",
    "chunk_references",
    "project_root",
    "reference_neighbors",
    "walk",
]
