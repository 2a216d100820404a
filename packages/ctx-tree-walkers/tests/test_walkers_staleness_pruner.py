from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from ctx_tree_schema import EdgeKind, Filters, NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store
from ctx_tree_walkers import check_root, mark_stale, prune, run_once
from walkers_testlib import T0, make_config, status_of

HOUR = 3_600_000
DAY = 24 * HOUR


def add_file(store: Store, path: Path, chunks: int = 2) -> tuple[str, list[str]]:
    """Store ``path`` the way ctx_tree_read does: a live root with live chunk children."""
    st = path.stat()
    uri = f"file://{path}"
    root = NewNode(
        NodeKind.FILE_CHUNK,
        f"{path.name} outline",
        source_uri=uri,
        mtime=st.st_mtime_ns // 1_000_000,
        metadata={"path": str(path), "is_file_root": True, "size": st.st_size},
    )
    ids = store.insert([root])
    kids = store.insert(
        NewNode(
            NodeKind.FILE_CHUNK,
            f"chunk {i} of {path.name}",
            parent_id=ids[0],
            source_uri=f"{uri}#L{i}",
            mtime=root.mtime,
        )
        for i in range(chunks)
    )
    return ids[0], kids


def bump_mtime(path: Path, seconds: int = 10) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def test_staleness_marks_changed_gone_and_resized(store, tmp_path) -> None:
    files = {}
    for name in ("same", "edited", "gone", "resized", "dir"):
        p = tmp_path / f"{name}.py"
        p.write_text("x = 1\n")
        files[name] = (p, *add_file(store, p))
    bump_mtime(files["edited"][0])
    files["gone"][0].unlink()
    p = files["resized"][0]
    st = p.stat()
    p.write_text("x = 12345\n")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, other size
    files["dir"][0].unlink()
    files["dir"][0].mkdir()

    report = mark_stale(store, make_config(), now_ms=T0, batch_size=2)

    assert (report.checked, report.changed, report.gone, report.chunks) == (5, 2, 2, 8)
    assert (
        report.summary()
        == "checked 5 file roots: 4 stale (2 changed, 2 gone), 8 chunks marked stale"
    )
    for name, (_p, root, kids) in files.items():
        want = "live" if name == "same" else "stale"
        assert [status_of(store, i) for i in (root, *kids)] == [want] * 3, name
        if want == "stale":
            assert store.get(root).updated_at == T0
    again = mark_stale(store, make_config(), now_ms=T0)
    assert again.summary() == "checked 1 file root: none changed"


def test_staleness_leaves_unstatable_alone(store, tmp_path) -> None:
    p = tmp_path / "a.py"
    p.write_text("a = 1\n")
    root, _ = add_file(store, p)
    node = store.get(root)
    bad = dataclasses.replace(node, metadata=dict(node.metadata, path=str(p) + "\0bad"))
    assert check_root(bad) == "unreadable"
    nowhere = dataclasses.replace(node, metadata={}, source_uri="grep://x")
    assert check_root(nowhere) == "unreadable"
    assert check_root(node) is None


def test_pruner_ages_out_and_deletes(store, tmp_path) -> None:
    cfg = make_config()
    p = tmp_path / "a.py"
    p.write_text("a = 1\n")
    root, kids = add_file(store, p)
    store.set_status([root, *kids], NodeStatus.STALE, at=T0)
    old_root, old_kids = add_file(store, p)
    store.set_status([old_root, *old_kids], NodeStatus.SUPERSEDED, at=T0)
    store.add_edges([(root, old_root, EdgeKind.SUPERSEDES)])
    every = Filters(status=tuple(NodeStatus))
    hits = lambda: {h.node.id for h in store.search("chunk", limit=50, filters=every)}  # noqa: E731
    assert set(kids) <= hits()

    r = prune(store, cfg, now_ms=T0 + 23 * HOUR)  # too young for anything
    assert (r.pruned_stale, r.pruned_superseded, r.deleted) == (0, 0, 0)

    r = prune(store, cfg, now_ms=T0 + 25 * HOUR)  # stale past staleHours=24
    assert (r.pruned_stale, r.pruned_superseded) == (3, 0)
    assert [status_of(store, i) for i in (root, *kids)] == ["pruned"] * 3
    assert not set(kids) & hits()  # out of the FTS index, row kept
    assert store.get(root).content == "a.py outline"

    r = prune(store, cfg, now_ms=T0 + 8 * DAY)  # superseded past supersededDays=7
    assert r.pruned_superseded == 3 and r.deleted == 0
    assert store.integrity() == ("ok", True)

    r = prune(store, cfg, now_ms=T0 + 25 * HOUR + 30 * DAY + 1)  # first group past 30 audit days
    assert r.deleted == 3
    assert all(store.get(i) is None for i in (root, *kids))
    assert status_of(store, old_root) == "pruned"
    # the supersedes edge went with the deleted node
    assert {i for i, _ in store.adjacent(old_root)} == set(old_kids)

    r = prune(store, cfg, now_ms=T0 + 40 * DAY)
    assert r.deleted == 3
    assert store.counts() == {}
    assert store.integrity() == ("ok", True)


