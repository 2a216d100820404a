"""File names that are not UTF-8 (policy/names.py, docs/index.md "File names"): the index, the
store, the map, search, read, grep and doctor name them ``%XX`` and never stop on them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.main import main
from ctx_tree_mcp.engines.files.indexer import index_project
from ctx_tree_mcp.policy.names import on_disk, shown

# Latin-1 "café" and a lone continuation byte: neither is UTF-8
LATIN = os.fsdecode(b"caf\xe9_latin.py")
LONE = os.fsdecode(b"odd\x80\xff.md")


def _tree(tmp_path: Path, git: bool) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / LATIN).write_text("def latin_named_function():\n    return 1\n")
    (root / os.fsdecode(b"d\xe8r")).mkdir()
    (root / os.fsdecode(b"d\xe8r") / LONE).write_text("# Oddly named\n\nzebra_marker_word\n")
    (root / "src" / "ok.py").write_text("def plain_function():\n    return 2\n")
    (root / "src" / "100%E9 literal.txt").write_text("percent_literal_word\n")
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_shown_form_round_trips_and_leaves_utf8_alone() -> None:
    assert shown(LATIN) == "caf%E9_latin.py"
    assert shown(LONE) == "odd%80%FF.md"
    assert shown("naïve/日本.py") == "naïve/日本.py"
    assert on_disk(shown(LATIN)) == LATIN and on_disk("naïve.py") == "naïve.py"
    assert shown(LATIN).encode("utf-8")  # storable, and valid in a JSON answer


@pytest.mark.parametrize("git", [True, False])
def test_index_stores_every_file_whatever_its_name(tmp_path: Path, git: bool) -> None:
    root = _tree(tmp_path, git)
    app = App(root=root, home=tmp_path / "home")
    try:
        state = index_project(app.store, root, app.policy, app.config, workers=1)
        assert state.phase == "ready" and state.stored == 4, state
        hits = app.store.search("latin_named_function")
        assert [h.node.metadata["relpath"] for h in hits][:1] == ["src/caf%E9_latin.py"]
        assert app.store.search("zebra_marker_word")[0].node.metadata["relpath"] == (
            "d%E8r/odd%80%FF.md"
        )
        again = index_project(app.store, root, app.policy, app.config, state=state, workers=1)
        assert (again.stored, again.unchanged, again.gone) == (0, 4, 0)
        (root / "src" / LATIN).unlink()
        gone = index_project(app.store, root, app.policy, app.config, workers=1)
        assert gone.gone == 1
        assert all("caf" not in h.node.metadata["relpath"] for h in app.store.search("latin"))
    finally:
        app.close()


def test_cli_read_search_map_grep_and_doctor_name_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, git=True)
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(root)

    def run(*argv: str) -> str:
        try:
            main(list(argv))
        except SystemExit as exc:
            assert not exc.code, capsys.readouterr()
        out = capsys.readouterr()
        assert "internal error" not in out.err and "\ufffd" not in out.out, out
        return out.out

    assert "4 stored" in run("index")
    assert "src/caf%E9_latin.py" in run("search", "latin_named_function")
    assert "src/caf%E9_latin.py" in run("read", "src")
    assert "def latin_named_function" in run("read", "src/caf%E9_latin.py", "--budget", "500")
    assert "percent_literal_word" in run("read", "src/100%E9 literal.txt")
    assert "d%E8r/odd%80%FF.md" in run("grep", "zebra_marker_word")
    assert "4 files live" in run("doctor", "--no-startup")


def test_the_cli_takes_the_real_name_and_grep_a_file_named_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """argv holds a byte that is not UTF-8 as a lone surrogate: read and grep take it as the
    file's name; grep of one such file (or its directory, named %XX) finds its lines."""
    root = _tree(tmp_path, git=False)
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "home"))
    real = "src/" + LATIN  # as a shell passes $'src/caf\xe9_latin.py'
    for argv, want in (
        (["read", real], "def latin_named_function"),
        (["grep", "latin_named", real], "1:def latin_named_function"),
        (["grep", "latin_named", "src/" + shown(LATIN)], "1:def latin_named_function"),
        (["grep", "zebra_marker", "d%E8r"], "zebra_marker_word"),
    ):
        assert main(["--root", str(root), *argv]) in (0, None)
        assert want in capsys.readouterr().out, argv
    # another argument with such a byte: the error says how to write one
    with pytest.raises(SystemExit):
        main(["--root", str(root), "grep", os.fsdecode(b"caf\xe9")])
    assert "%XX (caf%E9.py)" in capsys.readouterr().err
