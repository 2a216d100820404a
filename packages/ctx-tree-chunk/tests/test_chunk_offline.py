"""Grammars are bundled: parsing works with the network unreachable."""

from __future__ import annotations

import socket

from ctx_tree_chunk import chunk_bytes
from ctx_tree_chunk._code import clear_caches


def test_parsing_works_offline(monkeypatch):
    def refuse(*_a, **_k):
        raise OSError("network disabled in test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    clear_caches()
    samples = {
        "a.py": (b"def f():\n    return 1\n", "f"),
        "a.go": (b"package a\n\nfunc (s *S) F() {}\n", "S.F"),
        "a.rs": (b"struct S;\nimpl S {\n    fn f(&self) {}\n}\n", "S.f"),
    }
    for path, (data, symbol) in samples.items():
        cf = chunk_bytes(data, path=path)
        assert cf.chunks[0].chunking == "tree-sitter"
        assert symbol in {s.name for s in cf.symbols}
