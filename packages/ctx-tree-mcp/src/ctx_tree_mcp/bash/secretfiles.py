"""Commands that print a secret file: ``cat .env``, ``head ~/.aws/credentials``, ``sort < .npmrc``.

The path denylist (``paths.py``) guards ``ctx_tree_read`` and ``ctx_tree_grep``; a command
can open any file. This check refuses the plain cases before a command runs (``ctx_tree_bash``)
and drops a captured native Bash run of one (capture ingest): a program that prints or dumps
files (:data:`READERS`) given a denylisted path, or any command whose standard input is
redirected from one. A program that only uses the file (``source .env && npm test``,
``docker run --env-file .env``) is left alone: what it prints is redacted like any output.
See ``docs/security.md``.
"""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING

from .denylist import shell_tokens

if TYPE_CHECKING:
    from pathlib import Path

    from ..paths import PathPolicy

__all__ = ["READERS", "secret_file_read"]

#: Programs that print the files named in their arguments (or dump, diff or copy them out).
READERS = frozenset(
    {
        "cat", "tac", "nl", "less", "more", "most", "head", "tail", "bat", "batcat", "view",
        "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "cut", "sort",
        "uniq", "paste", "column", "fold", "fmt", "pr", "strings", "xxd", "od", "hexdump",
        "base64", "base32", "jq", "yq", "diff", "cmp", "comm", "vim", "vi", "nano", "emacs",
        "tee", "cp", "scp", "rsync", "curl", "openssl", "gpg",
    }
)  # fmt: skip
_OPERATORS = set(";&|()\n")
_MAX_GLOB = 200


def secret_file_read(command: str, policy: PathPolicy, cwd: Path) -> str | None:
    """The first path in ``command`` that a reader program is given, or that standard input
    is redirected from, and that matches the secret-file denylist (relative to the project
    root, or at any depth for an absolute or ``~`` path); None when there is none.
    ``cwd``: the directory the command runs in (globs are expanded there)."""
    tokens = shell_tokens(command)
    program = ""
    redirect_in = redirect_out = False
    for token in tokens:
        if token and set(token) <= _OPERATORS:
            program, redirect_in = "", False
            continue
        if token and set(token) <= set("<>&"):
            redirect_in = token.startswith("<") and token not in ("<<", "<<<")
            redirect_out = not redirect_in
            continue
        if redirect_out:  # the file written to, not read
            redirect_out = False
            continue
        if not program and not redirect_in:
            if "=" in token and not token.startswith("-"):
                continue  # VAR=value before the program
            program = os.path.basename(token)
            if program in ("sudo", "nohup", "time", "command", "exec", "xargs"):
                program = ""  # a wrapper: the next word is the program
            continue
        reads = redirect_in or program in READERS
        redirect_in = False
        if not reads:
            continue
        for path in _paths(token, cwd):
            if _denied(path, policy, cwd):
                return path
    return None


def _paths(word: str, cwd: Path) -> list[str]:
    """The paths a word names: itself, the value of ``--opt=value``, a glob's matches."""
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if value.startswith("-") or not value:
        return []
    value = os.path.expanduser(value)
    if any(c in value for c in "*?["):
        found = glob.glob(value, root_dir=cwd, include_hidden=True)[:_MAX_GLOB]
        return found
    return [value]


def _denied(path: str, policy: PathPolicy, cwd: Path) -> bool:
    joined = os.path.join(cwd, path)
    # the name as written and the file it is (a symlink ``notes.txt`` -> ``.env``)
    return any(_denied_at(p, policy) for p in {os.path.normpath(joined), os.path.realpath(joined)})


def _denied_at(full: str, policy: PathPolicy) -> bool:
    root = str(policy.root)
    if full == root or full.startswith(root + os.sep):
        return policy.is_denied(os.path.relpath(full, root).replace(os.sep, "/"))
    # outside the root: the denylist's patterns match at any depth (``**/.aws/credentials``)
    return policy.is_denied(full.lstrip("/"))
