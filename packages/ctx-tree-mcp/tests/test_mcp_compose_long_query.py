"""Compose from given seeds with a long query scores what lies around them by the query's own
ranking (docs/tools.md, ctx_tree_compose)."""

from __future__ import annotations

from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.compose import compose
from ctx_tree_mcp.tools.read import read


def chunk_id(app: App, rel: str, symbol: str) -> str:
    from ctx_tree_mcp.policy.names import file_uri

    root = app.store.latest_by_source(file_uri(app.root / rel))
    assert root is not None
    return next(c.id for c in app.store.children(root.id) if c.metadata.get("symbol") == symbol)


def test_compose_from_seeds_with_a_long_query_packs_what_the_query_describes(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "mod.py").write_text(
        "def entry(x):\n    return x\n\n"
        + "".join(f"def filler_{i}(x):\n    return x + {i}\n\n" for i in range(6))
        + "def recompute_stale_documents(env):\n"
        + '    """Find the stale documents whose source changed since the last build."""\n'
        + "    return [d for d in env if d.changed]\n"
    )
    # a second seed's file whose outline (its root, one hop from the seed) is long
    (root / "many.py").write_text(
        "".join(f"def helper_number_{i}(value):\n    return value\n\n" for i in range(150))
    )
    app = App(root, home=tmp_path / "home")
    try:
        read(app, "mod.py", budget_tokens=100)
        read(app, "many.py", budget_tokens=100)
        seeds = [chunk_id(app, "mod.py", "entry"), chunk_id(app, "many.py", "helper_number_7")]
        query = (
            "when I run an incremental build the documents whose source changed are not found "
            "as stale, so the build does not recompute them; where are stale documents found"
        )
        answer = compose(app, seeds, query, budget_tokens=1200)
    finally:
        app.close()
    # the chunk the query describes, two hops from a seed, before a long outline one hop away
    assert "def recompute_stale_documents(env):" in answer
