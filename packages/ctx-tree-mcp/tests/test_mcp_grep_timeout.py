"""A search that stops at ``grep.timeoutMs`` is not an answer: it says that it timed out, what
it searched, and what to do, and the CLI exits 2; the matches it found before are shown. The
ripgrep here is a stand-in that prints what it is told and then hangs, so the timeout is
certain; the ``regex`` fallback's own file listing times out the same way."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.main import main
from ctx_tree_mcp.engines.grep import ripgrep
from ctx_tree_mcp.tools.grep import TIMED_OUT_STATUS, grep
from ctx_tree_mcp.tools.spec import Reply


def _slow_rg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prints: bytes = b"", *, refuses: bool = False
) -> None:
    """``rg`` that prints ``prints`` (for a search; nothing for ``--files``), then hangs;
    ``refuses``: a search is refused as ripgrep refuses look-around (only the listing hangs)."""
    out = tmp_path / "rg-prints"
    out.write_bytes(prints)
    search = (
        "echo 'regex parse error: look-around, including look-ahead and look-behind, is not "
        "supported' >&2; exit 2"
        if refuses
        else f'cat "{out}"'
    )
    script = tmp_path / "slow-rg"
    script.write_text(
        f'#!/bin/sh\ncase " $* " in *" --files "*) ;; *) {search} ;; esac\nexec sleep 30\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(ripgrep, "find_rg", lambda: str(script))


@pytest.fixture
def quick(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"grep": {"timeoutMs": 300}}))
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    app = App(root, home=home)
    yield app
    app.close()


def _says_it_timed_out(text: str, where: str) -> None:
    body = text.split("-- ctx-tree")[0]
    assert not body.startswith("no matches"), text
    assert "timed out" in body or "timed out" in text, text
    assert "300 ms" in text and "grep.timeoutMs" in text, text  # which limit
    assert where in text, text  # what was searched
    assert "raise grep.timeoutMs" in text and "narrow" in text, text  # what to do


def test_a_search_stopped_at_the_timeout_with_nothing_found_is_not_no_matches(
    quick: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_rg(tmp_path, monkeypatch)
    text = _timed_out(asyncio.run(grep(quick, "never printed", path="src")))
    _says_it_timed_out(text, "src")
    stored = quick.store.recent(1, kind="tool_output")[0]
    assert stored.metadata["timed_out"] is True


def test_matches_found_before_the_timeout_are_shown_and_called_incomplete(
    quick: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_rg(tmp_path, monkeypatch, b"src/decoder.py\x0012:found before the stop\n")
    text = _timed_out(asyncio.run(grep(quick, "found", path="src")))
    assert "12:found before the stop" in text
    _says_it_timed_out(text, "src")
    assert "incomplete" in text


def test_the_cli_exits_2_for_a_search_that_timed_out(
    quick: App, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _slow_rg(tmp_path, monkeypatch)
    monkeypatch.chdir(root)
    with pytest.raises(SystemExit) as done:
        main(["grep", "never printed", "src"])
    out = capsys.readouterr().out
    assert done.value.code == 2, out
    _says_it_timed_out(out, "src")


def test_the_regex_fallback_whose_file_listing_times_out_says_so(
    quick: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Look-behind goes to the ``regex`` module over ``rg --files``; that listing hanging
    was an internal error (``TimeoutError``)."""
    _slow_rg(tmp_path, monkeypatch, refuses=True)
    text = _timed_out(asyncio.run(grep(quick, r"(?<=def )\w+", path="src")))
    _says_it_timed_out(text, "src")


def test_the_regex_fallback_says_how_many_files_it_searched_before_the_timeout(
    root: Path, tmp_path: Path
) -> None:
    """The fallback searches file by file, so it can say how far it got (the pattern runs
    away on each of the three files: it never ends within any timeout)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"grep": {"timeoutMs": 3000}}))
    for i in range(3):
        (root / "src" / f"evil{i}.txt").write_text("q" + "a" * 40 + "c\n")
    app = App(root, home=home)
    try:
        text = _timed_out(asyncio.run(grep(app, r"(?<=q)(a|aa)+$", path="src")))
    finally:
        app.close()
    assert "3,000 ms" in text and "grep.timeoutMs" in text
    assert "of 5 files" in text, text
    assert not text.startswith("no matches"), text


def test_a_long_line_whose_match_is_not_found_in_time_says_so() -> None:
    """The excerpt of a long line falls back to its head when finding the matches in it
    takes too long; the head need not hold the match, so the excerpt says so."""
    from ctx_tree_mcp.engines.grep.excerpt import compile_pattern, excerpter

    runaway = compile_pattern(r"(a|aa)+$", ignore_case=False, fixed_strings=False)
    line = "a" * 600 + "b"
    shown = excerpter(lambda: runaway)(line)
    assert shown.endswith("⟨line of 601 chars; match not located in time⟩"), shown
    found = excerpter(lambda: compile_pattern("b", ignore_case=False, fixed_strings=False))
    assert found(line).endswith("b ⟨line of 601 chars⟩")


def _timed_out(answer: str | Reply) -> str:
    """The text of a grep answer that must carry the timed-out exit status (2)."""
    assert isinstance(answer, Reply) and answer.status == TIMED_OUT_STATUS, answer
    return answer.text
