"""Line ends of every kind give true line numbers, and decorators come with their definition
in TypeScript and JavaScript as they do in Python."""

from __future__ import annotations

import pytest

from ctx_tree_chunk import chunk_bytes

PY = "import os\n\ndef a():\n    return 1\n\n\nclass B:\n    def m(self):\n        pass\n\n    def n(self):\n        return 2\n"
JS = "// top\nfunction one() {\n  return 1;\n}\n\nclass K {\n  two() {\n    return 2;\n  }\n}\n"
MD = "# Title\n\nintro\n\n## Part one\n\ntext\n\n## Part two\n\nmore\n"


def symbols(data: bytes, path: str) -> list[tuple[str, int, int, int]]:
    r = chunk_bytes(data, path=path)
    return [(s.name, s.start_line, s.def_line, s.end_line) for s in r.symbols]


@pytest.mark.parametrize(("text", "path"), [(PY, "a.py"), (JS, "a.js"), (MD, "a.md"), (JS, "a.ts")])
@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_cr_only_and_crlf_files_get_the_lines_of_their_lf_twin(text, path, newline):
    lf = symbols(text.encode(), path)
    assert lf and max(s[3] for s in lf) > 3
    other = text.replace("\n", newline).encode()
    assert symbols(other, path) == lf
    r = chunk_bytes(other, path=path)
    assert r.total_lines == text.count("\n")
    assert b"".join(c.text.encode() for c in r.chunks) == other  # chunks keep the file's bytes
    assert [(c.start_line, c.end_line) for c in r.chunks] == [
        (c.start_line, c.end_line) for c in chunk_bytes(text.encode(), path=path).chunks
    ]


def test_mixed_line_ends_count_each_end_once():
    data = b"def a():\r\n    return 1\rdef b():\n    return 2\r\n"
    r = chunk_bytes(data, path="m.py")
    assert r.total_lines == 4
    assert [(s.name, s.start_line, s.end_line) for s in r.symbols] == [("a", 1, 2), ("b", 3, 4)]
    starts = [c.start_byte for c in r.chunks]
    assert all(data[s - 1 : s] in (b"\n", b"\r") for s in starts[1:])


TS = b"""import { Component } from "@angular/core";

@Component({
  selector: "app-root",
})
export class AppComponent {
  title = "app";

  @HostListener("window:resize", ["$event"])
  @Debounce(300)
  onResize(event: Event): void {
    console.log(event);
  }

  /** Saves. */
  @Log()
  save(): void {}
}

@Injectable()
class Service {
  @Get(":id")
  find(id: string) {
    return id;
  }
}
"""


@pytest.mark.parametrize("path", ["c.ts", "c.tsx", "c.js"])
def test_decorators_come_with_their_method_and_class(path):
    got = {name: (start, line, end) for name, start, line, end in symbols(TS, path)}
    assert got["AppComponent"][:2] == (3, 6)
    assert got["AppComponent.onResize"] == (9, 11, 13)
    assert got["AppComponent.save"][:2] == (15, 17)  # its doc comment and decorator
    assert got["Service"][:2] == (20, 21)
    assert got["Service.find"][:2] == (22, 23)
    r = chunk_bytes(TS, path=path)
    chunk = next(c for c in r.chunks if c.symbol == "AppComponent.onResize")
    assert chunk.text.lstrip().startswith('@HostListener("window:resize"')


def test_python_decorators_unchanged():
    src = b"class A:\n    @property\n    @cache\n    def x(self):\n        return 1\n"
    assert ("A.x", 2, 4, 5) in symbols(src, "d.py")


def test_a_split_symbol_names_itself_in_its_first_part():
    """A long doc comment before a long function: the first part runs through the
    definition line instead of ending inside the comment."""
    example = "".join(f" *   const value{i} = compute({i}, options.level{i})\n" for i in range(18))
    body = "".join(f"  const step{i} = transform(input, {i}, options)\n" for i in range(40))
    source = (
        "/**\n * Builds the reducer from a mapping.\n *\n * @example\n" + example + " */\n"
        "export function buildReducer(input: string, options: Options): Reducer {\n"
        + body + "  return done\n}\n"
    )  # fmt: skip
    cf = chunk_bytes(source.encode(), language="typescript", max_chunk_tokens=200)
    parts = [c for c in cf.chunks if (c.symbol or "").startswith("buildReducer")]
    assert [c.symbol for c in parts][:2] == ["buildReducer#1", "buildReducer#2"]
    def_line = source.splitlines().index(
        "export function buildReducer(input: string, options: Options): Reducer {"
    ) + 1  # fmt: skip
    assert parts[0].start_line == 1 and parts[0].end_line >= def_line
    assert parts[0].doc == "Builds the reducer from a mapping."
    assert "export function buildReducer" in parts[0].text


def test_a_split_python_function_keeps_its_docstring_with_its_definition():
    options = "".join(
        f'@click.option("--flag-{i}", help="the flag number {i} of many")\n' for i in range(14)
    )
    body = "".join(f"    step{i} = transform(value, {i}, options)\n" for i in range(40))
    source = (
        "import click\n\n\n" + options + "def main(\n    value: str,\n    options: dict,\n) -> None:\n"
        '    """Run the command line client.\n\n    Sends one request.\n    """\n' + body
    )  # fmt: skip
    cf = chunk_bytes(source.encode(), language="python", max_chunk_tokens=200)
    first = next(c for c in cf.chunks if c.symbol == "main#1")
    assert "def main(" in first.text and '    """Run the command line client.' in first.text
    assert first.doc == "Run the command line client."


def test_the_doc_goes_with_the_part_that_holds_the_docstring():
    options = "".join(
        f'@click.option("--flag-{i}", help="the flag number {i} of many")\n' for i in range(40)
    )
    source = (
        "import click\n\n\n" + options + "def main(value: str) -> None:\n"
        '    """Run the command line client."""\n    return None\n'
    )  # fmt: skip
    cf = chunk_bytes(source.encode(), language="python", max_chunk_tokens=200)
    parts = [c for c in cf.chunks if (c.symbol or "").startswith("main#")]
    holder = next(c for c in parts if '"""Run the command line client."""' in c.text)
    assert holder.symbol != "main#1"  # forty decorator lines are more than #1 may stretch to
    assert holder.doc == "Run the command line client."
    assert [c.doc for c in parts if c is not holder] == [None] * (len(parts) - 1)
