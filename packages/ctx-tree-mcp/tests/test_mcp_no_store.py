"""A verb that only reads the store creates none: on a project without one it says so."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.cli import main

NODE = "01M8P43WT7F7V6BSB3EFS2282Y"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "argv",
    [
        ["stats"],
        ["recent"],
        ["search", "foo"],
        ["get", NODE],
        ["neighbors", NODE],
        ["path-to-root", NODE],
        ["compose", NODE],
        ["doctor"],
        ["stores"],
    ],
)
def test_a_read_only_verb_leaves_no_store_behind(argv, root, tmp_path, monkeypatch, capsys):
    home = tmp_path / "h"
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    code, out, err = run(capsys, "--root", str(root), *argv)
    assert code == 0, err
    assert not list(home.rglob("store.db*")), list(home.rglob("*"))
    if argv[0] not in ("doctor", "stores"):
        assert out.startswith(f"no store yet for {root}: "), out


def test_bad_arguments_are_named_before_the_missing_store(root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    code, _, err = run(capsys, "--root", str(root), "get", NODE, "--budget", "5")
    assert code == 2 and "--budget: 5 is out of range" in err


def test_with_a_store_the_verbs_answer_as_before(root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    assert run(capsys, "--root", str(root), "note", "retry lives in App.run")[0] == 0
    code, out, _ = run(capsys, "--root", str(root), "search", "retry")
    assert code == 0 and "1 hit" in out
    code, out, _ = run(capsys, "--root", str(root), "stats")
    assert code == 0 and out.startswith("store: ")
