"""The README's opening example prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_output_is_current() -> None:
    block = README.read_text().split("```console\n", 1)[1].split("```", 1)[0]
    command, expected = block.rsplit('"\n', 1)
    code = command.split('-c "', 1)[1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert out.getvalue() == expected
