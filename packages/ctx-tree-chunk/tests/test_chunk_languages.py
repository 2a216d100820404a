"""Per-language fixtures: the outline (name, kind, start, def, end, parent) and chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_tree_chunk import chunk_bytes, chunk_file

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED = {
    "Sample.java": [
        ("UserRepository", "class", 6, 9, 27, None),
        ("UserRepository.UserRepository", "method", 12, 12, 14, "UserRepository"),
        ("UserRepository.find", "method", 16, 18, 20, "UserRepository"),
        ("UserRepository.Listener", "interface", 22, 22, 24, "UserRepository"),
        ("UserRepository.Listener.onChange", "method", 23, 23, 23, "UserRepository.Listener"),
        ("UserRepository.Status", "enum", 26, 26, 26, "UserRepository"),
    ],
    "sample.c": [
        ("buffer_t", "struct", 4, 5, 8, None),
        ("node", "struct", 10, 10, 12, None),
        ("color", "enum", 14, 14, 14, None),
        ("buf_append", "function", 16, 18, 23, None),
        ("buf_data", "function", 25, 25, 27, None),
        ("main", "function", 29, 29, 31, None),
    ],
    "sample.cpp": [
        ("geo", "module", 4, 4, 26, None),
        ("geo.Point", "class", 6, 7, 17, "geo"),
        ("geo.Point.Point", "method", 9, 9, 9, "geo.Point"),
        ("geo.Point.norm", "method", 11, 11, 13, "geo.Point"),
        ("geo.Box", "struct", 19, 20, 22, "geo"),
        ("geo.Point.translate", "function", 28, 28, 30, None),
        ("main", "function", 32, 32, 34, None),
    ],
    "sample.cs": [
        ("Shop.Orders", "module", 4, 4, 35, None),
        ("Shop.Orders.Order", "class", 6, 7, 22, "Shop.Orders"),
        ("Shop.Orders.Order.Order", "method", 11, 11, 14, "Shop.Orders.Order"),
        ("Shop.Orders.Order.Total", "method", 16, 18, 21, "Shop.Orders.Order"),
        ("Shop.Orders.IOrderStore", "interface", 24, 24, 27, "Shop.Orders"),
        ("Shop.Orders.IOrderStore.Get", "method", 26, 26, 26, "Shop.Orders.IOrderStore"),
        ("Shop.Orders.Money", "struct", 29, 29, 32, "Shop.Orders"),
        ("Shop.Orders.Status", "enum", 34, 34, 34, "Shop.Orders"),
    ],
    "sample.go": [
        ("Command", "struct", 8, 9, 12, None),
        ("Runner", "interface", 15, 16, 18, None),
        ("Alias", "type", 19, 19, 19, None),
        ("Command.Execute", "method", 22, 23, 25, "Command"),
        ("Command.Name", "method", 27, 27, 30, "Command"),
        ("NoArgs", "function", 32, 33, 38, None),
    ],
    "sample.js": [
        ("loadConfig", "function", 4, 7, 10, None),
        ("Cache", "class", 12, 12, 25, None),
        ("Cache.constructor", "method", 13, 13, 15, "Cache"),
        ("Cache.get", "method", 17, 18, 20, "Cache"),
        ("Cache.keys", "method", 22, 22, 24, "Cache"),
        ("double", "function", 27, 27, 27, None),
        ("triple", "function", 29, 29, 31, None),
    ],
    "sample.kt": [
        ("Order", "class", 5, 6, 15, None),
        ("Order.total", "method", 7, 8, 10, "Order"),
        ("Order.empty", "method", 13, 13, 13, "Order"),
        ("Registry", "class", 17, 17, 21, None),
        ("Registry.register", "method", 18, 18, 20, "Registry"),
        ("main", "function", 23, 23, 25, None),
    ],
    "sample.php": [
        ("User", "class", 7, 10, 23, None),
        ("User.name", "method", 14, 14, 17, "User"),
        ("User.find", "method", 19, 19, 22, "User"),
        ("HasName", "interface", 25, 25, 28, None),
        ("HasName.name", "method", 27, 27, 27, "HasName"),
        ("Greets", "trait", 30, 30, 36, None),
        ("Greets.greet", "method", 32, 32, 35, "Greets"),
        ("helper", "function", 38, 38, 41, None),
    ],
    "sample.py": [
        ("Session", "class", 8, 10, 27, None),
        ("Session.__init__", "method", 15, 15, 16, "Session"),
        ("Session.request", "method", 18, 20, 24, "Session"),
        ("Session.request.build", "function", 21, 21, 22, "Session.request"),
        ("Session.close", "method", 26, 26, 27, "Session"),
        ("helper", "function", 30, 30, 31, None),
    ],
    "sample.rb": [
        ("Shop", "module", 4, 4, 22, None),
        ("Shop.Order", "class", 5, 6, 21, "Shop"),
        ("Shop.Order.initialize", "method", 9, 9, 11, "Shop.Order"),
        ("Shop.Order.to_json", "method", 13, 14, 16, "Shop.Order"),
        ("Shop.Order.load", "method", 18, 18, 20, "Shop.Order"),
        ("helper", "function", 24, 24, 26, None),
    ],
    "sample.rs": [
        ("Bytes", "struct", 3, 5, 7, None),
        ("impl Bytes", "impl", 9, 9, 18, None),
        ("Bytes.new", "method", 10, 11, 13, "impl Bytes"),
        ("Bytes.len", "method", 15, 15, 17, "impl Bytes"),
        ("impl fmt::Display for Bytes", "impl", 20, 20, 24, None),
        ("Bytes.fmt", "method", 21, 21, 23, "impl fmt::Display for Bytes"),
        ("Buf", "trait", 26, 26, 32, None),
        ("Buf.remaining", "method", 27, 27, 27, "Buf"),
        ("Buf.has_remaining", "method", 29, 29, 31, "Buf"),
        ("Kind", "enum", 34, 34, 37, None),
        ("tests", "module", 39, 39, 44, None),
        ("tests.it_works", "function", 40, 41, 43, "tests"),
        ("square", "macro", 46, 46, 50, None),
    ],
    "sample.sh": [
        ("usage", "function", 4, 5, 7, None),
        ("main", "function", 9, 9, 12, None),
    ],
    "sample.swift": [
        ("Shape", "interface", 3, 4, 6, None),
        ("Shape.area", "method", 5, 5, 5, "Shape"),
        ("Circle", "struct", 8, 8, 18, None),
        ("Circle.init", "method", 11, 11, 13, "Circle"),
        ("Circle.area", "method", 15, 15, 17, "Circle"),
        ("Canvas", "class", 20, 20, 27, None),
        ("Canvas.add", "method", 23, 24, 26, "Canvas"),
        ("extension Canvas", "impl", 29, 29, 33, None),
        ("Canvas.clear", "method", 30, 30, 32, "extension Canvas"),
        ("Unit", "enum", 35, 35, 38, None),
        ("total", "function", 40, 40, 42, None),
    ],
    "sample.ts": [
        ("Observer", "interface", 4, 5, 9, None),
        ("Observer.error", "method", 7, 8, 8, "Observer"),
        ("Callback", "type", 11, 11, 11, None),
        ("Color", "enum", 13, 13, 16, None),
        ("Scheduler", "class", 18, 18, 27, None),
        ("Scheduler.constructor", "method", 21, 21, 21, "Scheduler"),
        ("Scheduler.schedule", "method", 23, 24, 26, "Scheduler"),
        ("throwError", "function", 29, 29, 34, None),
        ("isOnline", "function", 36, 36, 38, None),
        ("Util", "module", 40, 40, 42, None),
        ("Util.noop", "function", 41, 41, 41, "Util"),
    ],
    "sample.tsx": [
        ("Props", "interface", 3, 3, 5, None),
        ("Header", "function", 7, 8, 10, None),
        ("Footer", "function", 12, 12, 12, None),
        ("Page", "class", 14, 14, 22, None),
        ("Page.render", "method", 15, 15, 21, "Page"),
    ],
}

LANGUAGE = {
    "Sample.java": "java",
    "sample.c": "c",
    "sample.cpp": "cpp",
    "sample.cs": "csharp",
    "sample.go": "go",
    "sample.js": "javascript",
    "sample.kt": "kotlin",
    "sample.php": "php",
    "sample.py": "python",
    "sample.rb": "ruby",
    "sample.rs": "rust",
    "sample.sh": "bash",
    "sample.swift": "swift",
    "sample.ts": "typescript",
    "sample.tsx": "tsx",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_outline(name, check_tiling):
    path = FIXTURES / name
    cf = chunk_file(path)
    assert cf.language == LANGUAGE[name]
    assert not cf.has_errors
    got = [(s.name, s.kind, s.start_line, s.def_line, s.end_line, s.parent) for s in cf.symbols]
    assert got == EXPECTED[name]
    check_tiling(cf, path.read_bytes())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_leaf_symbol_has_its_own_chunk(name):
    """Each method / top-level function starts a chunk at its start_line (doc comments,
    decorators and attributes included)."""
    cf = chunk_file(FIXTURES / name)
    starts = {(c.symbol, c.start_line) for c in cf.chunks}
    by_name = {s.name: s for s in cf.symbols}
    for s in cf.symbols:
        parent = by_name.get(s.parent) if s.parent else None
        nested_in_function = parent is not None and parent.kind in ("function", "method")
        if s.kind in ("function", "method") and not nested_in_function:
            assert (s.name, s.start_line) in starts, s


def test_python_chunks():
    cf = chunk_file(FIXTURES / "sample.py")
    got = [(c.symbol, c.kind, c.start_line, c.end_line) for c in cf.chunks]
    assert got == [
        (None, "imports", 1, 4),
        (None, "module", 5, 7),
        ("Session", "class", 8, 14),
        ("Session.__init__", "method", 15, 17),
        ("Session.request", "method", 18, 25),
        ("Session.close", "method", 26, 29),
        ("helper", "function", 30, 33),
        (None, "module", 34, 35),
    ]
    request = cf.chunks[4].text
    assert request.startswith("    # Send a request.\n    @retry(3)\n    def request(")
    assert "def build():" in request  # closures stay inside their parent chunk


def test_class_closing_brace_merges_into_last_method():
    cf = chunk_file(FIXTURES / "sample.js")
    keys = next(c for c in cf.chunks if c.symbol == "Cache.keys")
    assert keys.text.endswith("  }\n}\n\n")
    assert keys.end_line == 26
    assert [c.symbol for c in cf.chunks].count("Cache") == 1


def test_go_methods_and_doc_comments():
    cf = chunk_file(FIXTURES / "sample.go")
    ex = next(c for c in cf.chunks if c.symbol == "Command.Execute")
    assert ex.text.startswith("// Execute runs the command.\nfunc (c *Command) Execute()")


def test_rust_attributes_travel_with_struct():
    cf = chunk_file(FIXTURES / "sample.rs")
    b = next(c for c in cf.chunks if c.symbol == "Bytes")
    assert b.text.startswith("/// A byte buffer.\n#[derive(Debug, Clone)]\npub struct Bytes")


def test_comment_travels_only_without_blank_line():
    data = b"# about a\ndef a():\n    pass\n\n# a section note\n\ndef b():\n    pass\n"
    cf = chunk_bytes(data, path="m.py")
    syms = {s.name: (s.start_line, s.def_line) for s in cf.symbols}
    assert syms == {"a": (1, 2), "b": (7, 7)}
    assert [(c.symbol, c.start_line, c.end_line) for c in cf.chunks] == [
        ("a", 1, 4),
        (None, 5, 6),
        ("b", 7, 8),
    ]


def test_module_level_code_is_one_chunk_per_gap():
    assigns = b"".join(b"X%d = %d\n" % (i, i) for i in range(200))
    data = b"import os\nimport sys\n" + assigns + b"def f():\n    pass\n" + assigns
    cf = chunk_bytes(data, path="m.py", max_chunk_tokens=10_000)
    assert [(c.symbol, c.kind) for c in cf.chunks] == [
        (None, "imports"),
        (None, "module"),
        ("f", "function"),
        (None, "module"),
    ]
    assert cf.chunks[0].end_line == 2


def test_functions_nested_in_functions_stay_in_parent_chunk():
    data = b"def outer():\n    def inner():\n        return 1\n    return inner\n"
    cf = chunk_bytes(data, path="m.py")
    assert [c.symbol for c in cf.chunks] == ["outer"]
    assert [(s.name, s.kind, s.parent) for s in cf.symbols] == [
        ("outer", "function", None),
        ("outer.inner", "function", "outer"),
    ]
