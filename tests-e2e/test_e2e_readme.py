"""The README's quick start: exactly two commands, the second is what CI runs, and the note
for PEP 668 systems (Debian/Ubuntu's system Python) names an installer that works there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)
    assert block, "the quick start has a bash block"
    return [ln.split("#", 1)[0].strip() for ln in block.group(1).splitlines() if ln.strip()]


def test_quick_start_has_two_commands_and_ci_runs_the_test_one() -> None:
    demo, tests = quick_start_commands()
    assert demo.endswith("ctx-tree demo")
    assert tests.endswith("uv run --frozen nox")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci, ".ci/run must call the README's test command"


def test_quick_start_says_how_to_get_uv_under_pep_668() -> None:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert "externally-managed-environment" in section
    assert "astral.sh/uv/install.sh" in section
