"""ctx_tree_read contract: modes, budgets, manifest, cache, truncation, errors."""

from __future__ import annotations

import ast
import os
import re

import pytest
from answers import call_tool
from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.read import read


def _gold(path, qual):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and f"{node.name}.{fn.name}" == qual:
                    return fn.lineno, fn.end_lineno
    raise AssertionError(qual)


@pytest.mark.parametrize(
    "symbol", ["JSONDecoder.raw_decode", "raw_decode", "jsondecoder.RAW_DECODE"]
)
def test_symbol_forms_return_the_symbol_lines(app, root, symbol):
    src = root / "src" / "decoder.py"
    start, end = _gold(src, "JSONDecoder.raw_decode")
    lines = src.read_text().splitlines()
    text = read(app, "src/decoder.py", symbol=symbol, budget_tokens=800)
    assert tokens(text) <= 800
    for n in range(start, end + 1):
        assert f"{n}\t{lines[n - 1]}\n" in text


def test_unknown_symbol_suggests_nearest(app):
    with pytest.raises(ToolInputError, match="raw_decode") as err:
        read(app, "src/decoder.py", symbol="raw_decod")
    assert err.value.argument == "symbol"


@pytest.mark.parametrize("budget", [100, 150, 300, 700, 2000])
def test_budget_is_never_exceeded_in_any_mode(app, budget):
    for kw in (
        {},
        {"symbol": "ArgumentParser"},
        {"query": "parse args namespace"},
        {"start_line": 1, "end_line": 2000},
    ):
        assert tokens(read(app, "src/argparse_copy.py", budget_tokens=budget, **kw)) <= budget


def test_truncated_range_names_the_next_call(app, root):
    text = read(app, "src/argparse_copy.py", start_line=100, end_line=900, budget_tokens=500)
    m = re.search(
        r'ctx_tree_read\(path="src/argparse_copy.py", start_line=(\d+), end_line=\d+\)', text
    )
    assert m
    nxt = int(m.group(1))
    assert "900\t" in text  # the range's tail is shown; next reads the lines between
    assert f"{nxt - 1}\t" in text and f"\n{nxt}\t" not in text
    following = read(app, "src/argparse_copy.py", start_line=nxt, end_line=900, budget_tokens=500)
    assert following.startswith(f"{nxt}\t")


def test_a_range_cut_by_the_budget_shows_its_head_and_its_tail(app, root):
    """A range longer than the budget shows its first lines, a marker naming the lines left
    out, and its last lines (up to a quarter of the room); ``next`` reads exactly the gap, so
    head, gap and tail together are the range."""
    lines = (root / "src" / "argparse_copy.py").read_text().split("\n")
    text = read(app, "src/argparse_copy.py", start_line=100, end_line=400, budget_tokens=800)
    assert tokens(text) <= 800
    gap = re.search(r"^…\t\(lines (\d+)-(\d+) not shown\)$", text, re.M)
    assert gap, text[-400:]
    lo, hi = int(gap.group(1)), int(gap.group(2))
    assert 100 < lo <= hi < 400
    body = text[: text.index("\n-- ctx-tree:") + 1]
    head, tail = body.split(gap.group(0) + "\n")
    assert head == "".join(f"{n}\t{lines[n - 1]}\n" for n in range(100, lo))
    assert tail == "".join(f"{n}\t{lines[n - 1]}\n" for n in range(hi + 1, 401))
    assert tokens(tail) <= 800 // 4 < tokens(head)
    assert f"truncated: lines {lo}-{hi} not shown" in text
    assert (
        f'next: ctx_tree_read(path="src/argparse_copy.py", start_line={lo}, end_line={hi})' in text
    )
    middle = read(app, "src/argparse_copy.py", start_line=lo, end_line=hi, budget_tokens=50_000)
    assert middle == "".join(f"{n}\t{lines[n - 1]}\n" for n in range(lo, hi + 1))


