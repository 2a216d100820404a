"""Which shell commands ``ctx_tree_bash`` refuses before running anything.

Refused: commands that print the process environment (``env`` with no command to run,
``printenv``, bare ``export``/``set``/``declare -x``, reading ``/proc/<pid>/environ``), and
the project's own list (config key ``bash.deny``). The command is split into shell words
(:mod:`shlex`) and simple commands (at ``;``, ``&&``, ``||``, ``|``, ``&``, newlines,
parentheses, ``$(…)`` and backticks), so quoting (``'en''v'``), paths (``/usr/bin/env``),
wrappers (``sudo``, ``nohup``, ``timeout 5``, ``xargs``, ``env X=1``) and ``sh -c '…'`` /
``eval`` strings do not hide a refused command. It cannot see through interpreters
(``python -c``), variables (``$cmd``), generated strings or scripts on disk: output
redaction is the safety net (see ``docs/security.md``).

Standard library only, Python 3.8+: the capture hooks import it for a command that may be
refused (docs/capture.md; tested under 3.8 by the ``hooks-oldest`` nox session).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Sequence

__all__ = [
    "ENVIRONMENT_PRINTERS",
    "REFUSAL_WORDS",
    "SHELLS",
    "refusal",
    "shell_script",
    "shell_tokens",
    "simple_commands",
    "strip_prefix",
    "unwrap_once",
]

#: Programs refused whatever their arguments (they print environment variables).
ENVIRONMENT_PRINTERS = ("printenv",)

_SEPARATORS = {";", ";;", "&", "&&", "|", "||", "|&", "(", ")", "\n", "{", "}", "!", "`", "$"}
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case"}
_KEYWORDS |= {"esac", "in", "function", "select", "coproc", "time"}
#: Wrappers that run their arguments as a command: name -> options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "nohup": frozenset(),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "setsid": frozenset(),
    "busybox": frozenset(),
    "watch": frozenset({"-n", "--interval"}),
    "chronic": frozenset(),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_PROC_ENVIRON = re.compile(r"/proc/[^/\s]*/(?:task/[^/\s]*/)?environ")
_MAX_DEPTH = 4


#: Every command :func:`refusal` refuses holds one of these, or the first word of one of the
#: ``deny`` entries, once its quotes and backslashes are removed. The capture hooks import this
#: module (``re`` and ``shlex``: ~5 ms of a hook's process) only for a command that holds one
#: (``may_refuse`` in ``plugin/hooks/capture.py``, with these words from ``generated.py``).
REFUSAL_WORDS = ("env", "export", "declare", "typeset", "set", "readonly")


def refusal(command: str, deny: Iterable[str] = ()) -> str | None:
    """Why ``command`` must not run, as one sentence; None when it may run.

    ``deny`` holds the project's extra entries (config ``bash.deny``): each is one or more
    shell words, and a simple command is refused when its words start with them (the program
    compared by its base name, so ``"aws"`` refuses ``/usr/local/bin/aws s3 ls`` and
    ``"git push"`` refuses ``git push origin main`` but not ``git pull``).
    """
    entries = [words for words in (_split_words(entry) for entry in deny) if words]
    return _check(command, entries, 0)


def _check(command: str, entries: list[list[str]], depth: int) -> str | None:
    if _PROC_ENVIRON.search(command):
        return "reading /proc/<pid>/environ prints the environment (secrets); it is refused"
    if depth > _MAX_DEPTH:
        return None
    for words in simple_commands(command):
        reason = _check_words(words, entries, depth)
        if reason:
            return reason
    return None


def _check_words(words: list[str], entries: list[list[str]], depth: int) -> str | None:
    words = strip_prefix(words)
    while words:
        name = os.path.basename(words[0])
        for entry in entries:
            if _starts_with(words, entry):
                return (
                    f"`{' '.join(entry)}` is on this project's command denylist (bash.deny); "
                    "run it yourself outside the agent if it is needed"
                )
        if name in ENVIRONMENT_PRINTERS:
            return f"`{name}` prints environment variables (secrets); it is refused"
        if name in SHELLS:
            script = shell_script(words[1:])
            return _check(script, entries, depth + 1) if script is not None else None
        if name == "eval":
            return _check(" ".join(words[1:]), entries, depth + 1)
        if name in ("export", "declare", "typeset", "set", "readonly") and _prints_variables(
            name, words[1:]
        ):
            return f"`{' '.join(words)}` prints environment variables (secrets); it is refused"
        inner = unwrap_once(words)
        if name == "env" and not inner:
            return "`env` without a command prints the environment (secrets); it is refused"
        if inner is None:
            return None
        words = inner
    return None


def unwrap_once(words: Sequence[str]) -> list[str] | None:
    """The command a wrapper in ``words[0]`` runs (``sudo -u x cat f`` → ``cat f``,
    ``timeout 5 make``, ``env X=1 make``, ``nohup``, ``xargs`` …; assignments and shell keywords
    dropped); ``[]`` when it runs none (bare ``env``); None when ``words[0]`` is no wrapper
    (``command -v env`` only looks a name up)."""
    name = os.path.basename(words[0])
    if name == "command" and any(w in ("-v", "-V") for w in words[1:2]):
        return None  # `command -v env` looks the name up; it runs nothing
    if name in _WRAPPERS:
        return strip_prefix(_skip_options(list(words[1:]), _WRAPPERS[name]))
    if name == "timeout":
        rest = _skip_options(list(words[1:]), frozenset({"-s", "--signal", "-k", "--kill-after"}))
        return strip_prefix(rest[1:])  # the duration
    return None


def _prints_variables(name: str, args: list[str]) -> bool:
    """``export``, ``export -p``, ``declare -x``, ``set`` (no arguments) list the variables."""
    names = [a for a in args if not a.startswith(("-", "+"))]
    if names:
        return False
    if name == "set":
        return not args
    return not args or any(a in ("-p", "-x", "-px", "-xp") for a in args)


def _starts_with(words: list[str], entry: list[str]) -> bool:
    if len(words) < len(entry):
        return False
    # An entry naming a program by its path matches that path exactly; a bare name matches
    # the program's base name (`aws` refuses /usr/local/bin/aws too).
    first = words[0] if "/" in entry[0] else os.path.basename(words[0])
    return first == entry[0] and words[1 : len(entry)] == entry[1:]


def shell_script(args: list[str]) -> str | None:
    """The script of ``sh -c SCRIPT`` (also ``bash -lc``, ``sh -e -c``); None without ``-c``."""
    options: list[str] = []
    for i, arg in enumerate(args):
        if not arg.startswith("-") or arg in ("-", "--"):
            has_c = any("c" in o for o in options)
            rest = args[i + 1 :] if arg == "--" else args[i:]
            return (rest[0] if rest else None) if has_c else None
        options.append(arg[1:] if not arg.startswith("--") else "")
    return None


def _skip_options(words: list[str], with_value: frozenset[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            return words[i + 1 :]
        i += 2 if words[i] in with_value else 1
    return words[i:]


def strip_prefix(words: Sequence[str]) -> list[str]:
    """Drop leading ``NAME=value`` assignments and shell keywords."""
    i = 0
    while i < len(words) and (_ASSIGNMENT.match(words[i]) or words[i] in _KEYWORDS):
        i += 1
    return list(words[i:])


def _split_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def shell_tokens(command: str) -> list[str]:
    """The words and operators of ``command`` as a POSIX shell splits them, quotes removed
    (``;``, ``&&``, ``|``, ``(``, ``<``, ``>`` and newlines are tokens of their own). With
    unbalanced quotes, a split on whitespace and operators instead, so the command is still
    checked."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.commenters = ""
    # Characters shlex would make words of their own (``http://x:9`` as ``http : //x : 9``).
    lexer.wordchars += ":@%+,^[]~#"
    try:
        return list(lexer)
    except ValueError:
        unquoted = command.replace("'", "").replace('"', "")
        return re.findall(r"[;&|()<>\n`$]+|[^\s;&|()<>`$]+", unquoted)


def simple_commands(command: str) -> list[list[str]]:
    """The command's simple commands as word lists, redirections removed."""
    tokens = shell_tokens(command)
    out: list[list[str]] = []
    words: list[str] = []
    skip_target = False
    for token in tokens:
        if token in _SEPARATORS or (token and set(token) <= set(";&|\n")):
            if words:
                out.append(words)
            words = []
            continue
        if set(token) <= set("<>&|") and ("<" in token or ">" in token):
            if words and words[-1].isdigit():
                words.pop()  # the file descriptor of "2>file"
            skip_target = True
            continue
        if skip_target:
            skip_target = False
            continue
        words.append(token)
    if words:
        out.append(words)
    return out