def test_pruned_parent_waits_for_its_children(store, tmp_path) -> None:
    p = tmp_path / "a.py"
    p.write_text("a = 1\n")
    root, _kids = add_file(store, p)
    store.set_status([root], NodeStatus.STALE, at=T0)
    store.set_status([root], NodeStatus.PRUNED, at=T0)
    r = prune(store, make_config(), now_ms=T0 + 31 * DAY)
    assert r.deleted == 0 and r.kept_for_children == 1
    assert "1 kept" in r.summary()
    assert status_of(store, root) == "pruned"


def test_vacuum_returns_pages(store, tmp_path) -> None:
    ids = store.insert(
        NewNode(NodeKind.TOOL_OUTPUT, ("payload %d " % i) * 2000, status=NodeStatus.LIVE)
        for i in range(50)
    )
    store.set_status(ids, NodeStatus.PRUNED, at=T0)
    size_before = store.size_bytes()
    r = prune(store, make_config(), now_ms=T0 + 31 * DAY)
    assert r.deleted == 50 and r.pages_freed > 0
    store.con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    assert store.size_bytes() < size_before


def test_run_once_all_and_unknown(store, tmp_path) -> None:
    out = run_once(store, make_config(), "all", now_ms=T0)
    assert list(out) == [
        "filter",
        "staleness",
        "pruner",
        "embedding",
        "dedupe",
        "summarizer",
    ]
    assert out["embedding"] == out["dedupe"] == "off (no embedding provider configured)"
    assert out["summarizer"] == "off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
    assert out["filter"] == "nothing pending"
    assert out["staleness"] == "checked 0 file roots: none changed"
    assert out["pruner"].startswith("0 pruned (0 stale, 0 superseded), 0 deleted")
    assert list(run_once(store, make_config(), "pruner")) == ["pruner"]
    with pytest.raises(ValueError, match="unknown walker"):
        run_once(store, make_config(), "nosuch")


def test_reverted_file_gets_a_live_copy_of_its_earlier_version(tmp_path):
    import hashlib
    import os

    from ctx_tree_schema import NodeKind, NodeStatus
    from ctx_tree_store import NewNode, Store
    from ctx_tree_walkers import mark_stale

    src = tmp_path / "a.txt"
    with Store.open(tmp_path / "s.db") as store:

        def stored(text: str) -> str:
            src.write_text(text)
            st = src.stat()
            meta = {
                "path": str(src),
                "is_file_root": True,
                "size": st.st_size,
                "file_sha256": hashlib.sha256(text.encode()).hexdigest(),
            }
            root = NewNode(
                NodeKind.FILE_CHUNK,
                "outline",
                source_uri=f"file://{src}",
                mtime=st.st_mtime_ns // 1_000_000,
                metadata=meta,
            )
            ids = store.insert([root])
            store.insert(
                [
                    NewNode(
                        NodeKind.FILE_CHUNK, text, parent_id=ids[0], source_uri=f"file://{src}#L1-1"
                    )
                ]
            )
            return ids[0]

        first = stored("the frobnicator\n")
        second = stored("something else entirely\n")
        store.supersede(second, [first, *(c.id for c in store.children(first))])
        src.write_text("the frobnicator\n")
        os.utime(src, ns=(5_000_000_000, 5_000_000_000))
        report = mark_stale(store, None, now_ms=0)
        assert report.restored == 1
        assert store.require(second).status is NodeStatus.SUPERSEDED
        hits = store.search("frobnicator")
        assert len(hits) == 1 and hits[0].node.status is NodeStatus.LIVE
        assert hits[0].node.parent_id not in (first, second)
        # the next pass finds the restored version unchanged
        assert mark_stale(store, None, now_ms=0).restored == 0


def test_pruner_keeps_superseded_output_that_cannot_be_had_again(store) -> None:
    """An older run of a command (or a near duplicate) superseded by a newer one holds output
    found nowhere else: it stays superseded, gettable and searchable, past every horizon. An
    exact copy superseded by the same content goes the usual way."""
    first_run = store.insert(
        [
            NewNode(
                NodeKind.TOOL_OUTPUT,
                "FAILED test_parse - AssertionError xyzzy",
                source_uri="cmd://t",
            )
        ]
    )[0]
    second_run = store.insert(
        [NewNode(NodeKind.TOOL_OUTPUT, "10 passed in 0.3s", source_uri="cmd://t")]
    )[0]
    store.supersede(second_run, first_run)
    copy_old = store.insert(
        [NewNode(NodeKind.TOOL_OUTPUT, "same grep lines", source_uri="grep://g")]
    )[0]
    copy_new = store.insert(
        [NewNode(NodeKind.TOOL_OUTPUT, "same grep lines", source_uri="grep://g")]
    )[0]
    store.supersede(copy_new, copy_old)
    store.set_status([], NodeStatus.SUPERSEDED)
    cfg = make_config()
    for days in (8, 40, 80):
        prune(store, cfg, now_ms=store.get(first_run).updated_at + days * DAY)
    assert status_of(store, first_run) == "superseded"
    found = store.search("xyzzy", filters=Filters(status=(NodeStatus.SUPERSEDED,)))
    assert [h.node.id for h in found] == [first_run]
    assert store.get(copy_old) is None  # the same content lives on under copy_new
    assert status_of(store, copy_new) == "live"
