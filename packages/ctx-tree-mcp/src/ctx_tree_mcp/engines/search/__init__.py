"""Search beyond FTS5 alone: semantic and hybrid retrieval, their fusion and symbol ranking,
and keyword search with a long query (docs/search.md)."""
