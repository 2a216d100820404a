"""Every SQL statement of ctx-tree-store, in one place."""

import functools
from collections.abc import Iterator, Sequence

from ctx_tree_schema import OUTSIDE_FILE_TREES

# Lookups by source_uri or content_hash name OUTSIDE_FILE_TREES (the partial indexes' WHERE,
# schema 7) or imply it (parent_id IS NULL): a chunk under a file root is never found by them.
_OUT = OUTSIDE_FILE_TREES


def _hash_hex(column: str) -> str:
    """SQL for a row's ``content_hash`` as hex text (a chunk under a file root stores the
    32 bytes, schema 7: docs/data-model.md)."""
    return f"CASE typeof({column}) WHEN 'blob' THEN lower(hex({column})) ELSE {column} END"


NODE_COLUMNS = (
    f"id, parent_id, kind, source_uri, ctx_text(content), {_hash_hex('content_hash')}, status, "
    "mtime, created_at, updated_at, truncated, original_bytes, metadata"
)
N_NODE_COLUMNS = (
    f"n.id, n.parent_id, n.kind, n.source_uri, ctx_text(n.content), {_hash_hex('n.content_hash')}, "
    "n.status, n.mtime, n.created_at, n.updated_at, n.truncated, n.original_bytes, n.metadata"
)

INSERT_NODE = (
    "INSERT INTO nodes (id, parent_id, kind, source_uri, content, content_hash, status, mtime, "
    "created_at, updated_at, truncated, original_bytes, metadata, terms) VALUES "
)
INSERT_NODE_WIDTH = 14
#: Rows per multi-row INSERT (x14 bound parameters, under SQLite's 32766 limit).
INSERT_NODE_ROWS = 500


#: Most ids one ``IN (…)`` lookup binds: a few queries for thousands of ids, far under
#: SQLite's 32766 bound parameters.
IN_BATCH = 500


