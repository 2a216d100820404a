"""The staleness marker (docs/walkers.md): re-stat the source of every live file root.

A live ``file_chunk`` root (``metadata.is_file_root``, ``parent_id`` NULL) records its source
path (``metadata.path``, absolute), size (``metadata.size``) and mtime (the ``mtime`` column,
epoch ms). The root is **stale** when the file

* is gone (or is no longer a regular file),
* has a different size, or
* has a different mtime (normally advanced by an edit; moved back by a checkout counts too)
  **and** different bytes: when only the mtime moved and the root records the file's
  ``file_sha256`` (``ctx_tree_read`` does), the file is hashed and a ``touch`` that left the
  bytes alone keeps the root live (counted as *touched*), the same rule ``ctx_tree_read`` uses
  to serve a file from the store.

A changed file whose bytes are those of an earlier stored version of it (an edit reverted)
gets a live copy of that version instead (``Store.restore_version``, counted as *restored*),
so search finds it again with no re-read. A stale root whose file is back to its bytes
becomes live again with its chunks (*revived*).

A stale root takes its live chunks with it. Roots are visited in id order through
``Store.live_file_roots`` with an id cursor, ``batch_size`` at a time: the ``stat`` calls run
outside any transaction, then the batch's changes are applied in one transaction that re-checks
each root is still live with the same mtime (a concurrent ``ctx_tree_read`` may have replaced
it). A file that cannot be stat-ed for another reason (permissions) is left alone.
"""

from __future__ import annotations

import hashlib
import os
import stat as stat_mod
from dataclasses import dataclass

from ctx_tree_schema import Config, Node, NodeStatus
from ctx_tree_store import Store

from ._common import KeepGoing, always


@dataclass(slots=True)
class StalenessReport:
    """What one staleness pass did."""

    checked: int = 0
    changed: int = 0
    gone: int = 0
    chunks: int = 0
    unreadable: int = 0
    touched: int = 0  # mtime moved, bytes identical: kept live
    restored: int = 0  # reverted to an earlier stored version: a live copy of it
    revived: int = 0  # stale, and the file is back to the stored bytes: live again
    skipped: int = 0  # changed under us (re-read or already handled) when the batch was applied
    stopped: bool = False

    @property
    def stale(self) -> int:
        return self.changed + self.gone

    def summary(self) -> str:
        text = f"checked {self.checked} file root{'s' if self.checked != 1 else ''}"
        if self.stale:
            text += (
                f": {self.stale} stale ({self.changed} changed, {self.gone} gone), "
                f"{self.chunks} chunk{'s' if self.chunks != 1 else ''} marked stale"
            )
        else:
            text += ": none changed"
        if self.restored or self.revived:
            text += (
                f", {self.restored} reverted to a stored version, {self.revived} stale made live"
            )
        if self.touched:
            text += f", {self.touched} touched but unchanged (kept live)"
        if self.unreadable:
            text += f", {self.unreadable} could not be stat-ed (left alone)"
        return text + (" — stopped early" if self.stopped else "")


def source_path(root: Node) -> str | None:
    """The absolute source path of a file root (``metadata.path``, else its ``file://`` URI)."""
    path = root.metadata.get("path")
    if isinstance(path, str) and path:
        return path
    uri = root.source_uri or ""
    if uri.startswith("file://"):
        return uri[len("file://") :].split("#", 1)[0] or None
    return None


def check_root(root: Node) -> str | None:
    """``"gone"``, ``"changed"``, ``"touched"`` (new mtime, same bytes), ``"unreadable"`` or
    None (unchanged) for one file root."""
    path = source_path(root)
    if path is None:
        return "unreadable"
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "gone"
    except (OSError, ValueError):  # permissions, a NUL byte in a corrupt path ...
        return "unreadable"
    if not stat_mod.S_ISREG(st.st_mode):
        return "gone"
    size = root.metadata.get("size")
    if isinstance(size, int) and size != st.st_size:
        return "changed"
    if st.st_mtime_ns // 1_000_000 == root.mtime:
        return None
    digest = root.metadata.get("file_sha256")
    if isinstance(digest, str) and digest:
        try:
            if _sha256(path) == digest:
                return "touched"
        except (OSError, ValueError):
            return "gone" if not os.path.exists(path) else "unreadable"
    return "changed"


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _live_child_ids(store: Store, node_id: str, status: NodeStatus = NodeStatus.LIVE) -> list[str]:
    child_ids = [i for i, via in store.adjacent(node_id) if via == "child"]
    sizes = store.sizes(child_ids)
    return [i for i in child_ids if i in sizes and sizes[i].status == status.value]


