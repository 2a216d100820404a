"""The store's DDL as an ordered list of forward migrations (docs/data-model.md).

Each migration is applied once, in order, inside one transaction, and the database's
``PRAGMA user_version`` records the last one applied. Never edit a released migration: add one.

Migration 1 is docs/data-model.md verbatim (tables, indexes, FTS5 over ``content``).
Migration 2 adds ctx-tree's own search column (``terms``: symbol, path and identifier words
split from camelCase/snake_case), re-creates the FTS5 table over a view of non-pruned nodes so
pruned rows leave the index and ``integrity-check`` holds, and adds the walker lease table and
the usage counters.
Migration 3 adds Chinese, Japanese and Korean search terms (characters and bigrams of CJK runs)
to the ``terms`` of nodes already stored; it calls ``ctx_cjk_terms(text)``, a SQL function the
store registers on every connection.

Migration 4 adds two observable records for the inspector: usage counters per UTC day and per
tool (``usage_daily``), and the walker runs that changed something, with what they changed and
the node counts by status after the run (``walker_runs``).

Migration 5 adds the vectors (``nodes_vec``: one float32 vector per node and model, keyed by
``nodes.rowid`` like the FTS index; ``nodes_vec_bits``: its sign bits, a dense table scanned
first by semantic search) and ``walker_state`` (cursors and daily counters of the walkers).
Plain tables, so opening a store never needs the sqlite-vec extension; the vectors leave with
their node (deleted or pruned) through triggers.

Migration 6 lets a file chunk's ``content`` be a zlib BLOB (packed by the store, see
docs/data-model.md): the view the FTS5 index reads and the triggers that feed it read the text
through ``ctx_text(content)``, a SQL function every store connection registers. The FTS5
index itself is unchanged (it holds words, not text), so no rebuild; rows stored before stay
TEXT and read as before.

Migration 7 shrinks the store: ``idx_nodes_source`` and ``idx_nodes_hash`` become partial
indexes that leave out the chunks under a file root (:data:`OUTSIDE_FILE_TREES`; a project
index has some 30 of them per file, and nothing looks a chunk up by its URI or hash: 4 MB of
a 30 MB index store), and ``idx_nodes_created`` is ascending (a descending index fed rising
times splits its pages half empty; SQLite walks it backwards for newest-first listings). A
file chunk's metadata is a BLOB from then on (``_packing`` in ctx-tree-store), read through
``ctx_meta(metadata, source_uri)``; rows stored before stay JSON text.

The update trigger is one trigger whose two statements run in order (delete the old entry, then
insert the new one): SQLite runs separate triggers on one event in no documented order, and an
insert-before-delete corrupts an external-content index.

The FTS5 table is external-content keyed by ``nodes.rowid``: never run a full ``VACUUM`` (it may
renumber rowids); the store uses ``auto_vacuum=INCREMENTAL`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


_V1 = """
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  parent_id TEXT REFERENCES nodes(id) ON DELETE SET NULL,
  kind TEXT NOT NULL,
  source_uri TEXT,
  content TEXT NOT NULL DEFAULT '',
  content_hash TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'live'
    CHECK(status IN ('pending','live','stale','superseded','pruned')),
  mtime INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  truncated INTEGER NOT NULL DEFAULT 0 CHECK(truncated IN (0,1)),
  original_bytes INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE edges (
  src_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  dst_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (src_id, dst_id, kind)
);
CREATE VIRTUAL TABLE fts USING fts5(
  content, content='nodes', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes BEGIN
  INSERT INTO fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes BEGIN
  INSERT INTO fts(fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER nodes_fts_au AFTER UPDATE OF content ON nodes BEGIN
  INSERT INTO fts(fts, rowid, content) VALUES ('delete', old.rowid, old.content);
  INSERT INTO fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE INDEX idx_nodes_kind_status ON nodes(kind, status);
CREATE INDEX idx_nodes_created ON nodes(created_at DESC);
CREATE INDEX idx_nodes_parent ON nodes(parent_id);
CREATE INDEX idx_nodes_source ON nodes(source_uri);
CREATE INDEX idx_nodes_hash ON nodes(content_hash);
CREATE INDEX idx_edges_src ON edges(src_id, kind);
CREATE INDEX idx_edges_dst ON edges(dst_id, kind);
"""

_V2 = """
DROP TRIGGER nodes_fts_ai;
DROP TRIGGER nodes_fts_ad;
DROP TRIGGER nodes_fts_au;
DROP TABLE fts;
ALTER TABLE nodes ADD COLUMN terms TEXT NOT NULL DEFAULT '';
CREATE VIEW fts_source AS
  SELECT rowid AS rowid, content, terms FROM nodes WHERE status != 'pruned';
CREATE VIRTUAL TABLE fts USING fts5(
  content, terms, content='fts_source', content_rowid='rowid', tokenize='porter unicode61'
);
INSERT INTO fts(fts) VALUES ('rebuild');
CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes WHEN new.status != 'pruned' BEGIN
  INSERT INTO fts(rowid, content, terms) VALUES (new.rowid, new.content, new.terms);
END;
CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes WHEN old.status != 'pruned' BEGIN
  INSERT INTO fts(fts, rowid, content, terms) VALUES ('delete', old.rowid, old.content, old.terms);
END;
CREATE TRIGGER nodes_fts_au AFTER UPDATE OF content, terms, status ON nodes BEGIN
  INSERT INTO fts(fts, rowid, content, terms)
    SELECT 'delete', old.rowid, old.content, old.terms
    WHERE old.status != 'pruned' AND (new.status = 'pruned'
          OR new.content IS NOT old.content OR new.terms IS NOT old.terms);
  INSERT INTO fts(rowid, content, terms)
    SELECT new.rowid, new.content, new.terms
    WHERE new.status != 'pruned' AND (old.status = 'pruned'
          OR new.content IS NOT old.content OR new.terms IS NOT old.terms);
END;
CREATE INDEX idx_nodes_status_updated ON nodes(status, updated_at);
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
"""

_V3 = """
UPDATE nodes SET terms = trim(terms || ' ' || ctx_cjk_terms(content))
  WHERE status != 'pruned' AND ctx_cjk_terms(content) != '';
"""

_V4 = """
CREATE TABLE IF NOT EXISTS usage_daily (
  day TEXT NOT NULL,
  tool TEXT NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, tool, name)
);
CREATE TABLE IF NOT EXISTS walker_runs (
  id INTEGER PRIMARY KEY,
  walker TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  summary TEXT NOT NULL,
  changes TEXT NOT NULL DEFAULT '{}',
  status_counts TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS idx_walker_runs_finished ON walker_runs(finished_at);
"""

_V5 = """
CREATE TABLE nodes_vec (
  rowid INTEGER PRIMARY KEY,
  embedding_model TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  embedding BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_nodes_vec_model ON nodes_vec(embedding_model);
CREATE TABLE nodes_vec_bits (
  rowid INTEGER PRIMARY KEY,
  embedding_model TEXT NOT NULL,
  bits BLOB NOT NULL
);
CREATE TRIGGER nodes_vec_ad AFTER DELETE ON nodes BEGIN
  DELETE FROM nodes_vec WHERE rowid = old.rowid;
  DELETE FROM nodes_vec_bits WHERE rowid = old.rowid;
END;
CREATE TRIGGER nodes_vec_pruned AFTER UPDATE OF status ON nodes
  WHEN new.status = 'pruned' AND old.status != 'pruned' BEGIN
  DELETE FROM nodes_vec WHERE rowid = old.rowid;
  DELETE FROM nodes_vec_bits WHERE rowid = old.rowid;
END;
CREATE TABLE walker_state (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
"""

_V6 = """
DROP TRIGGER nodes_fts_ai;
DROP TRIGGER nodes_fts_ad;
DROP TRIGGER nodes_fts_au;
DROP VIEW fts_source;
CREATE VIEW fts_source AS
  SELECT rowid AS rowid, ctx_text(content) AS content, terms FROM nodes WHERE status != 'pruned';
CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes WHEN new.status != 'pruned' BEGIN
  INSERT INTO fts(rowid, content, terms) VALUES (new.rowid, ctx_text(new.content), new.terms);
END;
CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes WHEN old.status != 'pruned' BEGIN
  INSERT INTO fts(fts, rowid, content, terms)
    VALUES ('delete', old.rowid, ctx_text(old.content), old.terms);
END;
CREATE TRIGGER nodes_fts_au AFTER UPDATE OF content, terms, status ON nodes BEGIN
  INSERT INTO fts(fts, rowid, content, terms)
    SELECT 'delete', old.rowid, ctx_text(old.content), old.terms
    WHERE old.status != 'pruned' AND (new.status = 'pruned'
          OR new.content IS NOT old.content OR new.terms IS NOT old.terms);
  INSERT INTO fts(rowid, content, terms)
    SELECT new.rowid, ctx_text(new.content), new.terms
    WHERE new.status != 'pruned' AND (old.status = 'pruned'
          OR new.content IS NOT old.content OR new.terms IS NOT old.terms);
END;
"""

#: The WHERE of the partial indexes on ``source_uri`` and ``content_hash`` (migration 7): every
#: node but a chunk under a file root. A query that looks either column up repeats it (as an
#: AND term, verbatim) so SQLite may use the index.
OUTSIDE_FILE_TREES = "(kind != 'file_chunk' OR parent_id IS NULL)"

_V7 = f"""
DROP INDEX idx_nodes_source;
CREATE INDEX idx_nodes_source ON nodes(source_uri) WHERE {OUTSIDE_FILE_TREES};
DROP INDEX idx_nodes_hash;
CREATE INDEX idx_nodes_hash ON nodes(content_hash) WHERE {OUTSIDE_FILE_TREES};
DROP INDEX idx_nodes_created;
CREATE INDEX idx_nodes_created ON nodes(created_at);
"""

#: The FTS5 tokenizer of the ``fts`` table (migration 2 onwards), for code that must split text
#: into the index's words (``ctx_tree_store.Store.index_words``). A migration that changes the
#: table's ``tokenize`` changes this too (a test holds them equal).
FTS_TOKENIZE = "porter unicode61"

#: Every migration, in order. ``SCHEMA_VERSION`` is the last one's version.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "docs/data-model.md: nodes, edges, fts", _V1),
    Migration(2, "search terms column, fts over non-pruned nodes, leases, counters", _V2),
    Migration(3, "CJK characters and bigrams in the search terms of stored nodes", _V3),
    Migration(4, "usage per day and tool, walker run history", _V4),
    Migration(5, "vectors per node and model (nodes_vec, nodes_vec_bits), walker_state", _V5),
    Migration(6, "packed file chunks: fts_source and its triggers read ctx_text(content)", _V6),
    Migration(7, "partial source and hash indexes (no file-tree chunks), packed metadata", _V7),
)
SCHEMA_VERSION: int = MIGRATIONS[-1].version
