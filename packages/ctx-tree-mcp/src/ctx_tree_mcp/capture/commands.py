"""Which shell commands are never captured: those that print the environment (``env`` with no
command to run, ``printenv``) and the project's ``bash.deny`` list.

Standard library only and no package-relative imports: the plugin's hook loads this file by
path under a bare ``python3``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

_SPLIT = re.compile(r"&&|\|\||[;|&\n()`]|\$\(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = {"sudo", "exec", "command", "builtin", "nohup", "time", "xargs", "nice"}


def _words(part: str) -> list[str]:
    try:
        return shlex.split(part, comments=True)
    except ValueError:
        return part.split()


def refusal(command: str, deny: Iterable[str] = ()) -> str | None:
    """Why ``command`` must not be captured, as one sentence; None when it may.

    ``deny`` holds the project's entries (config ``bash.deny``): one or more shell words each;
    a simple command is refused when its words start with them, the program compared by its
    base name.
    """
    entries = [w for w in (_words(e) for e in deny) if w]
    for part in _SPLIT.split(command):
        words = _words(part)
        while words and (_ASSIGNMENT.match(words[0]) or words[0].rsplit("/", 1)[-1] in _WRAPPERS):
            words = words[1:]
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program == "printenv" or (
            program == "env" and all(_ASSIGNMENT.match(w) or w.startswith("-") for w in words[1:])
        ):
            return f"`{program}` prints the environment (secrets); it is never captured"
        if program in ("export", "declare", "set", "typeset") and len(words) == 1 + (
            words[1:2] == ["-x"] or words[1:2] == ["-p"]
        ):
            return f"bare `{program}` prints the environment (secrets); it is never captured"
        normal = [program, *words[1:]]
        for entry in entries:
            if normal[: len(entry)] == [entry[0].rsplit("/", 1)[-1], *entry[1:]]:
                return f"`{' '.join(entry)}` is on this project's bash.deny list"
    return None
