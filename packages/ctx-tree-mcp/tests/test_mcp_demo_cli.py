"""``ctx-tree demo`` on a real tree: a table of native vs returned tokens and a summary."""

from __future__ import annotations

import re

import pytest
from ctx_tree_mcp.cli.main import main


def test_demo_reports_savings_on_real_sources(root, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "untouched"))
    main(["demo", str(root), "--files", "2"])
    out = capsys.readouterr().out
    assert "read symbol=" in out and "read query=" in out and "grep " in out
    m = re.search(
        r"ctx-tree returned ([\d,]+) tokens where native Read/rg would have returned ([\d,]+)", out
    )
    assert m
    returned, native = (int(g.replace(",", "")) for g in m.groups())
    assert 0 < returned < native
    assert not (tmp_path / "untouched").exists()  # the demo used a temporary store


def test_cli_argument_errors_exit_2_and_name_the_argument(root, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.chdir(root)
    with pytest.raises(SystemExit) as exc:
        main(["read", ".env"])
    assert exc.value.code == 2
    assert "PATH:" in capsys.readouterr().err


def test_demo_files_below_one_is_an_argument_error(root, capsys, monkeypatch, tmp_path):
    """--files 0 used to answer "no source files under ..." about a tree that has them."""
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    with pytest.raises(SystemExit) as exc:
        main(["demo", str(root), "--files", "0"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--files" in err and "no source files" not in err


def test_demo_search_row_shows_where_the_best_hit_points(root, capsys, monkeypatch, tmp_path):
    """The search row's target is the start of the best hit's label (cut at its end), not a
    slice cut from the left ("…ns\\b' in . (32 matches) tool_output [pendi")."""
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    main(["demo", str(root), "--files", "1"])
    out = capsys.readouterr().out
    (row,) = [ln for ln in out.splitlines() if ln.startswith("search ")]
    target = row.split("'", 2)[2].split("  ")[1:]
    target = next(t.strip() for t in target if t.strip())
    assert not target.startswith("…") and "[pendi" not in row, row


def test_demo_reads_the_project_own_sources_not_vendored_or_minified_ones(tmp_path):
    from ctx_tree_mcp.cli.demo import _largest_sources

    own = tmp_path / "src" / "app.py"
    own.parent.mkdir()
    own.write_text("def handler():\n    return 1\n" * 50)
    for rel in ("static/vendor/chart.js", "static/chart.umd.min.js", "third_party/lib.py"):
        big = tmp_path / rel
        big.parent.mkdir(parents=True, exist_ok=True)
        big.write_text("x = 1\n" * 5000)
    assert _largest_sources(tmp_path, 3) == [own]
