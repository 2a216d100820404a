"""Keyword search's order, code first (docs/search.md, "Source first").

The store ranks by BM25 alone. A short query's first :data:`WINDOW` hits are ordered again,
within each of the store's groups (hits holding every word, then hits holding some), by
their BM25 score times:

* their file's role factor (:mod:`.roles`): a translation, a lockfile, a generated,
  vendored or fixture file, a test or a doc ranks below source of a like score, unless the
  query asks for that kind of file;
* :data:`NAMED_FACTOR` for a chunk whose symbol the query names (:func:`named`:
  ``get_outdated_files`` finds ``BuildEnvironment.get_outdated_files`` before the chunks
  that only mention it; a plain English word of the query names nothing).

The window does not depend on the limit asked for, so the hits at limit k are the first k at
any larger limit, as the store's own order promises.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.engines.files import roles

if TYPE_CHECKING:
    from ctx_tree_schema import Filters
    from ctx_tree_store import Store

#: Hits of the store's order looked at again (a limit above it is served as the store gives).
WINDOW = 50
#: Score factor of a chunk whose symbol the query names.
NAMED_FACTOR = 2.0
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def named(query: str) -> set[str]:
    """The symbol names ``query`` gives, lower-cased, whole and by their last dotted part:
    the identifiers that look like code (``get_outdated_files``, ``Builder.read``,
    ``getAppDir``, a name called: :func:`.longquery.named_symbols`), and a query that is one
    identifier alone (``Flask``). A plain word among others (``request`` of "attaches basic
    authentication to the request") is the query's English, not a name."""
    from ctx_tree_mcp.engines.search.longquery import named_symbols

    out = named_symbols(query)
    alone = query.strip()
    if _IDENT.fullmatch(alone):
        out.add(alone.lower())
        out.add(alone.rsplit(".", 1)[-1].lower())
    return out


def _symbol(node: Any) -> tuple[str, str]:
    symbol = str(node.metadata.get("symbol") or "")
    base = re.sub(r"#\d+$", "", symbol).lower()
    return base, base.rsplit(".", 1)[-1]


def keyword(store: Store, query: str, limit: int, filters: Filters) -> list[Any]:
    """The store's keyword hits for ``query`` reordered (see the module's doc), at most
    ``limit``, with their snippets."""
    if limit > WINDOW:
        return list(store.search(query, limit=limit, filters=filters))
    hits = list(store.search(query, limit=WINDOW, filters=filters, snippets=False))
    wanted = roles.asked(query)
    names = named(query)
    scored = []
    for i, hit in enumerate(hits):
        node = hit.node
        score = hit.score * roles.factor(node.metadata.get("relpath"), wanted)
        if names and node.metadata.get("symbol") and (set(_symbol(node)) & names):
            score *= NAMED_FACTOR
        scored.append((not hit.matched_all, -score, i, score))
    scored.sort()
    picked = [replace(hits[i], score=round(score, 4)) for _g, _s, i, score in scored[:limit]]
    snippets = store.snippets(query, [h.node.id for h in picked])
    return [replace(h, snippet=snippets.get(h.node.id, "")) for h in picked]
