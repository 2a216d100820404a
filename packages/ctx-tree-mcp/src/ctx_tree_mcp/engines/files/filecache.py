"""File reads through the store (docs/data-model.md, "Cache behavior").

A file is stored as a root ``file_chunk`` node (``is_file_root``; content = the outline) and its
chunk nodes, which tile the file. An unchanged file (same size and sha256 of its bytes) is
served from the store without parsing. Otherwise the file is chunked and handed to
``Store.capture_file``, which owns the status machine: in one transaction it keeps an identical
live or stale version (another process may have stored it a moment ago) or inserts the new one,
and supersedes every older version. A file that disappeared has its nodes marked stale. A file whose bytes are again
those of an earlier stored version (an edit reverted) gets a live copy of that version, not a
re-parse.

How much is read (docs/tools.md, "Large files"): ``capture.maxBytes`` caps what is captured of
tool output, not a file on disk. A file is stored whole up to ``capture.maxFileBytes`` (16 MB);
past it, the first ``capture.maxFileBytes`` (cut at a line end) are stored, the root says
``truncated`` with the file's true size and how far it was kept, and the rest is hashed but
not held in memory. Text in another encoding than UTF-8 (a byte-order mark, UTF-16, Latin-1 …)
is stored as UTF-8 text (:mod:`.textcodec`), its encoding in the root's ``metadata.encoding``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.policy.names import file_uri
from ctx_tree_mcp.wire.cut import REDACT_MARGIN

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from ctx_tree_schema import FileRootMeta, Node

    from ctx_tree_mcp.caches import ViewCache
    from ctx_tree_mcp.engines.parts import SessionParts
    from ctx_tree_mcp.policy.paths import PathPolicy, ResolvedPath

    class FileParts(SessionParts, Protocol):
        """What reading files through the store uses of the caller's ``App``: its store, its
        config (``capture.maxFileBytes``), its session's recorder (the session node, the file
        roots it references) and the file views served last."""

        @property
        def views(self) -> ViewCache:
            """The file views served last (``App.views``)."""

    class CheckParts(FileParts, Protocol):
        """What :func:`freshen` uses of the caller's ``App``: what a read does, and the
        root's path policy."""

        @property
        def policy(self) -> PathPolicy:
            """The root's path policy (``App.policy``)."""


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One symbol of the outline: qualified ``name``, ``kind``, 1-based inclusive lines
    (``start`` includes decorators and leading comments; ``def_line`` is the keyword line)."""

    name: str
    kind: str
    start: int
    def_line: int
    end: int

    @property
    def label(self) -> str:
        """``kind name`` as an outline row shows it; a name that already starts with its kind
        (a Rust ``impl Display for Foo``) is shown once."""
        return self.name if self.name.startswith(f"{self.kind} ") else f"{self.kind} {self.name}"


@dataclass(frozen=True)
class FileView:
    """A stored file: its root node, its chunk nodes in line order, and its outline."""

    root: Node
    chunks: tuple[Node, ...]
    outline: tuple[OutlineEntry, ...]
    relative: str
    cached: bool
    #: False when the store file does not hold these nodes (``Store.in_file``): answers then
    #: offer no ``ctx_tree_get`` of them.
    stored: bool = True

    @property
    def total_lines(self) -> int:
        """Lines of the file (of its rendering for a notebook)."""
        return int(self.root.metadata.get("total_lines", 0))

    @property
    def language(self) -> str | None:
        """The file's language as chunk detected it; None for plain text."""
        return self.root.metadata.get("lang")

    @cached_property
    def chunk_ends(self) -> list[int]:
        """Last line (1-based) of each chunk, in chunk order: ascending, since the chunks tile
        the file, so a line's chunk is found by bisection."""
        return [int(c.metadata["lines"][1]) for c in self.chunks]

    def chunks_over(self, first: int, last: int) -> tuple[Node, ...]:
        """The chunks holding any of lines ``first..last`` (1-based inclusive), in line order;
        ``O(log n)`` to find the first."""
        import bisect

        i = bisect.bisect_left(self.chunk_ends, first)
        j = i
        while j < len(self.chunks) and self.chunks[j].metadata["lines"][0] <= last:
            j += 1
        return self.chunks[i:j]

    @cached_property
    def numbered_tokens(self) -> int:
        """Estimated tokens of the whole file rendered as ``<n>\\t<line>`` lines: the chunks'
        estimates plus two tokens a line for the number and the tab."""
        from ctx_tree_compose import estimate_tokens

        return sum(estimate_tokens(c.content) for c in self.chunks) + 2 * self.total_lines