def test_outline_lists_every_symbol_with_its_signature_and_next_reads_a_symbol(app):
    text = read(app, "src/argparse_copy.py", budget_tokens=4000)
    assert tokens(text) <= 4000
    assert "## outline" in text and not re.search(r"[0-9A-Z]{26}", text.split("-- ctx-tree")[0])
    m = re.search(
        r"^(\d+)-(\d+) class ArgumentParser\(_AttributeHolder, _ActionsContainer\)( — .*)?$",
        text,
        re.M,
    )
    assert m, text
    # nested definitions are listed too, indented under their class, with their parameters
    assert re.search(
        r"^  \d+-\d+ def parse_known_args\(self, args=None, namespace=None\)", text, re.M
    )
    nxt = re.search(
        r'^next: ctx_tree_read\(path="src/argparse_copy.py", symbol="([\w.]+)"\)$', text, re.M
    )
    assert nxt, text
    page = read(app, "src/argparse_copy.py", symbol="ArgumentParser", budget_tokens=400)
    assert f"L{m.group(1)}-{m.group(2)}" in page and tokens(page) <= 400


def test_query_puts_the_best_chunk_first(app):
    text = read(app, "src/decoder.py", query="scanstring unicode escape", budget_tokens=1500)
    first = re.search(r"^## L\d+-\d+ (\S+)", text, re.M)
    assert first and first.group(1) in ("py_scanstring", "_decode_uXXXX")


def test_argument_errors_name_the_argument(app, root):
    cases = [
        ({"symbol": "x", "query": "y"}, "query"),
        ({"start_line": 0}, "start_line"),
        ({"start_line": 10, "end_line": 5}, "end_line"),
        ({"start_line": 100000}, "start_line"),
        ({"budget_tokens": 10}, "budget_tokens"),
        ({"budget_tokens": 10**9}, "budget_tokens"),
    ]
    for kwargs, argument in cases:
        with pytest.raises(ToolInputError) as err:
            call_tool(app, "ctx_tree_read", path="src/decoder.py", **kwargs)
        assert err.value.argument == argument, kwargs


