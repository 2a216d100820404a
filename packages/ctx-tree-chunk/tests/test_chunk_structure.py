"""Markdown by heading; JSON, YAML and TOML by top-level key."""

from __future__ import annotations

from ctx_tree_chunk import chunk_bytes

MD = b"""Intro line.

# Install

Run it.

## From source

```sh
# not a heading
make
```

Usage
-----

Text.
"""


def _rows(cf):
    return [(c.symbol, c.kind, c.start_line, c.end_line) for c in cf.chunks]


def test_markdown_sections(check_tiling):
    cf = chunk_bytes(MD, path="README.md")
    check_tiling(cf, MD)
    assert _rows(cf) == [
        (None, "module", 1, 2),
        ("Install", "section", 3, 6),
        ("From source", "section", 7, 13),
        ("Usage", "section", 14, 17),
    ]
    assert {c.chunking for c in cf.chunks} == {"structure"}
    outline = [(s.name, s.kind, s.def_line, s.end_line, s.parent) for s in cf.symbols]
    assert outline == [
        ("Install", "heading", 3, 17, None),
        ("From source", "heading", 7, 12, "Install"),
        ("Usage", "heading", 14, 17, "Install"),  # setext "---" is level 2
    ]


def test_markdown_large_section_is_split(check_tiling):
    data = b"# Big\n\n" + b"".join(b"paragraph %d " % i * 20 + b"\n\n" for i in range(40))
    cf = chunk_bytes(data, path="a.md", max_chunk_tokens=200)
    check_tiling(cf, data)
    assert [c.symbol for c in cf.chunks][:3] == ["Big#1", "Big#2", "Big#3"]


def test_json_top_level_keys(check_tiling):
    data = b'{\n  "name": "x",\n  "scripts": {\n    "a": "b"\n  },\n  "list": [1,\n    2]\n}\n'
    cf = chunk_bytes(data, path="package.json")
    check_tiling(cf, data)
    assert _rows(cf) == [("name", "key", 1, 2), ("scripts", "key", 3, 5), ("list", "key", 6, 8)]
    assert [(s.name, s.def_line, s.end_line) for s in cf.symbols] == [
        ("name", 2, 2),
        ("scripts", 3, 5),
        ("list", 6, 7),
    ]


def test_json_chunk_is_named_for_the_first_key_it_holds(check_tiling):
    # minified: keys share lines; each chunk is named for where it starts, not a later key
    one_line = b'{"meta":{"v":1},"users":[{"id":1}],"settings":{"k":2},"zfinal":true}'
    cf = chunk_bytes(one_line, path="min.json")
    check_tiling(cf, one_line)
    assert _rows(cf) == [("meta", "key", 1, 1)]
    assert [s.name for s in cf.symbols] == ["meta", "users", "settings", "zfinal"]
    two_lines = b'{"a":1,"b":[1,\n2],"c":3,"d":4}\n'
    cf = chunk_bytes(two_lines, path="two.json")
    check_tiling(cf, two_lines)
    assert _rows(cf) == [("a", "key", 1, 1), ("c", "key", 2, 2)]


def test_json_array_falls_back_to_windows():
    cf = chunk_bytes(b"[1, 2, 3]\n", path="a.json")
    assert [(c.kind, c.chunking) for c in cf.chunks] == [("window", "fallback")]
    assert cf.symbols == ()


def test_yaml_top_level_keys(check_tiling):
    data = b"# CI config\nname: ci\n\n# triggers\non:\n  push:\n    branches: [main]\njobs:\n  build:\n    runs-on: ubuntu\n"
    cf = chunk_bytes(data, path="ci.yml")
    check_tiling(cf, data)
    assert _rows(cf) == [("name", "key", 1, 3), ("on", "key", 4, 7), ("jobs", "key", 8, 10)]
    assert [(s.name, s.start_line, s.def_line) for s in cf.symbols] == [
        ("name", 1, 2),
        ("on", 4, 5),
        ("jobs", 8, 8),
    ]


def test_toml_tables_and_keys(check_tiling):
    data = b'title = "x"\ndoc = """\n[not.a.table]\n"""\n\n[project]\nname = "a"\n\n[[tool.items]]\nx = 1\n'
    cf = chunk_bytes(data, path="pyproject.toml")
    check_tiling(cf, data)
    assert _rows(cf) == [
        ("title", "key", 1, 1),
        ("doc", "key", 2, 5),
        ("project", "key", 6, 8),
        ("tool.items", "key", 9, 10),
    ]
