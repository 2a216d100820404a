"""Enums, the status machine, Filters, per-kind metadata types and the DDL text."""

from __future__ import annotations

import itertools
import typing

import pytest
from ctx_tree_schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    TRANSITIONS,
    EdgeKind,
    FileChunkMeta,
    FileRootMeta,
    Filters,
    GrepMeta,
    Node,
    NodeKind,
    NodeStatus,
    NoteMeta,
    SessionMeta,
    SummaryMeta,
    WebChunkMeta,
    can_transition,
)


def test_enum_values_are_the_data_model_seeds():
    assert {k.value for k in NodeStatus} == {"pending", "live", "stale", "superseded", "pruned"}
    assert {k.value for k in EdgeKind} == {
        "derived_from",
        "references",
        "summarizes",
        "supersedes",
        "follows",
    }
    assert {
        "session",
        "file_chunk",
        "tool_output",
        "summary",
        "note",
        "observation",
        "web_chunk",
        "prompt",
        "thinking",
        "response",
    } == {k.value for k in NodeKind}


def test_spec_chain_is_legal_and_backwards_is_not():
    chain = [
        NodeStatus.PENDING,
        NodeStatus.LIVE,
        NodeStatus.STALE,
        NodeStatus.SUPERSEDED,
        NodeStatus.PRUNED,
    ]
    for old, new in itertools.pairwise(chain):
        assert can_transition(old, new)
        if (new, old) != (NodeStatus.STALE, NodeStatus.LIVE):
            assert not can_transition(new, old)
    # Our one step back: a stale file whose bytes turn out unchanged is revived (ctx_tree_read).
    assert can_transition("stale", "live")
    assert TRANSITIONS[NodeStatus.PRUNED] == frozenset()
    assert not can_transition("pending", "pruned")  # pending leaves by promotion or drop
    assert not can_transition("pending", "superseded")
    assert not can_transition("superseded", "live")
    assert can_transition("live", "superseded")  # a fresher read replaced it directly
    with pytest.raises(ValueError):
        can_transition("live", "bogus")


def test_filters_from_mapping_valid():
    f = Filters.from_mapping(
        {
            "status": ["live", "stale"],
            "kind": "note",
            "since": 1,
            "until": 2,
            "parent_id": "p",
            "session_id": "s",
        }
    )
    assert f.status == (NodeStatus.LIVE, NodeStatus.STALE)
    assert f.kind == (NodeKind.NOTE,)
    assert (f.since, f.until, f.parent_id, f.session_id) == (1, 2, "p", "s")
    assert Filters.from_mapping(None) == Filters()
    assert Filters.from_mapping({}) == Filters()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([1], "filters: expected an object"),
        ({"colour": 1}, r"unknown key\(s\) \['colour'\]"),
        ({"kind": ["nope"]}, "filters.kind: unknown value 'nope'; one of: session"),
        ({"status": ["alive"]}, "filters.status: unknown value 'alive'"),
        ({"status": []}, "filters.status: expected a non-empty list"),
        ({"kind": 3}, "filters.kind: expected a non-empty list"),
        ({"since": "yesterday"}, "filters.since: expected epoch milliseconds"),
        ({"until": -1}, "filters.until: expected epoch milliseconds"),
        ({"since": True}, "filters.since: expected epoch milliseconds"),
        ({"since": 5, "until": 4}, r"since \(5\) is after until \(4\)"),
        ({"parent_id": 7}, "filters.parent_id: expected a non-empty id string"),
        ({"session_id": ""}, "filters.session_id: expected a non-empty id string"),
    ],
)
def test_filters_errors_name_the_field(data, match):
    with pytest.raises(ValueError, match=match):
        Filters.from_mapping(data)


def test_filters_direct_construction_is_validated_and_coerced():
    f = Filters(kind=["note", NodeKind.SESSION, "note"], status="live")  # type: ignore[arg-type]
    assert f.kind == (NodeKind.NOTE, NodeKind.SESSION)
    assert f.status == (NodeStatus.LIVE,)
    with pytest.raises(ValueError, match=r"filters\.kind"):
        Filters(kind=("nope",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="after until"):
        Filters(since=10, until=1)


def test_metadata_typed_dicts_have_the_written_keys():
    # The keys docs/data-model.md lists per kind; the writers are annotated with these types.
    def keys(t: type) -> set[str]:
        return set(typing.get_type_hints(t))

    assert keys(SessionMeta) == {"session_id", "cwd", "started_at"}
    assert {"path", "relpath", "lang", "is_file_root", "total_chunks", "file_sha256"} <= keys(
        FileRootMeta
    )
    assert {"path", "lang", "lines", "chunk_index", "symbol", "kind", "chunking"} <= keys(
        FileChunkMeta
    )
    assert {"tool", "pattern", "path", "file_glob", "match_count", "cwd"} <= keys(GrepMeta)
    assert {"url", "title", "fetched_at", "tool", "session_id"} == keys(WebChunkMeta)
    assert {"model", "covers", "title", "subagent_type", "session_id"} <= keys(SummaryMeta)
    assert {"title", "session_id"} == keys(NoteMeta)
    assert SessionMeta.__total__ and not FileRootMeta.__total__


def test_node_lines_property():
    base = dict(
        id="a",
        parent_id=None,
        kind=NodeKind.NOTE,
        source_uri=None,
        content="",
        content_hash="",
        status=NodeStatus.LIVE,
        mtime=0,
        created_at=0,
        updated_at=0,
        truncated=False,
        original_bytes=0,
    )
    assert Node(**base, metadata={"lines": [3, 9]}).lines == (3, 9)
    assert Node(**base, metadata={}).lines is None
    assert Node(**base, metadata={"lines": [1]}).lines is None


def test_migrations_are_contiguous_and_v1_is_the_seed():
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert SCHEMA_VERSION == MIGRATIONS[-1].version >= 3
    v1 = MIGRATIONS[0].sql
    for fragment in [
        "CREATE TABLE nodes",
        "CREATE TABLE edges",
        "PRIMARY KEY (src_id, dst_id, kind)",
        "CHECK(status IN ('pending','live','stale','superseded','pruned'))",
        "CHECK(truncated IN (0,1))",
        "REFERENCES nodes(id) ON DELETE SET NULL",
        "REFERENCES nodes(id) ON DELETE CASCADE",
        "tokenize='porter unicode61'",
        "content='nodes'",
        "content_rowid='rowid'",
        "idx_nodes_kind_status ON nodes(kind, status)",
        "idx_nodes_created ON nodes(created_at DESC)",
        "idx_nodes_parent ON nodes(parent_id)",
        "idx_nodes_source ON nodes(source_uri)",
        "idx_nodes_hash ON nodes(content_hash)",
        "idx_edges_src ON edges(src_id, kind)",
        "idx_edges_dst ON edges(dst_id, kind)",
    ]:
        assert fragment in v1, fragment


def test_fts_tokenize_is_the_tokenizer_the_last_fts_table_uses() -> None:
    import re

    from ctx_tree_schema import FTS_TOKENIZE, MIGRATIONS

    tables = [m for mig in MIGRATIONS for m in re.findall(r"fts5\((.*?)\);", mig.sql, re.S)]
    assert f"tokenize='{FTS_TOKENIZE}'" in tables[-1]
