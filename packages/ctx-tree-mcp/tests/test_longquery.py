"""Long-query search (longquery.py, docs/search.md#long-queries): a pasted issue ranks the
file it is about first, one row per file before any file's second chunk, over an index whose
relevant file is the oldest stored (outside a short query's recency window)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ctx_tree_mcp import longquery
from ctx_tree_mcp.app import App
from ctx_tree_mcp.indexer import index_project
from ctx_tree_mcp.tools.search import search

STDLIB = Path(os.__file__).parent

ISSUE = """argparse: add_argument with nargs='?' and a default value ignores the const

When I define a parser with `parser.add_argument('--foo', nargs='?', const='c', default='d')`
and then call `parse_args(['--foo'])`, I expected the namespace to hold 'c'. It seems the
value is sometimes the default instead, depending on whether the option appears in a
mutually exclusive group. This is a problem for our CLI since the user cannot tell. Traceback:

  File "/usr/lib/python3.11/argparse.py", line 1902, in parse_known_args
    namespace, args = self._parse_known_args(args, namespace)
ArgumentError: argument --foo: expected one argument
"""


def test_a_pasted_issue_finds_its_file_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("ctx_tree_store._store.SEARCH_CAP", 50)  # a small window
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(STDLIB / "argparse.py", root / "aaa_argparse.py")  # indexed first: oldest
    for name in ("optparse.py", "getopt.py", "shlex.py", "cmd.py", "configparser.py"):
        shutil.copy(STDLIB / name, root / name)
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)
        assert longquery.is_long(ISSUE) and not longquery.is_long("argparse nargs const")
        terms = longquery.pick_terms(app, ISSUE)
        assert "nargs" in terms and "the" not in terms and "sometimes" not in terms
        answer = search(app, ISSUE, limit=5)
        rows = [ln for ln in answer.splitlines() if ln[:1].isdigit()]
        assert rows[0].split(". ", 1)[1].startswith("aaa_argparse.py:")
        files = [r.split(". ", 1)[1].split(":", 1)[0] for r in rows]
        assert len(set(files)) == len(files)  # one row per file first
        scores = [float(r.split("score=")[1].split()[0]) for r in rows]
        assert scores == sorted(scores, reverse=True)
        # the same words as a short query keep the store's own ranking
        short = search(app, "nargs const", limit=3)
        assert "nargs" in short
    finally:
        app.close()


def test_compose_with_a_query_and_no_seeds_seeds_itself_from_search(tmp_path: Path) -> None:
    import pytest
    from ctx_tree_mcp.errors import ToolInputError
    from ctx_tree_mcp.tools.compose import compose

    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(STDLIB / "argparse.py", root / "aaa_argparse.py")
    shutil.copy(STDLIB / "shlex.py", root / "shlex.py")
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)
        answer = compose(app, query=ISSUE, budget_tokens=2000)
        assert "compose from 5 seed(s)" in answer
        assert "## aaa_argparse.py:" in answer
        with pytest.raises(ToolInputError) as err:
            compose(app, seed_ids=[], budget_tokens=2000)
        assert err.value.argument == "seed_ids"
        with pytest.raises(ToolInputError) as err:
            compose(app, query="zzqqxxvv", budget_tokens=2000)
        assert err.value.argument == "query"
    finally:
        app.close()
