"""The hooks' quick test of a command (``capture.may_refuse``, with the generated copy of
``REFUSAL_WORDS``) against the server's full denylist (``ctx_tree_mcp.wire.denylist.refusal``):
a command the hooks pass over without loading the denylist is one it would never refuse
(docs/capture.md)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from ctx_tree_mcp.wire.denylist import REFUSAL_WORDS, refusal
from ctx_tree_mcp.wire.spool import generated

HOOKS = Path(__file__).resolve().parents[1] / "plugin" / "hooks"
sys.path.insert(0, str(HOOKS))
from capture import may_refuse  # noqa: E402


def test_the_hooks_words_are_the_denylists() -> None:
    assert tuple(generated()["refusal_words"]) == REFUSAL_WORDS


DENY = ["git push", "aws", "kubectl get secrets"]
#: Pieces random commands are made of: refused programs, wrappers, quoting, separators and
#: harmless words, so that many refused commands hide their word behind quotes or a wrapper.
PIECES = [
    "env", "printenv", "export", "set", "declare -x", "readonly", "typeset", "git", "push",
    "pull", "aws", "kubectl", "get", "secrets", "sudo", "nohup", "timeout 5", "xargs",
    "sh -c", "bash -lc", "eval", "'", '"', "\\", ";", "&&", "|", "$(", ")", "`", "(", "{",
    "}", "e", "n", "v", "pr", "int", "ls", "-la", "pytest", "-q", "make", "FOO=1", "/usr/bin/",
    "cat", "/proc/self/environ", " ", " ", " ",
]  # fmt: skip


def test_a_command_the_hooks_pass_over_is_never_refused() -> None:
    rng = random.Random(27)
    refused = 0
    for _ in range(20000):
        command = "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 9)))
        deny = DENY if rng.random() < 0.5 else []
        reason = refusal(command, deny)
        if reason is not None:
            refused += 1
            assert may_refuse(command, deny, REFUSAL_WORDS), (command, deny, reason)
    assert refused > 2000  # the random commands do reach the denylist's rules


def test_the_quick_test_passes_over_ordinary_commands_and_keeps_unclear_entries() -> None:
    for command in ("pytest -q", "make -j4 build", "ls -la src", "cargo test"):
        assert not may_refuse(command, DENY, REFUSAL_WORDS), command
        assert refusal(command, DENY) is None, command
    for command in ("git push origin main", "/usr/local/bin/aws s3 ls", "sh -c 'a''ws s3'"):
        assert may_refuse(command, DENY, REFUSAL_WORDS), command
    # an entry or a payload it cannot reason about sends every command to the full check
    for deny in (["'my tool'"], ["/opt/bin/x"], [3], "git push"):
        assert may_refuse("pytest -q", deny, REFUSAL_WORDS), deny
    assert may_refuse(None, [], REFUSAL_WORDS)