def _outline_text(relative: str, lang: str | None, total: int, outline: list[OutlineEntry]) -> str:
    head = f"{relative} ({lang or 'text'}, {total} line{'s' if total != 1 else ''})"
    return "\n".join([head, *(f"{e.start}-{e.end} {e.label}" for e in outline)]) + "\n"


def reference_file(app: FileParts, root_id: str) -> None:
    """Give ``app``'s session a ``references`` edge to the stored file root ``root_id`` (once
    per session and file): a read of a file the store already held (the project index, another
    session) is still a file this session read, for its resume digest (docs/capture.md,
    "Resume after compaction"). Never raises: a read never fails for want of this edge."""
    if root_id in app.recorder.referenced:
        return
    from ctx_tree_schema import EdgeKind

    try:
        app.store.add_edges([(app.recorder.session_node_id(), root_id, EdgeKind.REFERENCES)])
    except Exception as exc:  # a read-only or busy store: the read is served all the same
        log.debug("session reference to %s not stored: %s", root_id, exc)
        return
    app.recorder.referenced.add(root_id)


def load(app: FileParts, resolved: ResolvedPath, st: os.stat_result) -> FileView:
    """The stored view of ``resolved``, re-chunked and re-stored when the file changed.

    Reads at most ``capture.maxFileBytes`` (plus a redaction margin) into memory; the
    sha256 and the size are those of the whole file. Raises :class:`ToolInputError` for
    binary or undecodable files and for a file that cannot be opened.
    """
    store = app.store
    uri = file_uri(resolved.absolute)
    mtime_ms = st.st_mtime_ns // 1_000_000
    try:
        data, digest, size = read_head(
            resolved.absolute, int(app.config.data["capture"]["maxFileBytes"])
        )
    except OSError as exc:
        raise ToolInputError("path", f"cannot read {resolved.relative!r}: {exc.strerror}") from None
    old = store.latest_by_source(uri)
    if (
        old is not None
        and old.status.value == "live"
        and old.metadata.get("file_sha256") == digest
        and old.metadata.get("size") == size
    ):
        reference_file(app, old.id)
        hit = app.views.recall(old.id)
        if isinstance(hit, FileView):
            return hit
        chunks = tuple(c for c in store.children(old.id) if c.status.value == "live")
        return app.views.remember(
            FileView(
                old,
                chunks,
                _outline(old.metadata),
                resolved.relative,
                cached=True,
                stored=store.in_file(old.id),
            )
        )
    if old is not None and old.metadata.get("file_sha256") != digest:
        # an edit reverted: the earlier stored version, copied live, no parse
        for prev in store.superseded_roots(uri):
            meta = prev.metadata
            if meta.get("file_sha256") == digest and meta.get("size") == size:
                root = store.require(store.restore_version(prev.id, old.id, mtime=mtime_ms))
                chunks = tuple(store.children(root.id))
                view = FileView(
                    root,
                    chunks,
                    _outline(root.metadata),
                    resolved.relative,
                    True,
                    store.in_file(root.id),
                )
                return app.views.remember(view)
    # New, changed or stale: chunk it and let the store decide, under its write lock, whether
    # this version is already stored (another process may have just stored it).
    return _store_new(app, resolved, data, digest, mtime_ms, uri, size)


def _outline(meta: dict[str, Any]) -> tuple[OutlineEntry, ...]:
    return tuple(OutlineEntry(*row) for row in meta.get("symbols", ()))


def read_head(path: os.PathLike[str] | str, max_bytes: int) -> tuple[bytes, str, int]:
    """``(head, sha256 hex, size)`` of a file: at most ``max_bytes`` plus
    :data:`REDACT_MARGIN` bytes of it in memory, the hash and the size (bytes) of all of it
    (the rest read in 1 MiB blocks). Raises ``OSError``."""
    keep = max_bytes + REDACT_MARGIN
    with open(path, "rb") as fh:
        data = fh.read(keep + 1)
        hasher = hashlib.sha256(data)
        size = len(data)
        if size > keep:
            data = data[:keep]
            while block := fh.read(1 << 20):
                hasher.update(block)
                size += len(block)
    return data, hasher.hexdigest(), size


