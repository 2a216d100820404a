"""ctx_tree_grep's native-mirroring arguments: ``-A``/``-B`` print what ``rg -A``/``-B`` print,
and ``numbers=false`` prints grep's lines without ``-n``."""

from __future__ import annotations

import asyncio
import subprocess

import pytest
from ctx_tree_mcp.cli.main import main
from ctx_tree_mcp.engines.grep.ripgrep import find_rg
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.grep import grep


def run(app, *args, **kw):
    return asyncio.run(grep(app, *args, budget_tokens=20000, **kw))


def rg(root, *argv: str) -> str:
    return subprocess.run(
        [find_rg(), "--no-config", "--color", "never", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


PATTERN = r"def (raw_decode|decode|__init__)\b"


@pytest.mark.parametrize(
    ("kwargs", "flags"),
    [
        ({"after_context": 3}, ["-A", "3"]),
        ({"before_context": 2}, ["-B", "2"]),
        ({"after_context": 4, "before_context": 1}, ["-A", "4", "-B", "1"]),
        # -A/-B override -C on their side, as in ripgrep
        ({"context_lines": 2, "after_context": 0}, ["-C", "2", "-A", "0"]),
        ({"context_lines": 1, "before_context": 5}, ["-C", "1", "-B", "5"]),
    ],
)
def test_after_and_before_context_print_rgs_lines(app, root, kwargs, flags):
    answer = run(app, PATTERN, path="src/decoder.py", **kwargs)
    assert answer == rg(root, "-n", *flags, PATTERN, "src/decoder.py")  # complete: no manifest
    plain = run(app, PATTERN, path="src/decoder.py", numbers=False, **kwargs)
    assert plain == rg(root, "-N", *flags, PATTERN, "src/decoder.py")


def test_backtracking_engine_takes_after_and_before_context_too(app, root):
    answer = run(app, r"(?<=def )raw_decode\b", path="src/decoder.py", after_context=2)
    body, note = answer.split("-- ctx-tree:")
    assert "regex module" in note
    assert body == rg(root, "-n", "-A", "2", r"def raw_decode\b", "src/decoder.py")


def test_no_numbers_prints_grep_lines_without_n(app, root):
    one = run(app, r"def raw_decode\b", numbers=False)
    assert one == "src/decoder.py:    def raw_decode(self, s, idx=0):\n"  # grep -r, one hit
    many = run(app, r"^class \w+Error", numbers=False)
    listed = sorted(rg(root, "-N", "--no-filename", r"^class \w+Error", "src").splitlines())
    shown = [line for line in many.splitlines() if not line.startswith("src/")]
    assert sorted(shown) == listed and not any(line[:1].isdigit() for line in shown)
    stored = app.store.con.execute(
        "SELECT ctx_text(content) FROM nodes WHERE source_uri LIKE 'grep://%' "
        "ORDER BY rowid DESC LIMIT 1"
    ).fetchone()[0]
    assert stored.startswith("src/")
    assert all(line.split(":")[1].isdigit() for line in stored.splitlines())  # numbers kept


def test_no_numbers_within_a_small_budget_pages_the_stored_lines(app):
    answer = asyncio.run(grep(app, "self", numbers=False, budget_tokens=300))
    body, manifest = answer.split("-- ctx-tree:")
    lines = [line for line in body.splitlines() if line and not line.startswith("src/")]
    assert lines and not any(line.split(":")[0].isdigit() for line in lines)
    assert "offset=" in manifest


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"after_context": 11}, "after_context"),
        ({"before_context": -1}, "before_context"),
    ],
)
def test_bad_context_values_name_the_argument_and_the_fix(app, kwargs, argument):
    with pytest.raises(ToolInputError) as err:
        run(app, "x", **kwargs)
    assert err.value.argument == argument
    assert "0..10" in str(err.value) and "context_lines applies" in str(err.value)


def test_cli_flags_mirror_grep(root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(root)
    main(["grep", PATTERN, "src/decoder.py", "-A", "2", "-B", "1", "--no-numbers"])
    assert capsys.readouterr().out == rg(root, "-N", "-A2", "-B1", PATTERN, "src/decoder.py")
    with pytest.raises(SystemExit) as exc:
        main(["grep", "x", "src", "--after-context", "12"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--after-context" in err and "0..10" in err, err


def test_head_limit_counts_separators_as_head_does(app, root):
    answer = run(app, "def ", path="src/decoder.py", before_context=2, head_limit=5)
    body, manifest = answer.split("-- ctx-tree:")
    native = rg(root, "-n", "-B", "2", "def ", "src/decoder.py").splitlines(keepends=True)
    assert "--\n" in native[:5]  # the case at hand: a separator within the first five lines
    assert body == "".join(native[:5]) and "head_limit 5 shown" in manifest


def test_count_and_files_modes_answer_in_the_shape_asked(app, root) -> None:
    """``grep -c`` / ``-l`` (and SWE-agent's ``search_dir``) get counts or names, not lines:
    the same counts and files rg gives, most matches first."""
    want = {
        line.rsplit(":", 1)[0]: int(line.rsplit(":", 1)[1])
        for line in rg(root, "-c", PATTERN).splitlines()
    }
    counted = run(app, PATTERN, output_mode="count")
    got = {line.rsplit(":", 1)[0]: int(line.rsplit(":", 1)[1]) for line in counted.splitlines()}
    assert got == want
    assert list(got.values()) == sorted(got.values(), reverse=True)
    names = run(app, PATTERN, output_mode="files_with_matches")
    assert sorted(names.splitlines()) == sorted(want)
    assert "def decode" not in counted + names  # no matching line shown


def test_a_count_answer_that_does_not_fit_says_what_is_left(app, root) -> None:
    for i in range(60):
        (root / "src" / f"m{i:02d}.py").write_text("x = 1\n" * (i + 1))
    text = asyncio.run(grep(app, r"^x = 1$", output_mode="count", budget_tokens=150))
    rows = [ln for ln in text.splitlines() if ln.startswith("src/m")]
    assert 0 < len(rows) < 60
    assert rows[0] == "src/m59.py:60"  # most matches first
    assert "not shown: " in text and "ctx_tree_get(" in text
    assert f"{60 - len(rows)} files with" in text


def test_an_unknown_output_mode_is_refused(app) -> None:
    from ctx_tree_mcp.tools.registry import BY_NAME

    with pytest.raises(ToolInputError, match="output_mode"):
        BY_NAME["ctx_tree_grep"].validate({"pattern": "x", "output_mode": "lines"})
