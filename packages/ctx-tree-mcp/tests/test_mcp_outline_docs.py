"""The outline of a file shows each symbol's doc summary when the whole outline fits with
them, and the plain rows otherwise."""

from __future__ import annotations

import re

from answers import file_node
from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.read_outline import OUTLINE_CODE_MIN, outline_text

BODY = "".join(
    f"    total += step({i}, 'padding that makes the file too big to show')\n" for i in range(12)
)


def _source(n: int) -> str:
    parts = []
    for i in range(n):
        doc = f'    """Computes part {i} of the report from the ledger rows and the totals."""\n'
        parts.append(f"def part_{i}(step):\n{doc}    total = 0\n{BODY}    return total\n\n\n")
    parts.append("def undocumented():\n    return 0\n")
    return "".join(parts)


def test_outline_rows_carry_the_doc_summary_cut_at_a_word(app, root):
    (root / "report.py").write_text(_source(8))
    text = read(app, "report.py", budget_tokens=2000)
    assert tokens(text) <= 2000
    rows = re.findall(r"^\d+-\d+ def (\w+)\((?:step)?\)(.*)$", text, re.M)
    assert len(rows) == 9, text
    assert rows[0] == ("part_0", " — Computes part 0 of the report from the ledger rows and the…")
    assert rows[-1] == ("undocumented", "")


def test_a_long_outline_drops_the_docs_before_dropping_rows():
    rows = [f"L{i}-{i + 9} function part_{i} 01M8P5MQYP9KFP27RMD7SF2S3D" for i in range(20)]
    docs = ["Computes part of the report from the ledger rows and the…"] * 19 + [""]
    everything = [True] * 20
    documented = "\n".join(f"{r} — {d}" if d else r for r, d in zip(rows, docs, strict=True))
    plain = "\n".join(rows)
    # an outline with signatures leaves OUTLINE_CODE_MIN of the room for code
    room = tokens(documented) + OUTLINE_CODE_MIN
    assert outline_text(rows, docs, everything, room) == (documented, "")
    assert outline_text(rows, docs, everything, room - 1) == (plain, "")
    nested = [i % 2 == 0 for i in range(20)]
    assert outline_text(rows, docs, nested, tokens(plain) - 1) == (
        "\n".join(rows[::2]),
        "10 nested symbols not listed",
    )


def test_a_rust_impl_row_names_its_kind_once(app, root):
    """An impl's symbol name starts with ``impl`` (``impl Display for Wrapper``, so --symbol
    takes it as written): the outline row and the stored outline say ``impl`` once."""
    body = "".join(f"    pub fn f{i}(&self) -> u32 {{\n        {i}\n    }}\n\n" for i in range(60))
    (root / "w.rs").write_text(
        "pub struct Wrapper(u32);\n\n"
        f"impl Wrapper {{\n{body}}}\n\n"
        "impl std::fmt::Display for Wrapper {\n"
        "    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n"
        '        write!(f, "{}", self.0)\n'
        "    }\n}\n"
    )
    text = read(app, "w.rs", budget_tokens=600)
    assert re.search(r"^3-\d+ impl Wrapper$", text, re.M), text
    assert re.search(r"^\d+-\d+ impl std::fmt::Display for Wrapper$", text, re.M), text
    assert "impl impl" not in text
    root_id = file_node(app, "w.rs")
    assert "impl impl" not in app.store.require(root_id).content
