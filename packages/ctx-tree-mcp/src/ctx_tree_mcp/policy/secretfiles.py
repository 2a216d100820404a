"""Commands that print a secret file: ``cat .env``, ``head ~/.aws/credentials``, ``sort < .npmrc``.

The path denylist (``paths.py``) guards ``ctx_tree_read`` and ``ctx_tree_grep``; a command
can open any file. This check refuses the plain cases before a command runs (``ctx_tree_bash``)
and drops a captured native Bash run of one (capture ingest): a program that prints or dumps
files (:data:`READERS`, or ``git show``/``diff``/``log -p`` …: :data:`GIT_READERS`) given a
denylisted path, an interpreter's inline script that reads one (``python -c
"print(open('.env').read())"``), or any command whose standard input is redirected from one. A program that only uses the file (``source .env && npm test``,
``docker run --env-file .env``) is left alone: what it prints is redacted like any output.
See ``docs/security.md``.
"""

from __future__ import annotations

import glob
import os
import re
from typing import TYPE_CHECKING

from ctx_tree_mcp.wire.denylist import (
    SHELLS,
    shell_script,
    shell_tokens,
    strip_prefix,
    unwrap_once,
)

if TYPE_CHECKING:
    from pathlib import Path

    from ctx_tree_mcp.policy.paths import PathPolicy

__all__ = ["GIT_READERS", "READERS", "secret_file_read"]

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
#: ``git`` subcommands that print the files (or the versions of them) named in their arguments:
#: ``git show HEAD:.env``, ``git diff .env``; ``log`` only with a patch (``git log -p .env``).
GIT_READERS = frozenset({"show", "diff", "blame", "annotate", "cat-file", "grep", "format-patch"})
_GIT_PATCH_FLAGS = frozenset({"-p", "-u", "--patch", "--full-diff"})
#: ``git`` options whose value is the next word (``git -C dir show …``).
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
#: Interpreters whose inline script (``python -c``, ``node -e``, ``perl -e``, ``php -r``) is
#: read for a secret file it opens: ``python -c "print(open('.env').read())"``.
_INTERPRETER = re.compile(r"(?:python|pypy)[\d.]*|node(?:js)?|bun|deno|ruby|perl|php")
_SCRIPT_FLAGS = frozenset({"-c", "-e", "-E", "-p", "-r", "--eval", "--print"})
#: A script that reads a file (``open(``, ``read_text``, ``readFileSync``, ``File.read``, ``slurp``,
#: ``file_get_contents``); one that only loads or names it (``load_dotenv('.env')``) is left alone.
_SCRIPT_READS = re.compile(r"\bopen\s*\(|read|slurp|file_get_contents|\bcat\b", re.IGNORECASE)
_LITERAL = re.compile(r"""(['"`])([^'"`\n]{1,300})\1""")
_OPERATORS = set(";&|()\n`$")
_MAX_DEPTH = 4  # nested sh -c / eval strings looked into
_MAX_GLOB = 200


def secret_file_read(command: str, policy: PathPolicy, cwd: Path, _depth: int = 0) -> str | None:
    """The first path in ``command`` that a reader program is given, or that standard input
    is redirected from, and that matches the secret-file denylist (relative to the project
    root, or at any depth for an absolute or ``~`` path); None when there is none.
    ``cwd``: the directory the command runs in (globs are expanded there). Seen through, as
    the environment check sees them (``denylist.py``): wrappers (``sudo``, ``timeout 5``,
    ``env X=1``), shell keywords, ``$(…)`` and backticks, ``sh -c '…'`` and ``eval``."""
    for words, read_in in _simple_commands(shell_tokens(command)):
        for word in read_in:
            for path in _paths(word, cwd):
                if _denied(path, policy, cwd):
                    return path
        found = _read_by(words, policy, cwd, _depth)
        if found is not None:
            return found
    return None


def _simple_commands(tokens: list[str]) -> list[tuple[list[str], list[str]]]:
    """Per simple command: its words without redirections, and the files standard input is
    redirected from (``< .env``; not a here-document's delimiter)."""
    out: list[tuple[list[str], list[str]]] = []
    words: list[str] = []
    read_in: list[str] = []
    target = ""  # "in" or "out": the next word is a redirection's file
    for token in tokens:
        if token and set(token) <= _OPERATORS:
            out.append((words, read_in))
            words, read_in, target = [], [], ""
            continue
        if token and set(token) <= set("<>&"):
            if words and words[-1].isdigit():
                words.pop()  # the file descriptor of "2>file"
            target = "in" if token.startswith("<") and token not in ("<<", "<<<") else "out"
            continue
        if target:
            if target == "in":
                read_in.append(token)
            target = ""
            continue
        words.append(token)
    out.append((words, read_in))
    return [(w, r) for w, r in out if w or r]


def _read_by(words: list[str], policy: PathPolicy, cwd: Path, depth: int) -> str | None:
    """The denylisted path the simple command ``words`` prints, or None."""
    words = strip_prefix(words)
    while words:
        name = os.path.basename(words[0])
        if name in SHELLS or name == "eval":
            script = shell_script(words[1:]) if name in SHELLS else " ".join(words[1:])
            if script is None or depth >= _MAX_DEPTH:
                return None
            return secret_file_read(script, policy, cwd, depth + 1)
        inner = unwrap_once(words)
        if inner is None:
            break
        words = inner
    if not words:
        return None
    name, args = os.path.basename(words[0]), words[1:]
    if name == "git":
        given = [_revision_path(a) for i, a in enumerate(args) if _git_prints(args[: i + 1])]
    elif _INTERPRETER.fullmatch(name):
        given = [
            literal
            for i, arg in enumerate(args)
            if i and args[i - 1] in _SCRIPT_FLAGS
            for literal in _script_reads(arg)
        ]
    elif name in READERS:
        given = args
    else:
        return None
    for word in given:
        for path in _paths(word, cwd):
            if _denied(path, policy, cwd):
                return path
    return None


def _revision_path(word: str) -> str:
    """The path of git's ``REV:PATH`` (``HEAD:.env``), else the word."""
    return word.split(":", 1)[1] if ":" in word and "://" not in word else word


def _script_reads(script: str) -> list[str]:
    """The string literals of an inline script that reads files (the paths it may open)."""
    if not _SCRIPT_READS.search(script):
        return []
    return [m.group(2) for m in _LITERAL.finditer(script)]


def _git_prints(words: list[str]) -> bool:
    """True when the last of ``words`` (what follows ``git``) is an argument of a subcommand
    that prints the files it names (:data:`GIT_READERS`, or ``log`` with a patch)."""
    sub, i = "", 0
    while i < len(words) - 1 and not sub:
        word = words[i]
        if word in _GIT_VALUED:
            i += 1  # its value
        elif not word.startswith("-"):
            sub = word
        i += 1
    if not sub or i > len(words) - 1:
        return False  # the last word is the subcommand itself, or a global option
    return sub in GIT_READERS or (sub == "log" and not _GIT_PATCH_FLAGS.isdisjoint(words))


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