def in_batches(ids: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """``(batch, marks)`` for each run of at most :data:`IN_BATCH` of ``ids``, in order:
    the ids to bind and the ``?,?,…`` that fills a statement's ``{marks}``."""
    for i in range(0, len(ids), IN_BATCH):
        batch = list(ids[i : i + IN_BATCH])
        yield batch, ",".join("?" * len(batch))


@functools.lru_cache(maxsize=64)
def insert_nodes(rows: int) -> str:
    """``INSERT INTO nodes ... VALUES (...), (...)`` for ``rows`` rows."""
    return INSERT_NODE + ",".join(["(" + ",".join("?" * INSERT_NODE_WIDTH) + ")"] * rows)


INSERT_EDGE = "INSERT OR IGNORE INTO edges (src_id, dst_id, kind, created_at) VALUES (?,?,?,?)"

GET_NODE = f"SELECT {NODE_COLUMNS} FROM nodes WHERE id = ?"
GET_NODES = f"SELECT {NODE_COLUMNS} FROM nodes WHERE id IN ({{marks}})"
GET_STATUS = "SELECT status FROM nodes WHERE id = ?"
SET_STATUS = "UPDATE nodes SET status = ?, updated_at = ? WHERE id = ?"
DELETE_NODE = "DELETE FROM nodes WHERE id = ?"
CHILDREN = f"SELECT {NODE_COLUMNS} FROM nodes WHERE parent_id = ? ORDER BY id"
CHILD_IDS = "SELECT id FROM nodes WHERE parent_id = ?"
SUPERSEDED_CHILD_IDS = (
    "SELECT id FROM nodes WHERE parent_id = ? AND status = 'superseded' ORDER BY id"
)
PARENT_ID = "SELECT parent_id FROM nodes WHERE id = ?"

LATEST_BY_SOURCE = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE source_uri = ? AND {_OUT} "
    "AND status IN ('live','stale','pending') ORDER BY id DESC LIMIT 1"
)
# A chunk by its URI (file://<path>#<fragment>): among the children of its file's roots
# (idx_nodes_source finds the roots, idx_nodes_parent their chunks).
LATEST_CHUNK_BY_SOURCE = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE parent_id IN (SELECT id FROM nodes "
    "WHERE source_uri = ? AND parent_id IS NULL) AND source_uri = ? "
    "AND status IN ('live','stale','pending') ORDER BY id DESC LIMIT 1"
)
# File trees (Store.capture_file). A file root has no spine parent; its chunks are its children.
# Each UPDATE encodes legal moves of the status machine (ctx_tree_schema.TRANSITIONS):
# live/stale -> superseded, stale -> live, live -> stale.
FILE_ROOTS_BY_SOURCE = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE source_uri = ? AND parent_id IS NULL "
    "AND kind = 'file_chunk' AND status IN ('live','stale') ORDER BY id DESC"
)
FILE_VERSIONS_BY_SOURCE = (
    "SELECT id, json_extract(metadata, '$.file_sha256'), json_extract(metadata, '$.size') "
    "FROM nodes WHERE source_uri = ? AND parent_id IS NULL "
    "AND kind = 'file_chunk' AND status IN ('live','stale') ORDER BY id DESC"
)
# "+kind", "+status": a range of idx_nodes_source (file roots only: the chunks are not in it),
# not every live file chunk of idx_nodes_kind_status (30 a file).
LIVE_FILE_VERSIONS = (
    "SELECT source_uri, mtime, json_extract(metadata, '$.size'), "
    "json_extract(metadata, '$.file_sha256') FROM nodes "
    f"WHERE source_uri >= ? AND source_uri < ? AND {_OUT} AND +parent_id IS NULL "
    "AND +kind = 'file_chunk' AND +status = 'live' ORDER BY id DESC"
)
# "+status" in the four below: the id and parent indexes find a tree's few rows; a plain status
# term lets the planner walk every live node through idx_nodes_status_updated instead (94 ms a
# call on a 329k-node store, against 0.2 ms).
# The map (docs/tools.md, "Directory map"): the live file roots under a directory, one range of
# idx_nodes_source; then the raw content of the live chunks of many roots, in chunk order
# (unpacked in Python: no row is turned into a Node, no metadata read).
LIVE_ROOTS_UNDER = (
    f"SELECT source_uri, id FROM nodes WHERE source_uri >= ? AND source_uri < ? AND {_OUT} "
    "AND +parent_id IS NULL AND +kind = 'file_chunk' AND +status = 'live'"
)
LIVE_CHUNK_CONTENT = (
    "SELECT parent_id, content FROM nodes WHERE parent_id IN ({marks}) AND +status = 'live' "
    "ORDER BY parent_id, id"
)
SUPERSEDE_TREE = (
    "UPDATE nodes SET status = 'superseded', updated_at = ? "
    "WHERE (id = ? OR parent_id = ?) AND +status IN ('live','stale')"
)
REVIVE_TREE = "UPDATE nodes SET status = 'live', updated_at = ? WHERE (id = ? OR parent_id = ?) AND +status = 'stale'"
STALE_TREE = "UPDATE nodes SET status = 'stale', updated_at = ? WHERE (id = ? OR parent_id = ?) AND +status = 'live'"
LIVE_CHILDREN = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE parent_id = ? AND +status = 'live' ORDER BY id"
)
SUPERSEDED_ROOTS = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE source_uri = ? AND parent_id IS NULL "
    "AND status = 'superseded' ORDER BY id DESC LIMIT ?"
)
# A copy of a stored node under a new id, parent, status and mtime (terms copied verbatim).
COPY_NODE = (
    "INSERT INTO nodes (id, parent_id, kind, source_uri, content, content_hash, status, mtime, "
    "created_at, updated_at, truncated, original_bytes, metadata, terms) "
    "SELECT ?, ?, kind, source_uri, content, content_hash, 'live', ?, ?, ?, truncated, "
    "original_bytes, metadata, terms FROM nodes WHERE id = ?"
)
SESSION_BY_URI = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE source_uri = ? AND {_OUT} AND kind = 'session' LIMIT 1"
)

