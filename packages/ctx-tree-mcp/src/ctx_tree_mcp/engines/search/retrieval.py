"""Semantic and hybrid retrieval for ``ctx_tree_search`` (docs/search.md).

* semantic: the query's vector (the configured provider) against the stored vectors of the
  same model, filtered like keyword search.
* hybrid: BM25's and the vectors' candidates (``search.candidates`` each), scored on three
  signals, BM25, vector similarity and the symbol ranking (:mod:`.symbol_rank`: BM25 over
  each candidate's symbol name and doc summary), fused by :mod:`.fusion` (``search.fusion``:
  a convex combination of normalized scores, or RRF).

Nothing here fails the call for a provider problem: no provider, an unreachable or slow one,
vectors of the wrong length, or sqlite-vec missing give keyword results and a one-line note.
Only a store holding another model's vectors refuses (``MixedModels``), since its vectors
cannot be compared with the query's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.errors import CtxTreeError

if TYPE_CHECKING:
    from typing import Protocol

    from ctx_tree_schema import Config, Filters, Node
    from ctx_tree_store import Store, VectorHit
    from ctx_tree_walkers import EmbeddingProvider

    from ctx_tree_mcp.caches import BacklogCache

    class SearchParts(Protocol):
        """What semantic and hybrid search use of the caller's ``App``: its store, its config
        (``search.*``), its embedding provider and the backlog counts its note reuses."""

        @property
        def store(self) -> Store:
            """The project's store (``App.store``)."""

        @property
        def config(self) -> Config:
            """The merged configuration (``App.config``)."""

        @property
        def backlogs(self) -> BacklogCache:
            """The vector backlog counts (``App.backlogs``)."""

        def embedder(self) -> tuple[EmbeddingProvider | None, str | None]:
            """``(provider, None)``, ``(None, None)`` when none is configured, ``(None, why)`` (``App.embedder``)."""


REEMBED_COMMAND = "ctx-tree reembed"
MIXED_ERROR = (
    "the store holds vectors of model {other!r} but the configured model is {model!r}; run "
    "`" + REEMBED_COMMAND + "` to re-embed every node with {model!r} (resumable), or configure "
    "{other!r} again; keyword search works meanwhile ({keyword})"
)
NO_PROVIDER = (
    "no embedding provider is configured (embedding.provider or CTX_TREE_EMBEDDING_PROVIDER; "
    "see docs/search.md): keyword results"
)


class MixedModels(CtxTreeError, ValueError):
    """The store's vectors are of another model; the message names ``ctx-tree reembed``."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One search hit: the node, its score (higher is better) and a snippet.

    ``matched_all``: True for a keyword match of every word of the query, False for one of
    only some; None for a hybrid hit found by its vector alone (not among the keyword
    matches). Semantic hits are all found by meaning and keep True: nothing to mark."""

    node: Node
    score: float
    snippet: str
    matched_all: bool | None = True


def _keyword_call(query: str) -> str:
    from ctx_tree_mcp.answers.surface import call

    return call("ctx_tree_search", query=query)


def _opening(node: Node) -> str:
    return " ".join(node.content[:400].split())


def _keyword_hits(store: Store, query: str, limit: int, filters: Filters) -> list[Hit]:
    return [
        Hit(h.node, h.score, h.snippet, h.matched_all) for h in store.search(query, limit, filters)
    ]


def _vector_hits(
    store: Store,
    embedder: EmbeddingProvider,
    query: str,
    count: int,
    filters: Filters,
    notes: list[str],
) -> tuple[list[VectorHit], list[float]] | None:
    """The ``count`` nearest nodes to the query's vector on ``store``'s connection and that
    vector, or None with a note in ``notes`` when the provider or the vectors fail (keyword
    results follow)."""
    from ctx_tree_store import DimensionMismatch, VectorUnavailable, unusable
    from ctx_tree_walkers import InputRejected, ProviderUnavailable

    try:
        vector = embedder.embed_query(query)
        why = unusable(vector)
        if why is not None:  # a provider of ours refuses it already; another may not
            notes.append(f"the query's vector is {why} (no known word?): keyword results")
            return None
        return store.vector_search(embedder.model, vector, count, filters), vector
    except InputRejected as exc:
        notes.append(f"the provider refused the query ({exc}): keyword results")
    except ProviderUnavailable as exc:
        notes.append(f"embedding provider unavailable ({exc}): keyword results")
    except DimensionMismatch as exc:
        notes.append(f"{exc}; run `{REEMBED_COMMAND}`: keyword results")
    except VectorUnavailable as exc:
        notes.append(f"{exc}: keyword results")
    return None


