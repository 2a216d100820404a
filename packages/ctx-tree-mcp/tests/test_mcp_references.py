"""Reference edges between symbol chunks: neighbors lists callers and callees, a same-named
symbol of another scope gives no edge, compose brings them, and edges follow the files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.files.refgraph import RefGraph, chunk_references
from ctx_tree_mcp.tools.compose import compose
from ctx_tree_mcp.tools.graph import neighbors
from ctx_tree_mcp.tools.read import read

FILES = {
    "pkg/__init__.py": "from .env import Environment\n",
    "pkg/env.py": '''\
from pkg import util
from pkg.util import checksum as digest


class Environment:
    """Build state."""

    def get_outdated_files(self, changed):
        """Which documents to read again."""
        found = self.find_docs()
        return [d for d in found if digest(d) != changed.get(d)]

    def find_docs(self):
        return util.list_sources("src")
''',
    "pkg/util.py": """\
def checksum(name):
    return hash(name)


def list_sources(where):
    return [where]
""",
    "pkg/builder.py": """\
from pkg import Environment


class Builder:
    def __init__(self):
        self.env = Environment()

    def read(self):
        outdated = self.env.get_outdated_files({})
        return outdated
""",
    # same names, another scope: its own checksum and find_docs
    "other/tool.py": """\
def checksum(name):
    return 0


class Finder:
    def find_docs(self):
        return checksum("x")
""",
}


@pytest.fixture
def project(tmp_path: Path) -> App:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    app = App(root, home=tmp_path / "home")
    for rel in FILES:
        read(app, rel, budget_tokens=100)
    yield app
    app.close()


def chunk_id(app: App, rel: str, symbol: str) -> str:
    from ctx_tree_mcp.policy.names import file_uri

    root = app.store.latest_by_source(file_uri(app.root / rel))
    assert root is not None
    for c in app.store.children(root.id):
        if c.metadata.get("symbol") == symbol:
            return c.id
    raise AssertionError(f"no chunk {symbol} in {rel}")


def listed(answer: str) -> list[tuple[str, str]]:
    """``(path symbol, via)`` of each row of a neighbors answer."""
    rows = re.findall(r"^\d+\. (\S+) (\S*) ?file_chunk .* via=(.+)$", answer, re.M)
    return [(f"{path.split(':')[0]} {symbol}", via) for path, symbol, via in rows]


def test_neighbors_lists_callees_and_callers(project: App) -> None:
    target = chunk_id(project, "pkg/env.py", "Environment.get_outdated_files")
    rows = listed(neighbors(project, target))
    assert ("pkg/env.py Environment.find_docs", "references:out self.find_docs") in rows
    assert ("pkg/util.py checksum", "references:out digest") in rows
    # called through an attribute whose type the parse cannot tell: the one definition
    assert ("pkg/builder.py Builder.read", "references:in self.env.get_outdated_files") in rows
    # the same-named function of another module is no callee
    assert not [r for r in rows if r[0].startswith("other/")]


def test_callers_of_a_name_defined_twice_are_its_own(project: App) -> None:
    mine = listed(neighbors(project, chunk_id(project, "pkg/util.py", "checksum")))
    theirs = listed(neighbors(project, chunk_id(project, "other/tool.py", "checksum")))
    assert ("pkg/env.py Environment.get_outdated_files", "references:in digest") in mine
    assert not [r for r in mine if r[0].startswith("other/")]
    assert ("other/tool.py Finder.find_docs", "references:in checksum") in theirs
    assert not [r for r in theirs if r[0].startswith("pkg/")]


def test_module_attribute_and_reexport(project: App) -> None:
    rows = listed(neighbors(project, chunk_id(project, "pkg/env.py", "Environment.find_docs")))
    assert ("pkg/util.py list_sources", "references:out util.list_sources") in rows
    # ``from pkg import Environment`` goes through pkg/__init__.py's re-export
    rows = listed(neighbors(project, chunk_id(project, "pkg/env.py", "Environment")))
    assert ("pkg/builder.py Builder.__init__", "references:in Environment") in rows


def test_edge_kinds_without_references_leave_them_out(project: App) -> None:
    target = chunk_id(project, "pkg/env.py", "Environment.get_outdated_files")
    answer = neighbors(project, target, edge_kinds=["supersedes"])
    assert "references:" not in answer


def test_edges_follow_an_edited_file(project: App) -> None:
    path = project.root / "pkg/builder.py"
    path.write_text(path.read_text().replace("get_outdated_files({})", "find_docs()"))
    read(project, "pkg/builder.py", budget_tokens=100)
    target = chunk_id(project, "pkg/env.py", "Environment.get_outdated_files")
    rows = listed(neighbors(project, target))
    assert not [r for r in rows if r[0].startswith("pkg/builder.py")]
    rows = listed(neighbors(project, chunk_id(project, "pkg/env.py", "Environment.find_docs")))
    assert ("pkg/builder.py Builder.read", "references:in self.env.find_docs") not in rows
    # find_docs is defined twice (Environment, Finder): through an unknown type, no edge
    assert not [r for r in rows if r[0].startswith("pkg/builder.py")]


def test_compose_around_a_symbol_brings_callers_and_callees(project: App) -> None:
    target = chunk_id(project, "pkg/env.py", "Environment.get_outdated_files")
    answer = compose(project, [target], budget_tokens=2000, depth=1)
    assert "def find_docs(self):" in answer
    assert "def checksum(name):" in answer
    assert "outdated = self.env.get_outdated_files({})" in answer
    assert 'return checksum("x")' not in answer


def test_graph_keeps_only_resolvable_bare_names() -> None:
    from ctx_tree_chunk import chunk_bytes

    chunked = chunk_bytes(
        b"from m import f\n\ndef g():\n    return f(len(x)) + h()\n\ndef h():\n    return 1\n",
        path="a.py",
        references=True,
    )
    refs, extra = chunk_references(chunked)
    assert refs[chunked.chunks.index(next(c for c in chunked.chunks if c.symbol == "g"))] == [
        "f",
        "h",
    ]  # len is a builtin, x no name of the file: neither can reach a definition
    assert extra == {"imports": [["f", "m", "f"]]}


def test_graph_reads_only_live_chunks(project: App) -> None:
    graph = RefGraph(project.store, str(project.root))
    assert "pkg/env.py" in graph.rels()
    (project.root / "pkg/util.py").unlink()
    from ctx_tree_mcp.policy.names import file_uri

    project.store.stale_file(file_uri(project.root / "pkg/util.py"))
    target = chunk_id(project, "pkg/env.py", "Environment.get_outdated_files")
    rows = listed(neighbors(project, target))
    assert not [r for r in rows if r[0].startswith("pkg/util.py")]