PARENT_IDS = "SELECT id, parent_id FROM nodes WHERE id IN ({marks})"
CHILD_IDS_MANY = "SELECT parent_id, id FROM nodes WHERE parent_id IN ({marks}) ORDER BY id"
EDGES_OUT_MANY = "SELECT src_id, dst_id, kind FROM edges WHERE src_id IN ({marks})"
EDGES_IN_MANY = "SELECT dst_id, src_id, kind FROM edges WHERE dst_id IN ({marks})"
SESSION_ID_BY_URI = (
    f"SELECT id FROM nodes WHERE source_uri = ? AND {_OUT} AND kind = 'session' LIMIT 1"
)
EDGES_OUT = "SELECT dst_id, kind FROM edges WHERE src_id = ?"
EDGES_IN = "SELECT src_id, kind FROM edges WHERE dst_id = ?"

NODE_STATS = (
    "SELECT id, ctx_len(content), ctx_len(content) - length(replace(ctx_text(content), char(10), '')), "
    "updated_at, status FROM nodes WHERE id IN ({marks})"
)

# Search, in two steps: rank (rowid and BM25 only, so snippet() and the row's columns are not
# computed for every match before the sort), then fetch the top rows with their snippets.
SEARCH_RANK = (
    "SELECT fts.rowid, -bm25(fts, 1.0, {terms_weight}) FROM fts JOIN nodes n ON n.rowid = fts.rowid "
    "WHERE fts MATCH ? {where} AND fts.rowid >= ?"
)
# BM25 of the ranking words for the given rowids only (a JSON array: an AND's window). The
# MATCH walks the ranking words' doclists between the window's ends; "+rowid" keeps the list
# out of FTS5's plan (a rowid IN constraint would re-run BM25's IDF pass once per id), and
# bm25() runs only for the rows the list holds.
SEARCH_RANK_AMONG = (
    "SELECT fts.rowid, -bm25(fts, 1.0, {terms_weight}) FROM fts "
    "WHERE fts MATCH ? AND fts.rowid BETWEEN ? AND ? "
    "AND +fts.rowid IN (SELECT value FROM json_each(?))"
)
# The newest matches, no BM25 (its IDF pass walks whole doclists): an AND's window, or the hits
# when every word is very common.
SEARCH_NEWEST = (
    "SELECT fts.rowid, 0.0 FROM fts JOIN nodes n ON n.rowid = fts.rowid "
    "WHERE fts MATCH ? {where} ORDER BY fts.rowid DESC LIMIT ?"
)
SEARCH_SNIPPET = "snippet(fts, 0, '', '', '…', 16)"
SEARCH_ROWS = (
    f"SELECT n.rowid, {N_NODE_COLUMNS}, {{snippet}}, ctx_words_held(fts) "
    "FROM fts JOIN nodes n ON n.rowid = fts.rowid WHERE fts MATCH ? AND fts.rowid IN ({marks})"
)
# Snippets of given nodes for an expression (only those that match it come back).
# (Rowids as literals, as SEARCH_ROWS does: FTS5 looks each one up.)
SNIPPETS = (
    f"SELECT n.id, {SEARCH_SNIPPET} FROM fts JOIN nodes n ON n.rowid = fts.rowid "
    "WHERE fts MATCH ? AND fts.rowid IN ({marks})"
)
# The rowid of the cap-th newest match (after filters): ranking starts there.
SEARCH_FLOOR = (
    "SELECT fts.rowid FROM fts JOIN nodes n ON n.rowid = fts.rowid WHERE fts MATCH ? {where} "
    "ORDER BY fts.rowid DESC LIMIT 1 OFFSET ?"
)
# Whether a single word has at least cap matches (a walk of its doclist, no scoring).
# Long-query ranking (Store.postings): a term's occurrences per node and column, from an
# fts5vocab instance table in the connection's temp schema (nothing written to the store).
FTS_VOCAB_TEMP = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.ctx_fts_vocab USING fts5vocab(main, fts, instance)"
)
FTS_VOCAB_POSTINGS = (
    "SELECT doc, col = 'terms', count(*) FROM temp.ctx_fts_vocab WHERE term = ? "
    "GROUP BY doc, col LIMIT ?"
)
FTS_PHRASE_ROWIDS = "SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?"
# Live chunks under a file root matching an FTS5 expression, newest first (_symbols.py).
SYMBOL_CHUNKS = (
    "SELECT n.id, n.parent_id, n.source_uri, n.metadata FROM fts JOIN nodes n "
    "ON n.rowid = fts.rowid WHERE fts MATCH ? AND n.kind = 'file_chunk' "
    "AND n.status = 'live' AND n.parent_id IS NOT NULL ORDER BY fts.rowid DESC LIMIT ?"
)
# The live chunks of a file root with one of two source URIs (a symbol, its first part).
# (``+status``, ``+kind``: the parent's index, not the status or kind one, which would scan
# every live node.)
ROOT_CHUNK_BY_URI = (
    "SELECT id, parent_id, source_uri, metadata FROM nodes "
    "WHERE parent_id = ? AND +status = 'live' AND source_uri IN (?, ?)"
)
# The live chunks of a file root, without their content (_symbols.py).
ROOT_CHUNKS = (
    "SELECT id, parent_id, source_uri, metadata FROM nodes "
    "WHERE parent_id = ? AND +status = 'live' AND +kind = 'file_chunk'"
)
FTS_DOC_COUNT = "SELECT count(*) FROM fts_docsize"
# a packed (BLOB) metadata is not inflated: its chunk's symbol is its source_uri's fragment
POSTING_DOCS = (
    "SELECT n.rowid, n.id, n.parent_id, n.kind, d.sz, "
    "CASE WHEN typeof(n.metadata) = 'text' THEN json_extract(n.metadata, '$.symbol') END, "
    "CASE WHEN typeof(n.metadata) = 'text' THEN json_extract(n.metadata, '$.path') IS NULL "
    "ELSE 1 END, "
    "n.source_uri FROM nodes n "
    "JOIN fts_docsize d ON d.id = n.rowid "
    "WHERE n.rowid IN (SELECT value FROM json_each(?)) {where}"
)
CHILD_COUNTS = (
    "SELECT parent_id, count(*) FROM nodes WHERE parent_id IN ({marks}) GROUP BY parent_id"
)
WORD_COUNT = "SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)"
WORD_AT_LEAST = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
NODE_ROWIDS = "SELECT id, rowid FROM nodes WHERE id IN ({marks})"
FTS_SCORE_ROWID = "SELECT -bm25(fts) FROM fts WHERE fts MATCH ? AND rowid = ?"
FTS_SCORES_ALL = "SELECT rowid, -bm25(fts) FROM fts WHERE fts MATCH ?"
RECENT = f"SELECT {NODE_COLUMNS} FROM nodes WHERE 1=1 {{where}} ORDER BY created_at DESC, id DESC LIMIT ?"
# Resume a newest-first listing after the node (created_at, id): older, or as old with a lower id.
RECENT_OLDER_THAN = " AND (created_at < ? OR (created_at = ? AND id < ?))"