def reverted_to(store: Store, root: Node) -> tuple[Node, int] | None:
    """The superseded version of ``root``'s file whose size and sha256 the file on disk has
    now, with the file's mtime (epoch ms); None when there is none (the file is hashed only
    when a stored version has its size)."""
    path = source_path(root)
    if path is None or not root.source_uri:
        return None
    try:
        st = os.stat(path)
        candidates = [
            old
            for old in store.superseded_roots(root.source_uri)
            if old.metadata.get("size") == st.st_size and old.metadata.get("file_sha256")
        ]
        if not candidates:
            return None
        digest = _sha256(path)
    except (OSError, ValueError):
        return None
    for old in candidates:
        if old.metadata["file_sha256"] == digest:
            return old, st.st_mtime_ns // 1_000_000
    return None


def _revisit_stale(store: Store, report: StalenessReport, batch_size: int) -> None:
    """Stale roots whose file is back: to their own bytes (live again) or to an earlier
    stored version's (a live copy of it)."""
    cursor = ""
    while True:
        roots = store.file_roots(NodeStatus.STALE, after_id=cursor, limit=batch_size)
        if not roots:
            return
        cursor = roots[-1].id
        for root in roots:
            if check_root(root) in (None, "touched"):
                with store.transaction():
                    chunks = _live_child_ids(store, root.id, NodeStatus.STALE)
                    store.set_status([root.id, *chunks], NodeStatus.LIVE)
                report.revived += 1
            elif (found := reverted_to(store, root)) is not None:
                store.restore_version(found[0].id, root.id, mtime=found[1])
                report.restored += 1
        if len(roots) < batch_size:
            return


def mark_stale(
    store: Store,
    config: Config,
    *,
    now_ms: int,
    keep_going: KeepGoing = always,
    batch_size: int = 200,
) -> StalenessReport:
    """One full pass over the live file roots; see the module docstring."""
    del config  # no knobs beyond the interval (read by the coordinator)
    report = StalenessReport()
    _revisit_stale(store, report, batch_size)
    cursor = ""
    while True:
        roots = store.live_file_roots(after_id=cursor, limit=batch_size)
        if not roots:
            return report
        cursor = roots[-1].id
        report.checked += len(roots)
        verdicts: list[tuple[Node, str, tuple[Node, int] | None]] = []
        for root in roots:
            verdict = check_root(root)
            if verdict == "unreadable":
                report.unreadable += 1
            elif verdict == "touched":
                report.touched += 1
            elif verdict == "changed" and (found := reverted_to(store, root)) is not None:
                verdicts.append((root, "reverted", found))
            elif verdict is not None:
                verdicts.append((root, verdict, None))
        if verdicts:
            with store.transaction():
                for root, verdict, found in verdicts:
                    current = store.get(root.id)
                    if (
                        current is None
                        or current.status != NodeStatus.LIVE
                        or current.mtime != root.mtime
                    ):
                        report.skipped += 1
                        continue
                    if found is not None:
                        store.restore_version(found[0].id, root.id, mtime=found[1])
                        report.restored += 1
                        continue
                    chunks = _live_child_ids(store, root.id)
                    store.set_status([root.id, *chunks], NodeStatus.STALE, at=now_ms)
                    report.chunks += len(chunks)
                    if verdict == "gone":
                        report.gone += 1
                    else:
                        report.changed += 1
        if len(roots) < batch_size:
            return report
        if not keep_going():
            report.stopped = True
            return report
