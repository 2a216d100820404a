"""Environment dumps: a run of ``NAME=value`` lines with the process's own variable names
keeps its names and loses its values; ordinary code and config are kept (docs/security.md)."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.wire.redact import redact, redact_environment

R = "[REDACTED:environment]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Here is env:\nSHELL=/bin/bash\nIS_SANDBOX=1\nHOME=/root\n_=/usr/bin/env\nDone.",
            f"Here is env:\nSHELL={R}\nIS_SANDBOX={R}\nHOME={R}\n_={R}\nDone.",
        ),
        (  # indented in a markdown list, or as export -p prints it
            '  declare -x HOME="/root"\n  declare -x PATH="/bin"\n  declare -x X="1"',
            f"  declare -x HOME={R}\n  declare -x PATH={R}\n  declare -x X={R}",
        ),
        ("LANG=C.UTF-8\nTERM=xterm\nTOKEN_TTL=30\n", f"LANG={R}\nTERM={R}\nTOKEN_TTL={R}\n"),
    ],
)
def test_an_environment_dump_keeps_names_only(text: str, expected: str) -> None:
    out, counts = redact(text)
    assert out == expected and counts == {"environment": 1}
    assert out.count("\n") == text.count("\n")


@pytest.mark.parametrize(
    "text",
    [
        "a=1\nb=2\nc=3\n",  # no variable of a process environment
        "PATH=/opt/bin:$PATH\nLD_LIBRARY_PATH=/opt/lib\nexport PATH\n",  # one known name
        "HOME=/tmp\nUSER=x\n",  # two lines only
        "export HOME=/tmp\nexport PATH=/bin\nexport USER=x\n",  # a script setting them
        'HOME = "/tmp"\nPATH = "/bin"\nUSER = "x"\n',  # code
        "SHELL := /bin/bash\nPATH := /bin\nCC := gcc\n",  # a Makefile
    ],
)
def test_code_and_scripts_setting_variables_are_kept(text: str) -> None:
    assert redact(text) == (text, {})


def test_a_dump_with_a_known_key_in_it_still_loses_every_value() -> None:
    text = "HOME=/root\nANTHROPIC_API_KEY=sk-ant-abcdefghijklmnopqrstuvwxyz012345\nPATH=/bin\n"
    assert redact(text)[0] == f"HOME={R}\nANTHROPIC_API_KEY={R}\nPATH={R}\n"


def test_strict_redaction_hides_every_upper_case_assignment() -> None:
    text = "TOOL_RESULT_SEEN: SHELL=/bin/bash\nIS_SANDBOX=1\nif a == b: x=1\n$X=1 and a==b"
    assert redact_environment(text) == (
        f"TOOL_RESULT_SEEN: SHELL={R}\nIS_SANDBOX={R}\nif a == b: x=1\n$X=1 and a==b"
    )