COUNTS = "SELECT kind, status, count(*), sum(ctx_len(content)) FROM nodes GROUP BY kind, status"
FILE_ROOT_COUNT = (
    "SELECT count(*) FROM nodes WHERE kind = 'file_chunk' AND parent_id IS NULL "
    "AND status IN ('live', 'stale', 'pending')"
)
BUMP_COUNTER = (
    "INSERT INTO counters (name, value) VALUES (?, ?) "
    "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value"
)
COUNTERS = "SELECT name, value FROM counters"

LEASE_ACQUIRE = (
    "INSERT INTO leases (name, holder, expires_at) VALUES (:name, :holder, :expires) "
    "ON CONFLICT(name) DO UPDATE SET holder = :holder, expires_at = :expires "
    "WHERE leases.holder = :holder OR leases.expires_at <= :now"
)
LEASE_HOLDER = "SELECT holder, expires_at FROM leases WHERE name = ?"
LEASE_RELEASE = "DELETE FROM leases WHERE name = ? AND holder = ?"

PENDING = f"SELECT {NODE_COLUMNS} FROM nodes WHERE status = 'pending' ORDER BY id LIMIT ?"
# ``+status``: look the hash up in idx_nodes_hash; without it the planner walks every live
# row through idx_nodes_status_updated (14 ms per call at 40k live nodes).
LIVE_DUPLICATE = (
    f"SELECT id FROM nodes WHERE content_hash = ? AND {_OUT} AND source_uri IS ? "
    "AND +status = 'live' AND id != ? LIMIT 1"
)
SAME_CAPTURE = (
    f"SELECT id FROM nodes WHERE content_hash = ? AND {_OUT} AND source_uri IS ? "
    "AND +status IN ('live', 'pending') ORDER BY id LIMIT 1"
)
FILE_ROOTS = (
    f"SELECT {NODE_COLUMNS} FROM nodes WHERE kind = 'file_chunk' AND status = ? "
    "AND parent_id IS NULL AND id > ? ORDER BY id LIMIT ?"
)
EXPIRED = "SELECT id FROM nodes WHERE status = ? AND updated_at < ? ORDER BY updated_at LIMIT ?"
# Superseded nodes whose content is not lost when they go: file chunks (the file is on disk),
# summaries (made again from their children) and exact duplicates (a superseder holds the same
# content). Older runs of a command and near duplicates stay (docs/walkers.md, pruner).
EXPIRED_REPLACEABLE = (
    "SELECT n.id FROM nodes n WHERE n.status = 'superseded' AND n.updated_at < ? "
    "AND (n.kind IN ('file_chunk', 'summary') OR EXISTS (SELECT 1 FROM edges e "
    "JOIN nodes s ON s.id = e.src_id WHERE e.dst_id = n.id AND e.kind = 'supersedes' "
    "AND s.content_hash = n.content_hash)) ORDER BY n.updated_at LIMIT ?"
)
PATCH_METADATA = (
    "UPDATE nodes SET metadata = json_patch(ctx_meta(metadata, source_uri), ?) WHERE id = ?"
)
DELETE_PRUNED = "SELECT id FROM nodes WHERE status = 'pruned' AND updated_at < ? LIMIT ?"

