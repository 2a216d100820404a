"""Upgrades keep data: a store written by ctx-tree 0.1.0 opens under this version with every node.

``fixtures/store-0.1.0.db.gz`` was made by the 0.1.0 CLI itself (reads, an edit and a re-read,
a grep, a note, a search); ``fixtures/store-0.1.0.json`` lists what it held then. The checks
below hold whatever migrations later versions add.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from ctx_tree_schema import SCHEMA_VERSION, EdgeKind, Filters, NodeKind, NodeStatus
from ctx_tree_store import NewNode, Store

FIXTURES = Path(__file__).parent / "fixtures"


def _copy_fixture(dest_dir: Path) -> tuple[Path, dict]:
    dest_dir.mkdir(parents=True, mode=0o700)
    dest = dest_dir / "store.db"
    with gzip.open(FIXTURES / "store-0.1.0.db.gz", "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out)
    dest.chmod(0o600)
    return dest, json.loads((FIXTURES / "store-0.1.0.json").read_text())


def test_a_0_1_0_store_opens_with_all_its_nodes_and_edges(tmp_path: Path):
    path, expected = _copy_fixture(tmp_path / "home" / expected_hash())
    with Store.open(path) as store:
        assert store.con.execute("PRAGMA user_version").get == SCHEMA_VERSION
        nodes = store.get_many([n["id"] for n in expected["nodes"]])
        assert len(nodes) == len(expected["nodes"]) == 18
        for want in expected["nodes"]:
            got = nodes[want["id"]]
            assert (got.kind.value, got.status.value, got.source_uri, got.content_hash) == (
                want["kind"],
                want["status"],
                want["source_uri"],
                want["content_hash"],
            )
        edges = {
            tuple(r) for r in store.con.execute("SELECT src_id, dst_id, kind FROM edges").fetchall()
        }
        assert {tuple(e) for e in expected["edges"]} <= edges
        check, fts_ok = store.integrity()
        assert (check, fts_ok) == ("ok", True)


def test_a_0_1_0_store_still_answers_search_and_takes_writes(tmp_path: Path):
    path, expected = _copy_fixture(tmp_path / "home" / expected_hash())
    note_id = next(n["id"] for n in expected["nodes"] if n["kind"] == "note")
    with Store.open(path) as store:
        hits = store.search("overflow checks", filters=Filters(status=tuple(NodeStatus)))
        assert note_id in [h.node.id for h in hits]
        # The edited file: its newer tree supersedes the older one.
        supersedes = [e for e in expected["edges"] if e[2] == EdgeKind.SUPERSEDES.value]
        assert len(supersedes) == 1
        newer, older = supersedes[0][:2]
        assert store.require(older).status is NodeStatus.SUPERSEDED
        assert store.require(newer).status is NodeStatus.LIVE
        [fresh] = store.insert([NewNode(NodeKind.NOTE, "written after the upgrade")])
        assert store.require(fresh).content == "written after the upgrade"
    with Store.open(path) as again:
        assert len(again.get_many([n["id"] for n in expected["nodes"]])) == 18


def expected_hash() -> str:
    return json.loads((FIXTURES / "store-0.1.0.json").read_text())["project_hash"]


def test_a_0_1_0_store_gains_the_vector_tables_and_takes_vectors(tmp_path: Path):
    path, expected = _copy_fixture(tmp_path / "home" / expected_hash())
    note_id = next(n["id"] for n in expected["nodes"] if n["kind"] == "note")
    with Store.open(path) as store:
        assert store.vector_models() == {}
        assert store.vector_backlog("m") > 0
        note = store.require(note_id)
        assert store.put_vectors("m", [(note_id, note.content_hash, [0.1, 0.2, 0.3])]) == 1
        hits = store.vector_search("m", [0.1, 0.2, 0.3], filters=Filters(status=tuple(NodeStatus)))
        assert [h.node.id for h in hits] == [note_id]
        assert store.integrity() == ("ok", True)
