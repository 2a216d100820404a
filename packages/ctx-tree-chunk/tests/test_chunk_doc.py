"""Doc summaries: a symbol's docstring or doc comments, on its Symbol and its first chunk."""

from __future__ import annotations

import json
import textwrap

import pytest

from ctx_tree_chunk import chunk_bytes


def docs(source: str, path: str, **kw: object) -> dict[str, str | None]:
    """``{symbol: doc}`` of the chunks that carry a symbol, checked against the outline."""
    cf = chunk_bytes(textwrap.dedent(source).encode(), path=path, **kw)  # type: ignore[arg-type]
    by_chunk = {c.symbol: c.doc for c in cf.chunks if c.symbol is not None}
    for s in cf.symbols:
        if s.name in by_chunk:  # a container's later chunks repeat its name without the doc
            first = next(c for c in cf.chunks if c.symbol == s.name)
            assert first.doc == s.doc, s
    return by_chunk


def test_python_docstrings_after_decorators_and_for_classes():
    src = '''\
        """Module docstring: no symbol's."""
        import os


        @app.route("/x")
        @cached
        def handler(a):
            """Adds default help command.

            Args:
                a: ignored.
            """
            return a


        class Store:
            r\'\'\'A store of nodes
            kept in SQLite.\'\'\'

            # a plain comment is not a Python doc
            def get(self):
                "Gets one."

            def put(self):
                x = "not a docstring"
                return x
        '''
    assert docs(src, "m.py") == {
        "handler": "Adds default help command.",
        "Store": "A store of nodes kept in SQLite.",
        "Store.get": "Gets one.",
        "Store.put": None,
    }
    first = chunk_bytes(textwrap.dedent(src).encode(), path="m.py").chunks[0]
    assert (first.kind, first.doc) == ("imports", None)  # holds the module docstring


def test_python_rest_fields_end_the_summary():
    src = '''\
        def f():
            """Frees the buffer.
            :param b: the buffer
            """
        '''
    assert docs(src, "m.py") == {"f": "Frees the buffer."}


def test_code_fences_and_rest_roles():
    src = """\
        /// ```
        /// let x = 1;
        /// ```
        ///
        /// Makes x.
        fn make() {}

        /// Splits it.
        /// ```
        /// split();
        /// ```
        fn split() {}
        """
    assert docs(src, "m.rs") == {"make": "Makes x.", "split": "Splits it."}
    py = 'def route():\n    """Like :meth:`.Flask.route` for :class:`~app.Blueprint`."""\n'
    assert docs(py, "m.py") == {"route": "Like Flask.route for app.Blueprint."}
    py = 'def prep():\n    """Makes a :class:`PreparedRequest <PreparedRequest>`."""\n'
    assert docs(py, "m.py") == {"prep": "Makes a PreparedRequest."}


def test_go_comment_above_a_method_and_directives_dropped():
    src = """\
        package main

        // Unrelated, separated by a blank line.

        // Server serves requests.
        //
        // It is safe for concurrent use.
        type Server struct{}

        // Start does X.
        //go:noinline
        func (s *Server) Start() error {
        \treturn nil
        }

        // ------------------
        // Helpers
        // ------------------
        func bare() {}
        """
    assert docs(src, "m.go") == {
        "Server": "Server serves requests.",
        "Server.Start": "Start does X.",
        "bare": "Helpers",
    }


def test_rust_outer_doc_comments_first_paragraph_only():
    src = """\
        //! Crate docs are not a symbol's.
        use std::fmt;

        /// Parses a thing
        /// quickly.
        ///
        /// # Examples
        ///
        /// ```
        /// parse();
        /// ```
        #[inline]
        // a plain note between doc and definition
        pub fn parse() {}

        /** Block doc
         * on two lines. */
        struct S;

        // a plain comment is not a Rust doc
        fn g() {}
        """
    assert docs(src, "m.rs") == {
        "parse": "Parses a thing quickly.",
        "S": "Block doc on two lines.",
        "g": None,
    }


def test_jsdoc_tags_dropped_and_doc_comment_preferred():
    src = """\
        /**
         * Adds default help command.
         * @public
         */
        export function addHelp(): void {}

        /**
         * @internal
         * Hides {@link Foo} from the listing.
         */
        // eslint-disable-next-line
        const helper = () => 1;

        class Cmd {
          /** Runs it. @param x the x */
          run(x: number) {}
        }
        """
    expected = {
        "addHelp": "Adds default help command.",
        "helper": "Hides Foo from the listing.",
        "Cmd": None,
        "Cmd.run": "Runs it.",
    }
    assert docs(src, "m.ts") == expected
    assert docs(src.replace(": void", "").replace("x: number", "x"), "m.js") == expected