# -- history records (usage per day and tool, walker runs) ------------------------------------
BUMP_USAGE_DAILY = (
    "INSERT INTO usage_daily (day, tool, name, value) VALUES (?, ?, ?, ?) "
    "ON CONFLICT(day, tool, name) DO UPDATE SET value = value + excluded.value"
)
STATUS_COUNTS = "SELECT status, count(*) FROM nodes GROUP BY status"
INSERT_WALKER_RUN = (
    "INSERT INTO walker_runs (walker, started_at, finished_at, summary, changes, status_counts) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
TRIM_WALKER_RUNS = "DELETE FROM walker_runs WHERE id <= (SELECT max(id) FROM walker_runs) - ?"

# -- browsing (read-only pages for the inspector; keyset cursors, never a whole table) ---------
BROWSE_COLUMNS = (
    "n.rowid, n.id, n.parent_id, n.kind, n.status, n.source_uri, ctx_len(n.content), "
    "n.original_bytes, n.truncated, n.created_at, n.updated_at, n.metadata, "
    "EXISTS(SELECT 1 FROM nodes c WHERE c.parent_id = n.id)"
)
# {parent}: "n.parent_id = ?" or "n.parent_id IS NULL"; {where}: kind/status filters;
# {cmp}/{order}: "<"/"DESC" (newest first) or ">"/"ASC" (spine order). idx_nodes_parent holds
# (parent_id, rowid), so the walk needs no sort whatever the size of the parent.
BROWSE_CHILDREN = (
    f"SELECT {BROWSE_COLUMNS} FROM nodes n WHERE {{parent}} {{where}} AND n.rowid {{cmp}} ? "
    "ORDER BY n.rowid {order} LIMIT ?"
)
BROWSE_RECENT = (
    f"SELECT {BROWSE_COLUMNS} FROM nodes n WHERE n.created_at <= ? "
    "AND (n.created_at, n.rowid) < (?, ?) {where} "
    "ORDER BY n.created_at DESC, n.rowid DESC LIMIT ?"
)
BROWSE_ROWS = f"SELECT {BROWSE_COLUMNS} FROM nodes n WHERE n.id IN ({{marks}})"
BROWSE_EDGES_OUT = "SELECT dst_id, kind, created_at FROM edges WHERE src_id = ? LIMIT ?"
BROWSE_EDGES_IN = "SELECT src_id, kind, created_at FROM edges WHERE dst_id = ? LIMIT ?"
CHILD_COUNT = "SELECT count(*) FROM nodes WHERE parent_id = ?"
CHILD_IDS_FIRST = "SELECT id FROM nodes WHERE parent_id = ? ORDER BY rowid LIMIT ?"
KIND_STATUS_COUNTS = "SELECT kind, status, count(*) FROM nodes GROUP BY kind, status"
# Nodes created per time bucket (idx_nodes_created covers it).
ACTIVITY = (
    "SELECT created_at / ? * ?, count(*) FROM nodes WHERE created_at >= ? "
    "GROUP BY created_at / ? ORDER BY 1"
)
USAGE_SINCE = (
    "SELECT day, tool, name, value FROM usage_daily WHERE day >= ? ORDER BY day, tool, name"
)
WALKER_RUNS = (
    "SELECT id, walker, started_at, finished_at, summary, changes, status_counts "
    "FROM walker_runs ORDER BY id DESC LIMIT ?"
)

# -- the catalog of stores (_catalog.py): read-only, valid on every schema version ------------
COUNT_NODES = "SELECT count(*) FROM nodes"
NEWEST_SESSION_CWD = (
    "SELECT json_extract(metadata, '$.cwd') FROM nodes WHERE kind = 'session' "
    "ORDER BY id DESC LIMIT 1"
)

# Vectors (nodes_vec: float32 per node and model; nodes_vec_bits: its sign bits, scanned first).
VEC_MODELS = "SELECT embedding_model, count(*) FROM nodes_vec GROUP BY embedding_model"
VEC_COUNT_MODEL = "SELECT count(*) FROM nodes_vec WHERE embedding_model = ?"
# Index-only counts (idx_nodes_status_updated, idx_nodes_kind_status): live and pending nodes,
# and the sessions among them.
VEC_ELIGIBLE_COUNT = "SELECT count(*) FROM nodes WHERE status IN ('live', 'pending')"
VEC_SESSION_COUNT = (
    "SELECT count(*) FROM nodes WHERE kind = 'session' AND status IN ('live', 'pending')"
)
# Nodes never embedded for holding nothing (``content_hash`` of '', idx_nodes_hash), sessions
# aside (a chunk under a file root is never empty: the chunker makes none).
VEC_EMPTY_COUNT = (
    f"SELECT count(*) FROM nodes WHERE content_hash = ? AND {_OUT} "
    "AND status IN ('live', 'pending') AND kind != 'session'"
)
VEC_MISSING = (
    f"SELECT n.rowid, {N_NODE_COLUMNS} FROM nodes n LEFT JOIN nodes_vec v ON v.rowid = n.rowid "
    "WHERE n.status IN ('live', 'pending') AND n.kind != 'session' AND n.content != '' "
    "AND n.rowid > ? AND (v.rowid IS NULL OR v.embedding_model != ? "
    f"OR v.content_hash != {_hash_hex('n.content_hash')}) ORDER BY n.rowid LIMIT ?"
)
VEC_NODE_STATE = (
    f"SELECT rowid, {_hash_hex('content_hash')} FROM nodes WHERE id = ? AND status != 'pruned'"
)
VEC_PUT = (
    "INSERT OR REPLACE INTO nodes_vec (rowid, embedding_model, content_hash, embedding, created_at) "
    "VALUES (?, ?, ?, ?, ?)"
)
VEC_PUT_BITS = (
    "INSERT OR REPLACE INTO nodes_vec_bits (rowid, embedding_model, bits) VALUES (?, ?, ?)"
)
VEC_DIMENSIONS = "SELECT length(embedding) / 4 FROM nodes_vec WHERE embedding_model = ? LIMIT 1"
# Step 1: the candidates nearest by Hamming distance of the sign bits (a dense 48-byte row per
# node at 384 dimensions, so the scan stays in a few MB).
VEC_BITS_NEAREST = (
    "SELECT rowid FROM nodes_vec_bits WHERE embedding_model = ? "
    "ORDER BY vec_distance_hamming(vec_bit(bits), vec_bit(?)) LIMIT ?"
)
VEC_BITS_NEAREST_FILTERED = (
    "SELECT b.rowid FROM nodes_vec_bits b JOIN nodes n ON n.rowid = b.rowid "
    "WHERE b.embedding_model = ? {where} "
    "ORDER BY vec_distance_hamming(vec_bit(b.bits), vec_bit(?)) LIMIT ?"
)
# Step 2: exact cosine distance on the candidates, filters applied; rowids only (the node rows
# of the few hits kept are read afterwards, with VEC_ROWS).
# A NULL distance (cosine of an all-zero vector) is left out: it would sort first.
VEC_RERANK = (
    "SELECT rowid, d FROM (SELECT v.rowid AS rowid, vec_distance_cosine(v.embedding, ?) AS d "
    "FROM nodes_vec v JOIN nodes n ON n.rowid = v.rowid "
    "WHERE v.embedding_model = ? AND v.rowid IN ({marks}) {where}) "
    "WHERE d IS NOT NULL ORDER BY d LIMIT ?"
)
# Exact cosine distance of given nodes' vectors (hybrid search scores every candidate). The
# unary "+" keeps the model index out of the plan: with it SQLite walks every vector of the
# model to find the 50 asked (60 ms at 100k nodes, against 0.1 ms through the id index).
VEC_DISTANCES = (
    "SELECT n.id, vec_distance_cosine(v.embedding, ?) FROM nodes_vec v "
    "JOIN nodes n ON n.rowid = v.rowid WHERE +v.embedding_model = ? AND n.id IN ({marks})"
)
VEC_ROWS = f"SELECT n.rowid, {N_NODE_COLUMNS} FROM nodes n WHERE n.rowid IN ({{marks}})"
VEC_OF_NODE = (
    "SELECT v.embedding FROM nodes_vec v JOIN nodes n ON n.rowid = v.rowid "
    "WHERE n.id = ? AND v.embedding_model = ?"
)
VEC_DELETE_MODEL = "DELETE FROM nodes_vec WHERE embedding_model = ?"
VEC_DELETE_MODEL_BITS = "DELETE FROM nodes_vec_bits WHERE embedding_model = ?"
VEC_DELETE_OTHER_MODELS = "DELETE FROM nodes_vec WHERE embedding_model != ?"
VEC_DELETE_OTHER_BITS = "DELETE FROM nodes_vec_bits WHERE embedding_model != ?"
VEC_AFTER = (
    f"SELECT v.rowid, {N_NODE_COLUMNS} FROM nodes_vec v JOIN nodes n ON n.rowid = v.rowid "
    "WHERE v.embedding_model = ? AND v.rowid > ? AND n.status = 'live' {where} "
    "ORDER BY v.rowid LIMIT ?"
)

WALKER_STATE_GET = "SELECT value FROM walker_state WHERE name = ?"
WALKER_STATE_SET = (
    "INSERT INTO walker_state (name, value) VALUES (?, ?) "
    "ON CONFLICT(name) DO UPDATE SET value = excluded.value"
)
# Two seeks of the model index (a "!=" would walk it whole: ~2 ms at 100k vectors).
VEC_OTHER_MODEL = (
    "SELECT m FROM (SELECT embedding_model AS m FROM nodes_vec WHERE embedding_model < ?1 "
    "ORDER BY embedding_model DESC LIMIT 1) UNION ALL SELECT m FROM (SELECT embedding_model "
    "AS m FROM nodes_vec WHERE embedding_model > ?1 ORDER BY embedding_model LIMIT 1) LIMIT 1"
)
# Summarizer: parents with at least N live children that are not summaries.
SUBTREES_OVER = (
    "SELECT parent_id, count(*) FROM nodes WHERE parent_id IS NOT NULL AND status = 'live' "
    "AND kind != 'summary' GROUP BY parent_id HAVING count(*) >= ? ORDER BY parent_id LIMIT ?"
)
