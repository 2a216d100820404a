"""The outline of a file shows each symbol's doc summary when the whole outline fits with
them, and the plain rows otherwise."""

from __future__ import annotations

import re

from ctx_tree_compose import estimate_tokens as tokens
from ctx_tree_mcp.tools.read import read

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
    rows = re.findall(r"^L\d+-\d+ function (\w+) [0-9A-Z]{26}(.*)$", text, re.M)
    assert len(rows) == 9
    assert rows[0] == ("part_0", " — Computes part 0 of the report from the ledger rows and the…")
    assert rows[-1] == ("undocumented", "")


def test_a_long_outline_drops_the_docs_before_dropping_rows(app, root):
    (root / "report.py").write_text(_source(20))
    text = read(app, "report.py", budget_tokens=2400)
    assert tokens(text) <= 2400
    rows = re.findall(r"^L\d+-\d+ function (\w+) [0-9A-Z]{26}(.*)$", text, re.M)
    assert len(rows) == 21  # every symbol is listed, without its doc
    assert all(rest == "" for _, rest in rows)
    roomier = read(app, "report.py", budget_tokens=4000)  # the same file: now they fit
    rows = re.findall(r"^L\d+-\d+ function (\w+) [0-9A-Z]{26}(.*)$", roomier, re.M)
    assert len(rows) == 21 and all(rest.startswith(" — Computes part") for _, rest in rows[:-1])
