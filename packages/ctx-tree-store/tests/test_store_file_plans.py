"""The file status machine's statements find a file's rows through the id, parent and source
indexes, never by walking every node of a status (docs/index.md, "Fresh, incrementally")."""

from __future__ import annotations

import pytest
from ctx_tree_store import Store, _sql

STATEMENTS = {
    "STALE_TREE": ("sqlite_autoindex_nodes_1", "idx_nodes_parent"),
    "REVIVE_TREE": ("sqlite_autoindex_nodes_1", "idx_nodes_parent"),
    "SUPERSEDE_TREE": ("sqlite_autoindex_nodes_1", "idx_nodes_parent"),
    "LIVE_CHILDREN": ("idx_nodes_parent",),
    "LIVE_FILE_VERSIONS": ("idx_nodes_source",),
    "FILE_ROOTS_BY_SOURCE": ("idx_nodes_source",),
    "FILE_VERSIONS_BY_SOURCE": ("idx_nodes_source",),
}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_a_file_statement_seeks_its_rows(tmp_path, name: str) -> None:
    store = Store.open(tmp_path / "store.db")
    try:
        store.con.execute("ANALYZE")  # statistics or none, the plan stays the same
        sql = getattr(_sql, name)
        plan = " ".join(
            str(r[3])
            for r in store.con.execute("EXPLAIN QUERY PLAN " + sql, ["x"] * sql.count("?"))
        )
        assert "idx_nodes_status_updated" not in plan and "idx_nodes_kind_status" not in plan
        assert all(index in plan for index in STATEMENTS[name]), plan
    finally:
        store.close()