def build_nodes(
    absolute: str,
    relative: str,
    data: bytes,
    digest: str,
    mtime_ms: int,
    max_bytes: int,
    size: int | None = None,
) -> tuple[Any, list[Any], list[OutlineEntry]]:
    """The file root and chunk ``NewNode`` s of one file version, and its outline: decoded
    to UTF-8 when in another encoding (:mod:`.textcodec`), redacted, cut at ``max_bytes``
    (``capture.maxFileBytes``) and chunked. ``data`` may be the head of the file (see
    :func:`read_head`); ``size`` is then the whole file's size in bytes (default
    ``len(data)``). Pure (no store, no App), so the project index runs it in worker processes
    and a read and the index store the same nodes.

    Raises ``ctx_tree_chunk.ChunkError`` for binary or undecodable bytes.
    """
    from ctx_tree_chunk import BinaryContentError, chunk_bytes
    from ctx_tree_schema import FileChunkMeta, NodeKind
    from ctx_tree_store import NewNode, new_id

    from ctx_tree_mcp.engines.files.refgraph import chunk_references
    from ctx_tree_mcp.engines.files.textcodec import Binary, to_utf8
    from ctx_tree_mcp.policy.names import shown
    from ctx_tree_mcp.policy.redaction import redact_text

    uri = file_uri(absolute)
    absolute, relative = shown(absolute), shown(relative)
    size = len(data) if size is None else size
    try:
        data, encoding = to_utf8(data, complete=size == len(data))
    except Binary as exc:
        raise BinaryContentError(f"binary ({exc})") from None
    truncated = size > max_bytes
    if truncated:
        body = _cut_redacted(data, max_bytes, redact_text)
    else:
        body = _redacted(data, redact_text)
    # Chunks are sized in ctx-tree's estimate where it differs from characters / 4 (other
    # scripts than ASCII); an ASCII file keeps the chunker's own fast per-line count, and so
    # do the ASCII lines of a file with a few others (one accented name in a comment made
    # every line of a file cost an estimate: a fifth of symfony's indexing).
    counter = None if body.isascii() else _line_tokens
    chunked = chunk_bytes(body, path=relative, count_tokens=counter, references=True)
    refs, refs_meta = chunk_references(chunked)
    outline = [
        OutlineEntry(s.name, s.kind, s.start_line, s.def_line, s.end_line) for s in chunked.symbols
    ]
    root_id = new_id()
    root_meta: FileRootMeta = {
        "path": str(absolute),
        "relpath": relative,
        "lang": chunked.language,
        "is_file_root": True,
        "total_chunks": len(chunked.chunks),
        "total_lines": chunked.total_lines,
        "size": size,
        "file_sha256": digest,
        "has_errors": chunked.has_errors,
        # lines are those of a rendering (a notebook's cells as text), not of the file's bytes
        "rendered": chunked.rendered is not None,
        "symbols": [[e.name, e.kind, e.start, e.def_line, e.end] for e in outline],
    }
    root_meta.update(refs_meta)  # type: ignore[typeddict-item]
    if truncated:
        root_meta["truncated_at_bytes"] = len(body)
    if encoding is not None:
        root_meta["encoding"] = encoding
    root = NewNode(
        kind=NodeKind.FILE_CHUNK,
        content=_outline_text(relative, chunked.language, chunked.total_lines, outline),
        source_uri=uri,
        mtime=mtime_ms,
        metadata=root_meta,
        truncated=truncated,
        original_bytes=size,
        terms=relative,
        id=root_id,
    )
    nodes = []
    for index, chunk in enumerate(chunked.chunks):
        chunk_meta = FileChunkMeta(
            path=str(absolute),
            relpath=relative,
            lang=chunked.language,
            lines=[chunk.start_line, chunk.end_line],
            chunk_index=index,
            symbol=chunk.symbol,
            kind=chunk.kind,
            chunking=chunk.chunking,
        )
        if chunk.doc is not None:
            chunk_meta["doc"] = chunk.doc
        if refs[index]:
            chunk_meta["refs"] = refs[index]
        nodes.append(
            NewNode(
                kind=NodeKind.FILE_CHUNK,
                content=chunk.text,
                parent_id=root_id,
                source_uri=f"{uri}#{chunk.symbol or f'L{chunk.start_line}-{chunk.end_line}'}",
                mtime=mtime_ms,
                metadata=chunk_meta,
                terms=f"{chunk.symbol or ''} {relative}",
            )
        )
    return root, nodes, outline


