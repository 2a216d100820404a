"""Long-query search (longquery.py, docs/search.md#long-queries): a pasted issue ranks the
file it is about first, at most four chunks per file, over an index whose relevant file is
the oldest stored (outside a short query's recency window)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.files.indexer import index_project
from ctx_tree_mcp.engines.search import longquery
from ctx_tree_mcp.tools.search import search
from ctx_tree_schema import Filters

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
    monkeypatch.setattr("ctx_tree_store._fts.SEARCH_CAP", 50)  # a small window
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(STDLIB / "argparse.py", root / "aaa_argparse.py")  # indexed first: oldest
    for name in ("optparse.py", "getopt.py", "shlex.py", "cmd.py", "configparser.py"):
        shutil.copy(STDLIB / name, root / name)
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)
        assert longquery.is_long(ISSUE) and not longquery.is_long("argparse nargs const")
        terms = longquery.pick_terms(app.store, ISSUE)
        assert "nargs" in terms and "the" not in terms and "sometimes" not in terms
        answer = search(app, ISSUE, limit=5)
        rows = [ln for ln in answer.splitlines() if ln[:1].isdigit()]
        assert rows[0].split(". ", 1)[1].startswith("aaa_argparse.py:")
        files = [r.split(". ", 1)[1].split(":", 1)[0] for r in rows]
        assert max(files.count(f) for f in files) <= longquery.PER_FILE
        assert len(set(files)) >= 2  # other files' best chunks among the first file's
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
        answer = compose(app, query=ISSUE, budget_tokens=4000)
        seeds = int(answer.split("compose from ")[1].split(" seed(s)")[0])
        assert seeds > 5  # the ranking's chunks, not five hits
        headers = [ln for ln in answer.splitlines() if ln.startswith("## ")]
        # packed in the ranking's order: the file's chunks the query names come first
        assert headers[0].startswith("## aaa_argparse.py:")
        assert any("ArgumentParser.parse_known_args " in h for h in headers)
        assert sum(h.startswith("## aaa_argparse.py:") for h in headers) > len(headers) / 2
        with pytest.raises(ToolInputError) as err:
            compose(app, seed_ids=[], budget_tokens=2000)
        assert err.value.argument == "seed_ids"
        with pytest.raises(ToolInputError) as err:
            compose(app, query="zzqqxxvv", budget_tokens=2000)
        assert err.value.argument == "query"
    finally:
        app.close()


def test_code_ranks_before_its_tests_and_the_named_function_is_its_hit(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    shutil.copy(STDLIB / "argparse.py", root / "argparse.py")
    # the test file names every word of the issue, and more often than the code does
    shutil.copy(STDLIB / "test" / "test_argparse.py", root / "tests" / "test_argparse.py")
    for name in ("optparse.py", "getopt.py", "shlex.py"):
        shutil.copy(STDLIB / name, root / name)
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)
        rows = [ln for ln in search(app, ISSUE, limit=5).splitlines() if ln[:1].isdigit()]
        first = rows[0].split(". ", 1)[1]
        assert first.startswith("argparse.py:")
        # its chunk is a function the issue names (a call, a traceback frame), not the
        # chunk with the most of its English words
        assert first.split()[1] in {
            "ArgumentParser.parse_args",
            "ArgumentParser.parse_known_args",
            "ArgumentParser._parse_known_args",
        }
    finally:
        app.close()


def test_urls_and_named_symbols_of_a_query() -> None:
    query = (
        "See https://github.com/python/cpython/issues/1234 and www.example.com/x for more.\n"
        "`HelpFormatter._format_usage()` fails:\n"
        '  File "/usr/lib/python3.11/argparse.py", line 1902, in parse_known_args\n'
    )
    words = longquery.weighted_words(query)
    assert "github" not in words and "cpython" not in words and "example" not in words
    assert "helpformatter" in words and "usage" in words
    named = longquery.named_symbols(query)
    assert {"helpformatter._format_usage", "_format_usage", "parse_known_args"} <= named
    assert "github" not in named


def test_locations_of_a_query() -> None:
    query = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.7/site-packages/marshmallow/schema.py", line 628, in validate\n'
        '  File "/_/bug.py", line 19, in <module>\n'
        "handled at https://github.com/o/r/blob/df05/xarray/coding/variables.py#L311 by us\n"
        "/usr/lib/python3.9/site-packages/xarray/conventions.py:492: SerializationWarning\n"
        "lib/youtube_dl/YoutubeDL.py:796: in extract_info\n"
        "at foo (src/a/b.js:12:5), version 2.20.0, ratio 1.2:3\n"
    )
    got = [(x.path, x.line, x.function, x.frame) for x in longquery.locations(query)]
    assert got == [
        ("/venv/lib/python3.7/site-packages/marshmallow/schema.py", 628, "validate", True),
        ("/_/bug.py", 19, None, True),
        ("xarray/coding/variables.py", 311, None, False),
        ("usr/lib/python3.9/site-packages/xarray/conventions.py", 492, None, False),
        ("lib/youtube_dl/YoutubeDL.py", 796, "extract_info", False),
        ("src/a/b.js", 12, None, False),
    ]


def test_long_runs_in_a_query_leave_its_names_and_locations_as_they_are() -> None:
    """A query with runs of 100k characters (a dotted run, a pasted blob, a path run) next
    to what it names: the names and locations are those of the query without the runs
    (before, each run was read again from each of its characters: minutes)."""
    runs = ["a." * 50_000, "Qx9" * 33_000, "a/" * 50_000, "a_" * 50_000]
    text = (
        "{} see src/app/views.py:42 where `Parser.parse_args()` {} calls "
        "build_fooBar( on 9abc.def and _privateMethod {}\n/usr/lib/x.py:7: in handle {}\n"
    )
    query, short = text.format(*runs), text.format("", "", "", "")
    got = [(x.path, x.line, x.function) for x in longquery.locations(query)]
    assert got == [("src/app/views.py", 42, None), ("usr/lib/x.py", 7, "handle")]
    named = longquery.named_symbols(query)
    assert {"parser.parse_args", "parse_args", "build_foobar", "privatemethod"} <= named
    words, short_words = longquery.weighted_words(query), longquery.weighted_words(short)
    for word in ("parser", "parse_args", "build_foobar", "abc", "privatemethod"):
        assert words[word] == short_words[word] > 1, word  # an identifier's word: 2 or more


def _line_of(path: Path, text: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if text in ln)


def test_a_traceback_frame_and_a_line_link_name_their_chunks(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("argparse.py", "optparse.py", "getopt.py", "shlex.py"):
        shutil.copy(STDLIB / name, root / name)
    src = root / "argparse.py"
    check = _line_of(src, "def _check_value(") + 3
    values = _line_of(src, "def _get_values(") + 5
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)

        def argparse_hits(query: str) -> list[str]:
            rows = [ln for ln in search(app, query, limit=10).splitlines() if ln[:1].isdigit()]
            return [r.split(". ", 1)[1].split()[1] for r in rows if ". argparse.py:" in r]

        # the innermost frame (most recent call last) is where the error was raised: its
        # chunk is the file's first, above the chunks holding more of the issue's words
        trace = ISSUE.replace(
            "ArgumentError:",
            f'  File "/usr/lib/python3.11/argparse.py", line {check + 7}, in _check_value\n'
            "    raise ArgumentError(action, msg % args)\nArgumentError:",
        )
        assert argparse_hits(trace)[0] == "ArgumentParser._check_value"
        # a link to a line of the file: the chunk holding that line (a function no word names)
        plain = ISSUE.split(" Traceback:")[0]
        link = plain + (
            f"\nThe values are converted at https://github.com/python/cpython/blob/3.11/"
            f"Lib/argparse.py#L{values} before the check.\n"
        )
        assert argparse_hits(link)[0] == "ArgumentParser._get_values"
        assert argparse_hits(plain)[0] != "ArgumentParser._get_values"
    finally:
        app.close()


def test_a_files_chunks_are_told_apart_by_the_words_few_of_them_hold() -> None:
    # three chunks of one file: "widget" is in every one (the module's theme), and the
    # short header holds it densely; "overflow" is in one chunk only
    in_file = {
        1: [("widget", 9.0)],  # a three-line class header: the theme word, dense
        2: [("widget", 4.0), ("overflow", 3.0)],
        3: [("widget", 5.0)],
    }
    group = [(9.0, 1, "header"), (7.0, 2, "resize"), (5.0, 3, "draw")]
    order = longquery._in_file_order(group, in_file, set(), chunk_count=3)
    assert [nid for _s, _r, nid in order] == ["resize", "header", "draw"]
    assert order[-1][0] < 0.2 * order[0][0]  # a word each chunk holds weighs next to nothing
    # in a file of 10 chunks the theme word says more; a chunk the query names counts
    # NAMED_FACTOR within its file too
    order = longquery._in_file_order(group, in_file, set(), chunk_count=10)
    assert [nid for _s, _r, nid in order] == ["resize", "header", "draw"]
    order = longquery._in_file_order(group, in_file, {3}, chunk_count=10)
    assert order[0][2] == "draw"


def test_a_file_far_ahead_shows_more_of_its_chunks(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("argparse.py", "optparse.py", "getopt.py", "shlex.py", "cmd.py"):
        shutil.copy(STDLIB / name, root / name)
    app = App(root=root, home=tmp_path / "home")
    try:
        index_project(app.store, root, app.policy, app.config, workers=1)
        ranking = longquery.rank(app.store, ISSUE, Filters())
        weights = ranking.weights()
        first, second = (k for _s, k in ranking.files[:2])
        assert weights[first] == 1.0 and weights[second] < 0.8  # scores keep the lead
        rows = [ln for ln in search(app, ISSUE, limit=10).splitlines() if ln[:1].isdigit()]
        files = [r.split(". ", 1)[1].split(":", 1)[0] for r in rows]
        assert files.count("argparse.py") == longquery.PER_FILE == 4
        assert len(set(files)) >= 3
    finally:
        app.close()


def test_template_comments_and_package_listings_are_not_the_querys_words() -> None:
    query = (
        "Dynamically adding xfail marker no longer ignores failure\n"
        "<!--\nThanks for submitting an issue! Here's a quick checklist\n-->\n"
        "$ pip list\n"
        "aioftp                        0.13.0\n"
        "atomicwrites                  1.3.0\n"
        "pytest    6.0.0rc2.dev33+g7f7a36478  /Users/x/pytest\n"
        "numpy==1.19.2\n"
        "The value 1.5 of `request.node.add_marker` is ignored\n"
    )
    words = longquery.weighted_words(query)
    assert {"xfail", "add_marker", "ignored", "value"} <= set(words)
    assert not {"thanks", "checklist", "aioftp", "atomicwrites", "numpy"} & set(words)
