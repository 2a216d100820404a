"""Properties: tiling on real files, no crash on random bytes or mutated sources."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tree_chunk import ChunkError, chunk_bytes, chunk_file, supported_languages

FIXTURES = Path(__file__).parent / "fixtures"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = [
    "argparse.py",
    "typing.py",
    "json/decoder.py",
    "collections/__init__.py",
    "email/message.py",
    "dataclasses.py",
    "asyncio/base_events.py",
    "unittest/case.py",
]
SOURCES = sorted(p for p in FIXTURES.iterdir() if p.is_file())


@pytest.mark.parametrize("rel", STDLIB_FILES)
@pytest.mark.parametrize("budget", [80, 600])
def test_tiling_on_stdlib(rel, budget, check_tiling):
    path = STDLIB / rel
    cf = chunk_file(path, max_chunk_tokens=budget)
    check_tiling(cf, path.read_bytes())
    assert not cf.has_errors
    # chunks stay near the budget unless one line alone is longer
    for c in cf.chunks:
        longest = max(len(line) for line in c.text.splitlines() or [""])
        assert len(c.text) / 4 <= budget * 1.5 or longest / 4 > budget / 3, c.symbol


@given(st.binary(max_size=2000), st.sampled_from([None, *supported_languages()]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_bytes_never_crash(data, language):
    try:
        cf = chunk_bytes(data, language=language, max_chunk_tokens=50)
    except ChunkError:
        return
    assert "".join(c.text for c in cf.chunks) == (
        data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    ).decode("utf-8")


@given(st.text(max_size=500), st.sampled_from(supported_languages()))
@settings(max_examples=150, deadline=None)
def test_random_text_tiles(text, language):
    data = text.replace("\x00", "").encode()
    cf = chunk_bytes(data, language=language, max_chunk_tokens=20)
    assert "".join(c.text for c in cf.chunks) == data.decode()


@st.composite
def mutated_source(draw):
    path = draw(st.sampled_from(SOURCES))
    data = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 8))):
        pos = draw(st.integers(0, len(data)))
        if draw(st.booleans()) and pos < len(data):
            del data[pos : pos + draw(st.integers(1, 40))]
        else:
            data[pos:pos] = draw(
                st.sampled_from(
                    [b"{", b"}", b"(", b"\n", b"def ", b"class X", b'"', b"/*", b"    ", b"end\n"]
                )
            )
    return path.name, bytes(data)


@given(mutated_source(), st.sampled_from([30, 600]))
@settings(max_examples=200, deadline=None)
def test_mutated_sources_still_chunk_and_tile(sample, budget):
    name, data = sample
    try:
        cf = chunk_bytes(data, path=name, max_chunk_tokens=budget)
    except ChunkError:
        return  # a deletion can split a multi-byte character
    text = data.decode()
    assert "".join(c.text for c in cf.chunks) == text
    line = 1
    for c in cf.chunks:
        assert c.start_line == line
        line = c.end_line + 1
    assert line - 1 == cf.total_lines
    for s in cf.symbols:
        assert 1 <= s.start_line <= s.def_line <= s.end_line <= cf.total_lines


def test_all_stdlib_top_level_modules_tile(check_tiling):
    """Every top-level stdlib .py file chunks and tiles (a broad smoke test)."""
    count = 0
    for name in sorted(os.listdir(STDLIB)):
        if name.endswith(".py"):
            data = (STDLIB / name).read_bytes()
            try:
                cf = chunk_bytes(data, path=name)
            except ChunkError:
                continue
            check_tiling(cf, data)
            count += 1
    assert count > 100


@pytest.mark.parametrize("language", supported_languages())
def test_pathological_lines_are_fast(language):
    """Long runs of spaces, brackets or digits must not trigger regex backtracking."""
    import time

    ws = " " * 20000
    data = (
        f'#{ws}x\n{ws}pass\n{"(" * 5000}\n"{ws}":{ws}1\n[{ws}a{ws}]\nk{ws}x\n# a{ws}b\n'
        f"{'1' * 20000}\n{ws}end{ws}\n"
    ).encode()
    t = time.process_time()
    cf = chunk_bytes(data, language=language, max_chunk_tokens=100)
    assert time.process_time() - t < 2.0
    assert "".join(c.text for c in cf.chunks) == data.decode()


def test_deeply_nested_definitions_do_not_crash(check_tiling):
    data = (
        "".join(" " * i + f"def f{i}():\n" for i in range(1500)).encode() + b" " * 1500 + b"pass\n"
    )
    cf = chunk_bytes(data, path="deep.py")
    check_tiling(cf, data)
