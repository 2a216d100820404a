"""References, imports and bases found with ``chunk_bytes(..., references=True)``."""

from __future__ import annotations

from importlib import resources

import pytest

from ctx_tree_chunk import Import, Reference, chunk_bytes
from ctx_tree_chunk._languages import TREE_SITTER_LANGUAGES, references_file
from ctx_tree_chunk._refs import references_query

PY = b"""\
import os.path as osp, sys
from .env import BuildEnvironment as BE, x
from .. import util
class A(Base, mod.Mixin):
    def f(self, a, b: int = 1, *args, c=2, **kw) -> Foo:
        x = self.g(a)
        for i, j in y: pass
        with open(p) as fh: pass
        return helper(x, key=1).attr
    @deco
    def g(self): return [k for k in z]
"""


def refs(data: bytes, path: str) -> list[tuple[str | None, str, int, bool]]:
    cf = chunk_bytes(data, path=path, references=True)
    return [(r.receiver, r.name, r.line, r.call) for r in cf.references]


def test_python_references_calls_chains_and_locals() -> None:
    found = refs(PY, "m.py")
    assert (None, "Base", 4, False) in found
    assert ("mod", "Mixin", 4, False) in found
    assert ("self", "g", 6, True) in found  # the chain, not its head
    assert (None, "helper", 9, True) in found
    assert ("*", "attr", 9, False) in found  # receiver is a call's result
    assert (None, "deco", 10, True) in found
    names = {n for _r, n, _l, _c in found}
    # parameters, assignment, loop, with and comprehension targets are locals of f and g
    assert not names & {"a", "b", "c", "args", "kw", "i", "j", "fh", "k"}
    # a definition's name, a keyword argument's name and the head of a chain are no reference
    assert not names & {"f", "key", "self"}
    # ``x`` is bound in f: the use on line 9 is the local, though the module imports an x
    assert (None, "x", 9, False) not in found


def test_python_imports_and_bases() -> None:
    cf = chunk_bytes(PY, path="m.py", references=True)
    assert cf.imports == (
        Import("osp", "os.path", None, 1),
        Import("sys", "sys", None, 1),
        Import("BE", ".env", "BuildEnvironment", 2),
        Import("x", ".env", "x", 2),
        Import("util", "..", "util", 3),
    )
    assert {s.name: s.bases for s in cf.symbols}["A"] == ("Base", "mod.Mixin")


def test_without_references_nothing_is_found() -> None:
    cf = chunk_bytes(PY, path="m.py")
    assert cf.references == () and cf.imports == ()
    assert all(s.bases == () for s in cf.symbols)


def test_typescript_imports_this_and_new() -> None:
    src = b"""import { a as b, c } from './util';
import D from "../d";
import * as ns from './ns';
export class K extends Base implements I {
  m(x: number, {p, q}: T): Foo {
    const y = this.helper(x, p);
    return ns.f(b(y), new Thing());
  }
}
"""
    cf = chunk_bytes(src, path="k.ts", references=True)
    assert cf.imports == (
        Import("b", "./util", "a", 1),
        Import("c", "./util", "c", 1),
        Import("D", "../d", "default", 2),
        Import("ns", "./ns", None, 3),
    )
    found = [(r.receiver, r.name, r.call) for r in cf.references]
    assert ("this", "helper", True) in found
    assert ("ns", "f", True) in found
    assert (None, "Thing", True) in found
    assert (None, "T", False) in found
    names = {r.name for r in cf.references}
    assert not names & {"x", "y", "p", "q", "K"}
    assert {s.name: s.bases for s in cf.symbols}["K"] == ("Base", "I")


def test_go_selectors_and_import_paths() -> None:
    src = b"""package srv

import (
\th "net/http"
\t"github.com/x/y/pkg/util"
)

func (s *Server) Run(n int) error {
\tx := util.Helper(n)
\treturn NewThing(h.StatusOK, x, s.cfg.Port)
}
"""
    cf = chunk_bytes(src, path="s.go", references=True)
    assert Import("h", "net/http", None, 4) in cf.imports
    assert Import("util", "github.com/x/y/pkg/util", None, 5) in cf.imports
    found = [(r.receiver, r.name, r.call) for r in cf.references]
    assert ("util", "Helper", True) in found
    assert (None, "NewThing", True) in found
    assert ("s.cfg", "Port", False) in found
    assert not {r.name for r in cf.references} & {"x", "n", "s"}


def test_java_invocations_and_imports() -> None:
    src = b"""package com.x;
import com.x.util.Helper;
import java.util.*;
public class Server extends Base implements Runnable {
  public int run(int n) {
    int y = Helper.help(n) + this.cfg.port;
    log(y);
    return new Thing(cfg).go();
  }
}
"""
    cf = chunk_bytes(src, path="Server.java", references=True)
    assert Import("Helper", "com.x.util.Helper", None, 2) in cf.imports
    assert Import("*", "java.util", "*", 3) in cf.imports
    found = [(r.receiver, r.name, r.call) for r in cf.references]
    assert ("Helper", "help", True) in found
    assert ("this.cfg", "port", False) in found
    assert (None, "log", True) in found
    assert ("*", "go", True) in found
    assert not {r.name for r in cf.references} & {"n", "y", "run"}


def test_references_are_dataclasses_with_lines() -> None:
    cf = chunk_bytes(b"def f():\n    return g()\n", path="m.py", references=True)
    assert cf.references == (Reference("g", None, 2, True),)


@pytest.mark.parametrize("language", sorted(TREE_SITTER_LANGUAGES))
def test_every_references_query_compiles(language: str) -> None:
    path = resources.files("ctx_tree_chunk").joinpath("queries", references_file(language))
    if not path.is_file():
        assert references_query(language) is None
        return
    queries = references_query(language)
    assert queries is not None
    by_capture, by_match = queries
    assert by_capture.pattern_count == by_match.pattern_count > 0
