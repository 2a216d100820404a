"""``ctx-tree reembed``: embed (or re-embed) every live and pending node with the configured
model, in batches, with a progress bar on stderr (docs/search.md).

A model whose dimensions changed under the same name has its old vectors replaced, and
nodes the provider refused before are tried again. Resumable: each batch is committed on its own, so running it again after an interruption or a
provider failure continues with the nodes still missing. When it completes, vectors of other
models left on nodes that are not live or pending are dropped, and semantic search works again.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from ctx_tree_mcp.errors import CtxTreeError, ToolInputError

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App


class ReembedFailed(CtxTreeError, RuntimeError):
    """The provider failed midway; what was embedded is kept. The message says to run again."""


def reembed(app: App, batch_size: int | None = None, *, progress: bool = True) -> str:
    """Embed every node lacking a vector of the configured model; returns a one-line report
    (nodes, seconds, nodes per second). Raises ``ToolInputError`` for a ``batch_size`` below 1
    (before anything else) or when no provider is configured, and :class:`ReembedFailed` when the provider fails (run it again to resume)."""
    from ctx_tree_walkers import embed_missing

    from ctx_tree_mcp.engines.search.retrieval import NO_PROVIDER

    # the arguments first: a bad --batch is named whether or not a provider is configured
    if batch_size is not None and batch_size < 1:
        raise ToolInputError("--batch", f"{batch_size} is out of range; give 1 or more")
    embedder, problem = app.embedder()
    if embedder is None:
        raise ToolInputError("embedding", (problem or NO_PROVIDER).replace(": keyword results", ""))
    size = batch_size or int(app.config.data["walkers"]["embeddingBatchSize"])
    store = app.store
    # a node holds one vector: another model's is replaced, so the backlog already counts it
    total = store.vector_backlog(embedder.model)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="node", file=sys.stderr, desc=f"embedding ({embedder.model})")
    done = [0]

    def tick(embedded: int, _remaining: int) -> None:
        if bar is not None:
            bar.update(embedded - done[0])
        done[0] = embedded

    started = time.perf_counter()
    try:
        report = embed_missing(store, embedder, batch_size=size, replace=True, progress=tick)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - started
    if report.failed:
        raise ReembedFailed(
            f"{report.embedded} nodes embedded, then the provider failed: {report.failed}; "
            "run `ctx-tree reembed` again to continue"
        )
    rate = f" ({report.embedded / seconds:.1f} nodes/s)" if report.embedded and seconds > 0 else ""
    dropped = (
        f"; {report.dropped_other} vectors of other models dropped" if report.dropped_other else ""
    )
    if report.dropped_changed:
        dropped += (
            f"; {report.dropped_changed} vectors of {embedder.model} of another length replaced "
            "(the model's dimensions changed)"
        )
    return (
        f"reembed: {report.embedded} nodes embedded with {embedder.describe()} in "
        f"{seconds:.1f} s{rate}{dropped}; {store.vector_models().get(embedder.model, 0)} "
        f"vectors of {embedder.model} in the store\n"
    )
