"""ctx_tree_read of a directory: a ranked map (repomap.py): the file the rest of the code
refers to comes first, with its definitions and signature lines, packed into the budget with
a manifest and the call that shows more."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.files.indexer import index_project, record
from ctx_tree_mcp.engines.files.repomap import pagerank
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.read import read


def _project(tmp_path: Path) -> App:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "zz_core.py").write_text(
        "class PriceBook:\n    pass\n\n\ndef compute_total_price(items, tax_rate):\n"
        "    return sum(items) * (1 + tax_rate)\n"
    )
    for name in ("cart.py", "checkout.py", "invoice.py"):
        (root / "pkg" / name).write_text(
            "from .zz_core import compute_total_price, PriceBook\n\n\n"
            f"def {name[:-3]}_handler(items):\n    return compute_total_price(items, 0.2)\n"
        )
    (root / "pkg" / "aa_alone.py").write_text("def lonely_helper():\n    return 1\n")
    return App(root=root, home=tmp_path / "home")


def test_a_directory_read_is_a_ranked_map(tmp_path: Path) -> None:
    app = _project(tmp_path)
    try:
        # as the server and `ctx-tree index` do: the run recorded (else the map says it has
        # not run)
        record(app.store, index_project(app.store, app.root, app.policy, app.config, workers=1))
        answer = read(app, "pkg", budget_tokens=2000)
        lines = answer.splitlines()
        assert lines[0].startswith("map of pkg/: 5 files, ranked")
        assert lines[1].startswith("pkg/zz_core.py (python, 6 lines)")
        assert "  5: def compute_total_price(items, tax_rate):  [3 files]" in lines
        assert answer.index("pkg/zz_core.py") < answer.index("pkg/aa_alone.py")
        assert lines[-1] == "-- ctx-tree: map: all 5 files shown"
        whole = read(app, ".", budget_tokens=2000)
        assert whole.startswith("map of ./: 5 files")
        small = read(app, "pkg", budget_tokens=150)
        assert "left out for the budget" in small and "next: ctx_tree_read(" in small
        assert small.count("\npkg/") < 5
    finally:
        app.close()


def test_a_map_before_the_index_reads_the_directory(tmp_path: Path) -> None:
    app = _project(tmp_path)
    try:
        answer = read(app, "pkg", budget_tokens=2000)
        assert answer.splitlines()[1].startswith("pkg/zz_core.py")
        with pytest.raises(ToolInputError):
            read(app, "../", budget_tokens=2000)
    finally:
        app.close()


def test_pagerank_sums_to_one_and_favours_the_referred() -> None:
    rank = pagerank({"a": {"c": 1.0}, "b": {"c": 1.0}}, ["a", "b", "c"])
    assert abs(sum(rank.values()) - 1) < 1e-9
    assert rank["c"] > rank["a"] == rank["b"]


def test_a_map_before_the_index_says_when_the_directory_holds_more_than_it_read(
    tmp_path: Path,
) -> None:
    from ctx_tree_mcp.engines.files.repomap import LOAD_MAX

    root = tmp_path / "many"
    root.mkdir()
    for i in range(LOAD_MAX + 1):
        (root / f"m{i:03}.py").write_text(f"def f{i}():\n    return {i}\n")
    app = App(root=root, home=tmp_path / "home")
    try:
        answer = read(app, ".", budget_tokens=500)
        assert f"map of ./: {LOAD_MAX} files" in answer
        assert "the project index has not run on this store yet" in answer
        assert "`ctx-tree index`" in answer
    finally:
        app.close()


def test_a_file_deleted_since_the_index_is_not_in_the_map(tmp_path: Path) -> None:
    """No index or walker runs between two CLI calls: the map still leaves out a file gone
    from disk, so it names no path that a read would refuse as missing."""
    app = _project(tmp_path)
    try:
        record(app.store, index_project(app.store, app.root, app.policy, app.config, workers=1))
        (app.root / "pkg" / "invoice.py").unlink()
        answer = read(app, "pkg", budget_tokens=2000)
        assert "invoice.py" not in answer, answer
        assert "pkg/zz_core.py" in answer and "pkg/cart.py" in answer
    finally:
        app.close()


def test_past_its_file_limit_the_map_keeps_source_and_says_how_many_it_ranked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctx_tree_mcp.engines.files import repomap

    app = _project(tmp_path)
    for i in range(3):  # alphabetically first, but docs and vendored code
        (app.root / f"a_notes{i}.md").write_text(f"# Notes {i}\n")
    (app.root / "vendor").mkdir()
    (app.root / "vendor" / "aaa.py").write_text("def vendored_thing():\n    return 0\n")
    monkeypatch.setattr(repomap, "FILES_MAX", 5)  # as 2,000 of a big tree
    try:
        index_project(app.store, app.root, app.policy, app.config, workers=1)
        answer = read(app, ".", budget_tokens=4000)
        assert "map of ./: 5 of 9 files (source first)" in answer
        assert "pkg/zz_core.py" in answer and "a_notes0.md" not in answer
        assert "vendor/aaa.py" not in answer
    finally:
        app.close()


def test_a_directory_with_nothing_to_index_says_so(tmp_path: Path) -> None:
    app = _project(tmp_path)
    (app.root / "emptydir").mkdir()
    (app.root / "assets").mkdir()
    (app.root / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    try:
        record(app.store, index_project(app.store, app.root, app.policy, app.config, workers=1))
        for where in ("emptydir", "assets"):
            answer = read(app, where, budget_tokens=2000)
            assert answer.startswith(f"map of {where}/: no text files under it\n"), answer
            assert "nothing to map or index here" in answer
            assert "ctx-tree index" not in answer  # running it again would change nothing
    finally:
        app.close()
