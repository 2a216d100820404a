"""A 300-token budget costs at most 330 tokens of a real BPE tokenizer (OpenAI cl100k_base,
the yardstick; not used at run time) whatever the script: Chinese, Japanese, Russian, emoji,
code. ``ceil(chars / 4)`` let such an answer cost about 730 tokens of Chinese."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path

import pytest
from ctx_tree_mcp.tools.get import get
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read

bpe = pytest.importorskip("bpe_openai").get_encoding("cl100k_base")
_spec = importlib.util.spec_from_file_location(
    "tokens_scripts",
    Path(__file__).parents[2] / "ctx-tree-compose" / "tests" / "tokens_scripts.py",
)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
SCRIPTS = _mod.SCRIPTS

BUDGET, CEILING = 300, 330


def real(text: str) -> int:
    return len(bpe.encode(text))


def prose_file(root: Path, name: str, script: str) -> str:
    """A markdown file of ~200 lines in one script: sentences cut from the sample, numbered."""
    text = SCRIPTS[script]
    sentences = [s for s in re.split(r"(?<=[。．.!?！？])\s*", text) if s.strip()] or [text]
    lines = [f"## {script} {i}\n" if i % 20 == 0 else "" for i in range(200)]
    body = "".join(h + sentences[i % len(sentences)] + f" ({i})\n" for i, h in enumerate(lines))
    (root / name).write_text(body, encoding="utf-8")
    return body


FILES = {
    "chinese.md": "chinese",
    "traditional.md": "chinese_traditional",
    "japanese.md": "japanese",
    "korean.md": "korean",
    "russian.md": "russian",
    "emoji.md": "emoji",
    "greek.md": "greek",
    "hindi.md": "hindi",
}


@pytest.fixture
def files(root):
    for name, script in FILES.items():
        prose_file(root, name, script)
    return root


@pytest.mark.parametrize("name", [*FILES, "src/argparse_copy.py", "src/decoder.py"])
def test_reads_of_300_tokens_cost_at_most_330(app, files, name):
    answers = [
        read(app, name, budget_tokens=BUDGET),
        read(app, name, start_line=30, end_line=120, budget_tokens=BUDGET),
        read(app, name, query="budget", budget_tokens=BUDGET),
    ]
    for text in answers:
        assert real(text) <= CEILING, (name, real(text), text[:200])
    assert re.search(r"^\d+\t", answers[1], re.M), "a line range shows lines"


def test_a_symbol_read_of_code_costs_at_most_330(app):
    text = read(
        app, "src/argparse_copy.py", symbol="ArgumentParser.parse_known_args", budget_tokens=BUDGET
    )
    assert real(text) <= CEILING and "def parse_known_args" in text


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("的", "chinese.md"),
        ("の", "japanese.md"),
        ("узл", "russian.md"),
        ("🎉", "emoji.md"),
        ("self", "src"),
    ],
)
def test_greps_and_their_pages_cost_at_most_330(app, files, pattern, path):
    text = asyncio.run(grep(app, pattern, path=path, budget_tokens=BUDGET))
    assert real(text) <= CEILING, (pattern, real(text))
    assert re.search(r"^\d+:", text, re.M)
    m = re.search(r'ctx_tree_get\(node_id="(\w+)", offset=(\d+)\)', text)
    assert m, "more than fits: a next call"
    page = get(app, m.group(1), offset=int(m.group(2)), budget_tokens=BUDGET)
    assert real(page) <= CEILING, (pattern, real(page))


def test_chars_over_four_would_have_overrun(files):
    """The old rule, 1,200 characters for 300 tokens, on the same Chinese file."""
    text = (files / "chinese.md").read_text(encoding="utf-8")[:1200]
    assert real(text) > 2 * BUDGET
