"""The redaction and command rules of the wire, imported from the plugin's copy
(``plugin/hooks/vendor``) under the host's ``python3`` as the hook imports them, give the same
answers under the oldest Python the hooks support as under the server's: the same text is
redacted the same way.

The interpreter is ``CTX_TREE_HOOK_PYTHON`` (the ``hooks-oldest`` nox session sets it to a 3.8),
else this one; docs/capture.md states the contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctx_tree_mcp.wire import redact
from ctx_tree_mcp.wire.denylist import refusal

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "packages" / "ctx-tree-mcp" / "src" / "ctx_tree_mcp"
HOOK_PYTHON = os.environ.get("CTX_TREE_HOOK_PYTHON") or sys.executable

#: Imports both modules from the plugin's copy, as the hook does, and answers every text of
#: stdin's JSON list.
RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from ctx_tree_mcp.wire import denylist as d, redact as r
assert r.__file__.startswith(sys.argv[1]), r.__file__
job = json.loads(sys.stdin.read())
out = {
    "version": list(sys.version_info[:3]),
    "redact": [list(r.redact(t)) for t in job["texts"]],
    "environment": [r.redact_environment(t) for t in job["texts"]],
    "key_bodies": [r.redact_key_bodies(t) for t in job["texts"]],
    "key_lines": [[list(x) for x in r.private_key_lines(t)] for t in job["texts"]],
    "value": r.redact_value({"k": job["texts"][:20], "n": 1}),
    "refusal": [d.refusal(c, job["deny"]) for c in job["commands"]],
}
sys.stdout.write(json.dumps(out))
"""

COMMANDS = [
    "ls -la",
    "env",
    "FOO=1 env",
    "sh -c 'en''v'",
    "echo $(printenv HOME)",
    "sudo timeout 5 printenv",
    "export -p",
    "cat /proc/self/environ",
    "git push origin main",
    "/usr/local/bin/aws s3 ls",
    "env X=1 python -m pytest",
    "bash -lc 'set'",
]


def corpus() -> list[str]:
    """Texts full of what the rules look for: the redaction tests' own sources (every sample
    secret, quoted as in code), the security docs (every shape in prose), redact.py itself and
    real lockfiles, whole and line by line."""
    files = [
        *sorted((ROOT / "packages" / "ctx-tree-mcp" / "tests").glob("test_mcp_redact*.py")),
        *sorted((ROOT / "packages" / "ctx-tree-mcp" / "tests").glob("test_mcp_secret*.py")),
        ROOT / "docs" / "security.md",
        ROOT / "docs" / "capture.md",
        PACKAGE / "wire" / "redact.py",
        *sorted(
            (ROOT / "packages" / "ctx-tree-mcp" / "tests" / "fixtures" / "lockfiles").glob("*")
        ),
    ]
    texts = [p.read_text("utf-8") for p in files if p.is_file()]
    lines = [line for t in texts for line in t.splitlines() if line.strip()]
    return texts + lines


def test_the_hook_python_redacts_as_the_server_does() -> None:
    texts = corpus()
    assert len(texts) > 1000
    deny = ["git push", "aws"]
    job = {"texts": texts, "commands": COMMANDS, "deny": deny}
    done = subprocess.run(
        [HOOK_PYTHON, "-I", "-S", "-c", RUNNER, str(ROOT / "plugin" / "hooks" / "vendor")],
        input=json.dumps(job).encode(), capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    got = json.loads(done.stdout)
    print(f"hook python {got['version']}, server python {list(sys.version_info[:3])}")
    expected = [list(redact.redact(t)) for t in texts]
    mismatched = [t[:200] for t, a, b in zip(texts, got["redact"], expected, strict=True) if a != b]
    assert mismatched == []
    assert sum(bool(counts) for _, counts in expected) > 50  # the corpus does hold secrets
    assert got["environment"] == [redact.redact_environment(t) for t in texts]
    assert got["key_bodies"] == [redact.redact_key_bodies(t) for t in texts]
    assert got["key_lines"] == [[list(x) for x in redact.private_key_lines(t)] for t in texts]
    assert got["value"] == redact.redact_value({"k": texts[:20], "n": 1})
    assert got["refusal"] == [refusal(c, deny) for c in COMMANDS]