def test_binary_file_is_refused_without_rows(app, root):
    (root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(ToolInputError, match="binary"):
        read(app, "blob.bin")
    assert sum(c for c, _ in app.store.counts().values()) == 0


def test_unchanged_file_is_served_from_the_store_and_changed_file_supersedes(app, root):
    first = read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    chunks = app.store.counts()
    again = read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    assert first == again and "-- ctx-tree" not in first  # the whole symbol: nothing more
    assert app.store.counts() == chunks  # nothing re-stored
    src = root / "src" / "decoder.py"
    src.write_text(
        src.read_text().replace(
            "def decode(self, s, _w=WHITESPACE.match):",
            "def decode(self, s, _w=WHITESPACE.match):  # edited",
        )
    )
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    changed = read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    assert "# edited" in changed
    counts = app.store.counts()
    assert counts[("file_chunk", "superseded")][0] > 0
    roots = [n for n in app.store.recent(limit=50, filters=None) if n.metadata.get("is_file_root")]
    new_root = roots[0]
    edges = app.store.adjacent(new_root.id, direction="out")
    assert any(via == "supersedes:out" for _, via in edges)


def test_deleted_file_is_an_error_and_marks_nodes_stale(app, root):
    read(app, "src/decoder.py")
    (root / "src" / "decoder.py").unlink()
    with pytest.raises(ToolInputError, match="does not exist"):
        read(app, "src/decoder.py")
    assert app.store.counts()[("file_chunk", "stale")][0] > 0


def test_large_file_is_stored_truncated_and_says_so(root, tmp_path):
    from ctx_tree_mcp.app import App

    home = tmp_path / "h2"
    home.mkdir()
    (home / "config.json").write_text('{"capture": {"maxFileBytes": 2000}}')
    app = App(root, home=home)
    text = read(app, "src/argparse_copy.py", budget_tokens=3000)
    assert "stored truncated" in text
    node = app.store.latest_by_source(
        "file://" + str((root / "src" / "argparse_copy.py").resolve())
    )
    assert (
        node.truncated and node.original_bytes == (root / "src" / "argparse_copy.py").stat().st_size
    )
    app.close()


def test_a_file_stored_in_part_is_never_counted_as_its_stored_part(root, tmp_path):
    """Past capture.maxBytes the head said 'argparse_copy.py · 60 lines' and the tokens line
    'of 683 in file' for a file of thousands of lines: both count what is stored, so they say
    so, with the file's size."""
    import re

    from ctx_tree_mcp.app import App

    home = tmp_path / "h3"
    home.mkdir()
    (home / "config.json").write_text('{"capture": {"maxFileBytes": 2000}}')
    app = App(root, home=home)
    size = (root / "src" / "argparse_copy.py").stat().st_size
    try:
        for text in (
            read(app, "src/argparse_copy.py", budget_tokens=3000),
            read(app, "src/argparse_copy.py", start_line=1, end_line=5),
        ):
            head = re.search(r"^-- ctx-tree: (.*)$", text, re.M).group(1)
            assert re.match(
                rf"src/argparse_copy\.py · \d+ lines stored of {size:,} bytes, [\d,]+t, stored truncated",
                head,
            )
    finally:
        app.close()


@pytest.mark.parametrize("filler", ["x", "é"])
def test_a_one_line_file_over_max_bytes_is_cut_whole_characters_after_redaction(
    root, tmp_path, filler
):
    """Minified code over capture.maxBytes has no line end to cut at: the cut fell inside a
    character ('not UTF-8 text', so it was refused) or inside a key, kept in part unredacted."""
    from ctx_tree_mcp.app import App

    home = tmp_path / "h4"
    home.mkdir()
    (home / "config.json").write_text('{"capture": {"maxFileBytes": 2000}}')
    key = "AIza" + "SyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R"
    # "x": the key starts 10 bytes before the cut at 2,000; "é": the cut falls inside a 2-byte é
    lead = 1990 - len('{"pad": "') - len('", "apiKey": "') if filler == "x" else 1000
    text = '{"pad": "' + filler * lead + '", "apiKey": "' + key + '", "more": "' + "y" * 500 + '"}'
    (root / "bundle.min.js").write_text(text)
    app = App(root, home=home)
    try:
        answer = read(app, "bundle.min.js", start_line=1, end_line=1, budget_tokens=3000)
        assert "stored truncated" in answer
        stored = "".join(
            c.content
            for c in app.store.children(
                app.store.latest_by_source("file://" + str((root / "bundle.min.js").resolve())).id
            )
        )
        assert key[4:10] not in stored and key[4:10] not in answer
    finally:
        app.close()


def test_secrets_in_files_are_redacted_before_insert_and_in_answers(app, root):
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    (root / "settings.py").write_text(f'AWS_KEY = "{key}"\n\ndef f():\n    return 1\n')
    text = read(app, "settings.py")
    assert key not in text and "[REDACTED:aws_access_key]" in text
    dump = app.store.con.execute("SELECT group_concat(ctx_text(content), '') FROM nodes").get
    assert key not in dump


def test_usage_counters_reach_the_store_in_batches_and_at_close(root, tmp_path):
    from ctx_tree_mcp.app import COUNTER_FLUSH_CALLS, App
    from ctx_tree_store import Store

    app = App(root, home=tmp_path / "counters")
    read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    assert app.store.counters().get("reads", 0) == 0  # kept in memory: no write per call
    for _ in range(COUNTER_FLUSH_CALLS - 1):
        read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    assert app.store.counters()["reads"] == COUNTER_FLUSH_CALLS
    read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    path = app.store_file
    app.close()
    with Store.open(path) as store:
        assert store.counters()["reads"] == COUNTER_FLUSH_CALLS + 1


def test_a_range_is_exactly_its_lines_and_plain_when_asked(app, root):
    """``--lines A:B`` is lines A..B, the last included, nothing added when they all fit (it
    was widened to whole chunks, with a manifest); ``numbers=False`` prints them as
    ``sed -n 'A,Bp'`` does."""
    lines = (root / "src" / "argparse_copy.py").read_text().split("\n")
    for first, last in [(341, 400), (1, 1), (2000, 2017), (17, 18)]:
        text = read(app, "src/argparse_copy.py", start_line=first, end_line=last)
        want = "".join(f"{n}\t{lines[n - 1]}\n" for n in range(first, last + 1))
        assert text == want, (first, last)
        plain = read(app, "src/argparse_copy.py", start_line=first, end_line=last, numbers=False)
        assert plain == "".join(f"{lines[n - 1]}\n" for n in range(first, last + 1))
    cut = read(app, "src/argparse_copy.py", start_line=1, end_line=900, numbers=False)
    assert re.search(r"^next: ctx_tree_read\(.*, numbers=false\)$", cut, re.M), cut[-300:]


def test_a_small_whole_file_is_its_numbered_lines_alone(app, root):
    (root / "tiny.py").write_text("a = 1\nb = 2\n")
    assert read(app, "tiny.py") == "1\ta = 1\n2\tb = 2\n"
    assert read(app, "tiny.py", numbers=False) == "a = 1\nb = 2\n"


def test_a_big_whole_read_shows_the_outline_the_top_and_the_end(app, root):
    """A whole read of a big file is a map: every symbol, then the top and the end of the
    file (it showed only the top, and its next paged on from there)."""
    lines = (root / "src" / "decoder.py").read_text().split("\n")
    if lines[-1] == "":
        lines.pop()
    text = read(app, "src/decoder.py", budget_tokens=1500)
    assert tokens(text) <= 1500
    assert re.search(r"^\d+-\d+ class JSONDecoder\(object\)", text, re.M), text
    assert "1\t" in text and f"{len(lines)}\t{lines[-1]}\n" in text
    assert re.search(r'^next: ctx_tree_read\(path="src/decoder.py", symbol="[\w.]+"\)$', text, re.M)


def test_a_big_whole_read_shares_its_room_between_the_top_and_the_end(app, root):
    """The room after the outline goes to the top and the end of the file in about equal
    shares (the top took chunks while each cost under half the room left, so a file of many
    small definitions showed its first half and only the last one or two of its end)."""
    funcs = [
        f"def step_{i:02d}(state):\n    value = state.get('k{i}', {i})\n"
        f"    state['k{i}'] = value + helper_{i:02d}(value)\n    return state\n"
        for i in range(60)
    ]
    (root / "steps.py").write_text("\n\n".join(funcs))
    text = read(app, "steps.py", budget_tokens=2000)
    assert tokens(text) <= 2000
    top = [i for i in range(60) if f"helper_{i:02d}(value)" in text]
    assert 0 in top and 59 in top
    firsts = [i for i in top if i < 30]
    lasts = [i for i in top if i >= 30]
    assert len(lasts) >= 5 and abs(len(firsts) - len(lasts)) <= 3, top


@pytest.mark.parametrize("lines", [(1, 2), (1, None)])
def test_a_line_range_of_an_empty_file_is_the_empty_file(app, root, lines):
    """No ``not shown: lines 1-0`` and no ``next`` reading lines 1:0 (a range that ends before
    it starts): the answer is what a whole read of the empty file is."""
    (root / "empty.py").write_text("")
    whole = read(app, "empty.py")
    text = read(app, "empty.py", start_line=lines[0], end_line=lines[1])
    assert text == whole
    assert "1-0" not in text and "next" not in text
    with pytest.raises(ToolInputError, match="past the end") as err:
        read(app, "empty.py", start_line=2)
    assert err.value.argument == "start_line"