def _line_tokens(text: str) -> int:
    """Tokens of a line (or lines) of a file that is not all ASCII, as chunks are sized:
    ``ceil(chars / 4)`` for ASCII text, as in an ASCII file; ctx-tree's estimate otherwise."""
    if text.isascii():
        return -(-len(text) // 4)
    from ctx_tree_compose import estimate_tokens

    return estimate_tokens(text)


def _store_new(
    app: FileParts,
    resolved: ResolvedPath,
    data: bytes,
    digest: str,
    mtime_ms: int,
    uri: str,
    size: int,
) -> FileView:
    from ctx_tree_chunk import ChunkError

    try:
        root, chunks, outline = build_nodes(
            str(resolved.absolute),
            resolved.relative,
            data,
            digest,
            mtime_ms,
            int(app.config.data["capture"]["maxFileBytes"]),
            size,
        )
    except ChunkError as exc:
        raise ToolInputError(
            "path", f"{resolved.relative!r} is binary, not text ({exc}); it is not read"
        ) from None
    nodes = [root, *chunks]
    session = (
        app.recorder.session_node_id()
    )  # committed on its own, before the capture's transaction
    tree = app.store.capture_file(nodes[0], nodes[1:], referenced_by=session)
    outline_entries = tuple(outline) if tree.created else _outline(tree.root.metadata)
    view = FileView(
        tree.root,
        tree.chunks,
        outline_entries,
        resolved.relative,
        cached=False,
        stored=app.store.in_file(tree.root.id),
    )
    app.views.remember(replace(view, cached=True))
    return view if tree.created else replace(view, cached=True)


def _cut_redacted(data: bytes, max_bytes: int, redact_text: Callable[[str], str]) -> bytes:
    """The first ``max_bytes`` of ``data``, redacted: the part and a margin after it are
    redacted first, then cut at the last line end, or (one long line, minified code) at the
    last whole character. Data that is not UTF-8 is returned cut as it is (the chunker
    refuses it)."""
    import codecs

    window = data[: max_bytes + REDACT_MARGIN]
    try:  # an incomplete character at the window's end is left out, not an error
        text = codecs.getincrementaldecoder("utf-8")().decode(window, final=False)
    except UnicodeDecodeError:
        return data[:max_bytes]
    body = redact_text(text).encode("utf-8", "surrogatepass")[:max_bytes]
    cut = body.rfind(b"\n")
    if cut > 0:  # no line is half-stored
        return body[: cut + 1]
    return codecs.getincrementaldecoder("utf-8")().decode(body, final=False).encode()


def _redacted(body: bytes, redact_text: Any) -> bytes:
    """``body`` with its secrets redacted as one text, before chunking: a PEM block longer
    than a chunk goes whole, and line numbers do not move. Undecodable bytes are returned as
    they are (the chunker refuses them)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    redacted = redact_text(text)
    return body if redacted == text else redacted.encode("utf-8", "surrogatepass")


def freshen(app: CheckParts, nodes: Iterable[Node]) -> int:
    """Check the files that ``nodes`` (search hits) come from against the disk, and bring the
    store up to date for each one that changed since it was stored: re-stored when edited
    (as a read does), stale when gone or no longer a file. For the answers of a process
    with no index watching the tree (the CLI): a hit never shows what left the disk
    (docs/index.md). Costs a ``stat`` per file; returns how many files changed."""
    from ctx_tree_schema import NodeKind

    seen: set[str] = set()
    changed = 0
    for node in nodes:
        path = node.metadata.get("path")
        if node.kind != NodeKind.FILE_CHUNK or not isinstance(path, str) or path in seen:
            continue
        seen.add(path)
        try:
            resolved = app.policy.resolve(path)
        except ToolInputError:  # outside this root, or refused: not this process's to check
            continue
        try:
            st = os.stat(resolved.absolute)
        except OSError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode):
            if st.st_mtime_ns // 1_000_000 == node.mtime:
                continue
            try:
                load(app, resolved, st)
            except ToolInputError:  # now binary or unreadable: what was stored is not it
                app.store.stale_file(file_uri(resolved.absolute))
        else:
            app.store.stale_file(file_uri(resolved.absolute))
        changed += 1
    return changed


def mark_gone(app: FileParts, resolved: ResolvedPath) -> None:
    """The file is gone: mark its stored root and chunks stale (no error if none stored)."""
    app.store.stale_file(file_uri(resolved.absolute))