def test_a_comment_separated_by_a_blank_line_is_not_the_doc():
    for path, src in [
        ("m.go", "package m\n\n// Not mine.\n\nfunc f() {}\n"),
        ("m.ts", "/** Not mine. */\n\nfunction f() {}\n"),
        ("m.rs", "/// Not mine.\n\nfn f() {}\n"),
    ]:
        assert docs(src, path) == {"f": None}, path


def test_java_csharp_c_php_kotlin_comment_blocks():
    java = """\
        /**
         * Reads a <b>file</b> with {@code Files}.
         * <p>
         * Second paragraph.
         * @param path the path
         */
        @Override
        public void read(String path) {}
        """
    csharp = """\
        class K {
            /// <summary>
            /// Gets the <see cref="Name"/> value.
            /// </summary>
            /// <param name="x">x</param>
            [Obsolete]
            public int Get(int x) { return x; }
        }
        """
    c = """\
        /**
         * @brief Frees the buffer.
         *
         * Details.
         */
        static void
        buf_free(struct buf *b)
        {
        }
        """
    php = """\
        <?php
        class Model {
            /**
             * Saves the model.
             * @return bool
             */
            public function save() {}
        }
        """
    assert docs(java, "Reader.java") == {"read": "Reads a file with Files."}
    assert docs(csharp, "k.cs") == {"K": None, "K.Get": "Gets the Name value."}
    assert docs(c, "buf.c") == {"buf_free": "Frees the buffer."}
    assert docs(c, "buf.cpp") == {"buf_free": "Frees the buffer."}
    assert docs(php, "m.php") == {"Model": None, "Model.save": "Saves the model."}
    assert docs("/** Makes a thing. */\nfun thing() {}\n", "m.kt") == {"thing": "Makes a thing."}


def test_only_the_first_part_of_a_split_symbol_has_the_doc():
    body = "".join(f"    x{i} = compute({i}, 'padding text to grow the body')\n" for i in range(60))
    src = f'def big():\n    """Computes everything."""\n{body}'
    cf = chunk_bytes(src.encode(), path="m.py", max_chunk_tokens=200)
    parts = [(c.symbol, c.doc) for c in cf.chunks]
    assert len(parts) >= 3
    assert parts[0] == ("big#1", "Computes everything.")
    assert all(doc is None for sym, doc in parts[1:] if sym and sym.startswith("big#"))
    assert cf.symbols[0].doc == "Computes everything."


def test_a_container_header_has_the_doc_and_its_member_chunks_their_own():
    src = '''\
        class A:
            """The A."""

            def m(self):
                return 1

            x = 2

            def n(self):
                """The n."""
        '''
    cf = chunk_bytes(textwrap.dedent(src).encode(), path="m.py")
    assert [(c.symbol, c.doc) for c in cf.chunks] == [
        ("A", "The A."),
        ("A.m", None),
        ("A", None),
        ("A.n", "The n."),
    ]


def test_long_docs_are_cut_at_a_word_within_the_cap():
    words = " ".join(f"word{i}" for i in range(100))
    doc = docs(f'def f():\n    """{words}"""\n', "m.py")["f"]
    assert doc is not None and len(doc) <= 300 and doc.endswith("…")
    assert words.startswith(doc[:-1]) and doc[-2:-1] != " "
    assert words[len(doc) - 1] == " "  # cut where a word ends


def test_no_doc_for_markdown_data_and_fallback_chunks():
    md = chunk_bytes(b"# Title\n\nSome text.\n\n## Part\n\nMore.\n", path="a.md")
    data = chunk_bytes(json.dumps({"a": 1, "b": [1, 2]}, indent=1).encode(), path="a.json")
    plain = chunk_bytes(b"just words\n" * 5, path="notes.txt")
    for cf in (md, data, plain):
        assert cf.chunks
        assert all(c.doc is None for c in cf.chunks)
        assert all(s.doc is None for s in cf.symbols)


@pytest.mark.parametrize("path", ["c.vue", "c.svelte"])
def test_component_scripts_keep_their_docs(path):
    src = "<template><p/></template>\n<script>\n/** Greets. */\nfunction greet() {}\n</script>\n"
    assert docs(src, path)["greet"] == "Greets."


def test_notebook_code_cells_keep_their_docs():
    cell = ["def f():\n", '    """Does f."""\n', "    return 1\n"]
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["# T"]},
            {"cell_type": "code", "source": cell, "outputs": []},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    cf = chunk_bytes(json.dumps(nb).encode(), path="n.ipynb")
    assert [(c.symbol, c.doc) for c in cf.chunks if c.doc] == [("f", "Does f.")]
    assert [s.doc for s in cf.symbols] == [None, None, "Does f."]  # cells have none
