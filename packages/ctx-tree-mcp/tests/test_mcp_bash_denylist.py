"""The command denylist of ctx_tree_bash: what is refused, what runs, and that a hook under a
bare python3 can load the module by its file path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.wire import denylist
from ctx_tree_mcp.wire.denylist import refusal

FILE = Path(denylist.__file__)


#: Commands that print the environment, each refused whatever its quoting or wrapping.
REFUSED = [
    "env",
    "printenv",
    "printenv HOME",
    "FOO=1 env",
    "/usr/bin/env",
    "env -u PATH",
    "env 2>/dev/null",
    "sh -c 'en''v'",
    'bash -lc "printenv"',
    "sh -e -c env",
    "echo $(env)",
    "echo `printenv`",
    "ls; env | grep KEY",
    "true && env",
    "sudo -u root env",
    "nohup env > out.txt",
    "timeout 5 env",
    "xargs env",
    "fish -c env",
    "watch -n 1 env",
    "watch -d env",
    "command env",
    "env FOO=1 printenv",
    "eval env",
    "(env)",
    "{ env; }",
    "if true; then env; fi",
    "export",
    "export -p",
    "declare -x",
    "set",
    "cat /proc/self/environ",
    "tr '\\0' '\\n' < /proc/1/environ",
    "cat /proc/$PPID/environ",
    "e\\nv",
    "'en'\"v\"",
    "sh -c 'e\\nv'",
    "bash -c \"eval 'pr''intenv'\"",
]


@pytest.mark.parametrize("command", REFUSED)
def test_commands_that_print_the_environment_are_refused(command: str) -> None:
    reason = refusal(command)
    assert reason and "refused" in reason and "environment" in reason


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "git log --oneline -5",
        "env -i python3 -c pass",
        "env FOO=1 make test",
        "/usr/bin/env python3 script.py",
        "echo env",
        'echo "a; env"',
        "export FOO=1",
        "set -euo pipefail; make",
        "ls 2>/dev/null",
        "grep -r printenv_docs .",
        "sh script.sh",
        "echo 'unbalanced",
        "command -v env",
        "type printenv",
    ],
)
def test_ordinary_commands_run(command: str) -> None:
    assert refusal(command) is None


def test_project_entries_match_leading_words_by_program_basename() -> None:
    deny = ["git push", "aws", "kubectl get secrets"]
    assert "git push" in (refusal("git push origin main", deny) or "")
    assert "aws" in (refusal("/usr/local/bin/aws s3 ls", deny) or "")
    assert "kubectl get secrets" in (refusal("cd k8s && kubectl get secrets -A", deny) or "")
    assert "bash.deny" in (refusal("sh -c 'git push'", deny) or "")
    for ok in ("git pull", "git status", "kubectl get pods", "echo aws"):
        assert refusal(ok, deny) is None, ok


def test_an_entry_naming_a_program_by_path_refuses_that_path_alone() -> None:
    deny = ["/usr/bin/aws", "/opt/bin/tool deploy"]
    assert "/usr/bin/aws" in (refusal("/usr/bin/aws s3 ls", deny) or "")
    assert "deploy" in (refusal("/opt/bin/tool deploy --all", deny) or "")
    for ok in ("ls -la", "pytest -q", "/usr/local/bin/aws s3 ls", "/opt/bin/tool status"):
        assert refusal(ok, deny) is None, ok


def test_known_evasions_are_not_caught() -> None:
    """docs/security.md lists these: the denylist cannot see through interpreters, variables
    or generated strings; output redaction is what protects secrets there."""
    for command in (
        "python3 -c 'import os; print(os.environ)'",
        "x=env; $x",
        "$(printf 'e%sv' n)",
        "perl -e 'print %ENV'",
        "cat /proc/$(echo self)/environ",
    ):
        assert refusal(command) is None, command


def test_loads_by_file_path_under_a_bare_interpreter(tmp_path: Path) -> None:
    """The steering hook runs under python3 -S -I (no site-packages, no project on the path)."""
    script = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('denylist', {str(FILE)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(m.refusal('env') is not None, m.refusal('ls') is None)\n"
        "print(sorted(k for k in sys.modules if k.startswith(('ctx_tree', 'mcp', 'pydantic'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-I", "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert out.stdout.split("\n")[:2] == ["True True", "[]"]