def search(
    app: SearchParts, query: str, mode: str, limit: int, filters: Filters
) -> tuple[list[Hit], list[str]]:
    """``(hits, notes)`` for ``mode`` ``semantic`` or ``hybrid``. Raises :class:`MixedModels`."""
    from ctx_tree_mcp.answers.render import plural

    store = app.store
    embedder, problem = app.embedder()
    notes: list[str] = []
    if embedder is None:
        notes.append(problem or NO_PROVIDER)
        return _keyword_hits(store, query, limit, filters), notes
    other = store.other_vector_model(embedder.model)
    if other is not None:
        raise MixedModels(
            MIXED_ERROR.format(other=other, model=embedder.model, keyword=_keyword_call(query))
        )
    candidates = min(max(limit, int(app.config.data["search"]["candidates"])), 200)
    if mode == "semantic":
        scanned = _vector_hits(store, embedder, query, limit, filters, notes)
        keyword_hits = None
    else:
        # The query's embedding and vector scan run in a thread on the store's second
        # connection while BM25 runs here: the search costs the longer of the two, not both.
        # (A store without a second connection, in memory, runs them one after the other.)
        def bm25() -> list[Any]:
            # The store's order is the BM25 ranking hybrid fuses: nodes holding every word
            # before those holding some, each group best first (the candidates are five times
            # the listing: partial matches high in BM25 would otherwise crowd the fused list).
            return store.search(query, candidates, filters, snippets=False)

        reader = store.reader()
        if reader is None:
            scanned = _vector_hits(store, embedder, query, candidates, filters, notes)
            keyword_hits = bm25()
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1, thread_name_prefix="ctx-tree-vector-search") as pool:
                scan = pool.submit(
                    _vector_hits, reader, embedder, query, candidates, filters, notes
                )
                keyword_hits = bm25()
                scanned = scan.result()  # its exception, if any, raised here
    if scanned is None:  # the fallback: keyword results
        return _keyword_hits(store, query, limit, filters), notes
    vector_hits, query_vector = scanned
    model = embedder.model
    behind = app.backlogs.get(model, lambda: app.store.vector_backlog(model))
    if behind:
        notes.append(
            f"about {plural(behind, 'node')} not embedded yet: `{REEMBED_COMMAND}` embeds "
            "them now (a running server's embedding walker does it in the background)"
        )
    if keyword_hits is None:  # semantic
        shown = vector_hits[:limit]
        snippets = store.snippets(query, [h.node.id for h in shown])
        return [
            Hit(h.node, h.similarity, snippets.get(h.node.id) or _opening(h.node)) for h in shown
        ], notes
    nodes = {h.node.id: Hit(h.node, h.score, "", h.matched_all) for h in keyword_hits}
    for h in vector_hits:
        nodes.setdefault(h.node.id, Hit(h.node, h.similarity, "", None))
    from ctx_tree_mcp.engines.search import fusion
    from ctx_tree_mcp.engines.search.symbol_rank import rank as symbol_rank

    by_symbol = symbol_rank(query, [h.node for h in nodes.values()], store.index_words)
    settings = app.config.data["search"]
    if settings["fusion"] == "rrf":
        fused = fusion.rrf(
            [
                [h.node.id for h in keyword_hits],
                [h.node.id for h in vector_hits],
                [i for i, _ in by_symbol],
            ],
            int(settings["rrfK"]),
        )
    else:
        similarity = {h.node.id: h.similarity for h in vector_hits}
        unscored = [i for i in nodes if i not in similarity]
        if unscored:  # BM25's candidates beyond the vectors' nearest: their exact cosine
            similarity.update(store.vector_similarities(embedder.model, query_vector, unscored))
        fused = fusion.convex(
            list(nodes),
            {h.node.id: h.score for h in keyword_hits},
            {h.node.id: h.coverage for h in keyword_hits},
            similarity,
            dict(by_symbol),
        )
    top = fused[:limit]
    snippets = store.snippets(query, [i for i, _ in top])
    return [
        Hit(nodes[i].node, score, snippets.get(i) or _opening(nodes[i].node), nodes[i].matched_all)
        for i, score in top
    ], notes
