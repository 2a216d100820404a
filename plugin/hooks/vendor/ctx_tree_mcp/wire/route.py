"""Which of the host's own shell commands ctx-tree answers, and the command that runs instead.

A command the agent gives the host's shell tool is *routed* when ctx-tree can shrink its
output without changing what it does (docs/routing.md). The rewritten command runs the
original, word for word, as the first stage of a pipeline into ctx-tree's small client, which
hands the whole output to the running server (it stores all of it) and prints what the server
answers: the output itself when it fits the budget, else a slice in the native layout and one
line naming what was left out and the command that shows it.

    cat src/app.py               ->  set -o pipefail; cat src/app.py | CLIENT read 2000 …
    grep -rn Foo src | head -20  ->  grep -rn Foo src | head -20 | CLIENT grep 2000 …
    pytest -q tests              ->  set -o pipefail; pytest -q tests 2>&1 | CLIENT run 2000 …

The original stays a stage of its own, so the host's permission rules still see it and its
exit status is the pipeline's (``pipefail``; after ``| head`` the status is the last stage's,
as it was). Anything else runs unchanged: a command this module cannot read for certain
(:func:`classify` names why), one the host would deny or ask about, one it would not allow by
itself (:func:`host_allows`).

Standard library only, Python 3.8+, no package-relative imports (the hooks load it by path).
"""

from __future__ import annotations

import glob
import os
import shlex
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctx_tree_mcp.wire.routed import CLIENT_NAME, is_routed

__all__ = [
    "CLIENT_NAME",
    "GREP",
    "READ",
    "RUN",
    "Shape",
    "classify",
    "claude_hook_entry",
    "cli_rules",
    "hook_conditions",
    "host_allows",
    "is_routed",
    "paths_inside",
    "rewrite",
]

READ, GREP, RUN = "read", "grep", "run"

#: Shell operators and the characters shlex returns as operator tokens.
_OPERATOR_CHARS = ";&|()<>"
#: Redirections a routed command may end with: they change nothing the client sees but
#: stderr, and they stay on the original's stage.
_STDERR_REDIRECTIONS = (("2", ">", "/dev/null"), ("2", ">&", "1"))
#: Characters the shell expands in an unquoted word.
_GLOB_CHARS = "*?["


class Shape(NamedTuple):
    """A routed command, as :func:`classify` read it.

    ``kind``: ``read``, ``grep`` or ``run``. ``tool``: the program (``cat``, ``nl``, ``head``,
    ``tail``, ``sed``, ``grep``, ``egrep``, ``fgrep``, ``rg``, ``git grep``) or, for a run, its
    class (``test``, ``build``, ``lint``, ``install``, ``script``, ``log``). ``paths``: the
    operands naming files or directories, as written (none: the current directory).
    ``start``/``end``: a read's first and last line (1-based, inclusive; ``end`` None: to the
    end); ``last``: ``tail -n N``; ``from_line``: ``tail -n +K``. ``numbered``: the output
    carries line numbers (``nl -ba``, ``cat -n``, ``grep -n``). ``mode``: a grep's output,
    ``lines``, ``count`` (``-c``) or ``files`` (``-l``). ``head``: a grep's trailing
    ``| head -n N``. ``piped``: the original is a two-stage pipeline (its exit status is its
    last stage's). ``cd``: the directory of a leading ``cd DIR &&`` (the command runs there).
    """

    kind: str
    tool: str
    paths: tuple[str, ...] = ()
    start: int | None = None
    end: int | None = None
    last: int | None = None
    numbered: bool = False
    mode: str = "lines"
    head: int | None = None
    piped: bool = False
    cd: str | None = None


class Skip(Exception):
    """Why a command is not routed (one short phrase, docs/routing.md lists them)."""


# --- words --------------------------------------------------------------------------------


def _tokens(command: str) -> list[str]:
    """Words and operator tokens of ``command`` (quotes removed). A quoted operator character
    also comes back as an operator: such a command is then not routed, never misread."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace = " \t"
    lexer.commenters = ""
    lexer.wordchars += ":@%+,^[]~#=.-/*?{}!$`\\"
    try:
        return list(lexer)
    except ValueError:
        raise Skip("unbalanced quotes") from None


def _raw_words(command: str) -> list[str]:
    """The words with their quotes kept (shlex's non-POSIX mode): a word that does not start
    with a quote holds what the shell would expand."""
    lexer = shlex.shlex(command, posix=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        raise Skip("unbalanced quotes") from None


def _check_expansions(command: str, cwd: str | None) -> None:
    """Refuse what the shell would expand: ``$``, backquotes and ``~`` outside single quotes,
    brace lists, and a glob that matches a file in ``cwd`` (an unmatched one stays literal)."""
    for word in _raw_words(command):
        single = len(word) >= 2 and word[0] == word[-1] == "'"
        if single:
            continue
        if "$" in word or "`" in word:
            raise Skip("a substitution or variable")
        if len(word) >= 2 and word[0] == word[-1] == '"':
            continue
        if word.startswith("~"):
            raise Skip("a home-directory path (~)")
        if "{" in word or "}" in word:
            raise Skip("a brace expansion")
        # bash expands the whole word; `--include=*.py` matches no file and stays as is
        if any(c in word for c in _GLOB_CHARS) and (
            cwd is None or glob.glob(os.path.join(glob.escape(cwd), word))
        ):
            raise Skip("a glob the shell expands")


def _stages(command: str, cwd: str | None) -> tuple[str | None, list[list[str]]]:
    """A leading ``cd DIR &&``'s directory (or None) and the pipeline's stages as word lists
    (at most two); trailing stderr redirections of a stage are dropped from its words. Raises
    :class:`Skip` for anything else the shell would do: lists, subshells, other redirections,
    here-documents, expansions."""
    text = command.strip()
    if not text:
        raise Skip("empty")
    if "\n" in text or "\r" in text:
        raise Skip("several lines")
    _check_expansions(text, cwd)
    tokens = _tokens(text)
    cd = None
    if len(tokens) > 3 and tokens[0] == "cd" and tokens[2] == "&&":
        cd = tokens[1]
        if not cd or cd.startswith("-") or all(c in _OPERATOR_CHARS for c in cd):
            raise Skip("a cd other than `cd DIR &&`")
        tokens = tokens[3:]
    stages: list[list[str]] = [[]]
    for token in tokens:
        if token == "|":
            stages.append([])
            continue
        stages[-1].append(token)
    if len(stages) > 2:
        raise Skip("a pipeline")
    out = []
    for words in stages:
        words = list(words)
        for redirection in _STDERR_REDIRECTIONS:
            n = len(redirection)
            if tuple(words[-n:]) == redirection:
                words = words[:-n]
        if not words:
            raise Skip("an empty pipeline stage")
        for word in words:
            if word and all(c in _OPERATOR_CHARS for c in word):
                raise Skip("a list, subshell or redirection")
        out.append(words)
    first = out[0][0]
    if "=" in first and not first.startswith(("-", "/", ".")):
        raise Skip("an environment assignment")
    return cd, out


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() else None


# --- reads --------------------------------------------------------------------------------


def _one_file(operands: Sequence[str]) -> tuple[str, ...]:
    if len(operands) != 1 or operands[0] in ("-", ""):
        raise Skip("not one file")
    return (operands[0],)


def _sed_range(words: Sequence[str]) -> tuple[int, int, tuple[str, ...]]:
    """``sed -n 'A,Bp' [FILE]`` / ``sed -n Ap``: (A, B, operands)."""
    if len(words) < 3 or words[1] != "-n":
        raise Skip("a sed script other than -n 'A,Bp'")
    script = words[2]
    if not script.endswith("p"):
        raise Skip("a sed script other than -n 'A,Bp'")
    first, _, last = script[:-1].partition(",")
    a, b = _number(first), (_number(last) if last else _number(first))
    if a is None or b is None or a < 1 or b < a:
        raise Skip("a sed script other than -n 'A,Bp'")
    return a, b, tuple(words[3:])


def _head_count(words: Sequence[str], default: int = 10) -> tuple[int | None, tuple[str, ...]]:
    """``head``/``tail`` line counts: ``-n N``, ``-nN``, ``-N``, ``--lines=N`` (a ``+K`` is
    returned negative: from line K). Returns (count, operands)."""
    count: int | None = default
    rest = []
    i = 1
    while i < len(words):
        word = words[i]
        value = None
        if word == "-n" and i + 1 < len(words):
            value, i = words[i + 1], i + 1
        elif word.startswith("--lines="):
            value = word[len("--lines=") :]
        elif word.startswith("-n") and len(word) > 2:
            value = word[2:]
        elif word.startswith("-") and word[1:].isdigit():
            value = word[1:]
        elif word.startswith("-") and word != "-":
            raise Skip("a head/tail option other than -n N")
        else:
            rest.append(word)
        if value is not None:
            if value.startswith("+") and value[1:].isdigit():
                count = -int(value[1:])
            elif value.isdigit():
                count = int(value)
            else:
                raise Skip("a head/tail count that is not a number")
        i += 1
    return count, tuple(rest)


def _read(stages: list[list[str]]) -> Shape:
    words = stages[0]
    name = os.path.basename(words[0])
    if len(stages) == 2:
        # `nl -ba F | sed -n 'A,Bp'`, `cat -n F | sed -n …`, `cat F | head -n N`: a range
        inner = _read([words])
        if name not in ("nl", "cat") or inner.start is not None:
            raise Skip("a pipeline")
        after = os.path.basename(stages[1][0])
        if after == "sed" and inner.numbered:
            a, b, extra = _sed_range(stages[1])
        elif after == "head":
            count, extra = _head_count(stages[1])
            if count is None or count < 1:
                raise Skip("a pipeline")
            a, b = 1, count
        else:
            raise Skip("a pipeline")
        if extra:
            raise Skip("a pipeline")
        return inner._replace(start=a, end=b, piped=True)
    if name == "cat":
        flags = [w for w in words[1:] if w.startswith("-") and w != "-"]
        if any(f != "-n" for f in flags):
            raise Skip("a cat option other than -n")
        files = [w for w in words[1:] if w not in flags]
        return Shape(READ, "cat", _one_file(files), numbered="-n" in flags)
    if name == "nl":
        # every line numbered, as the file's line numbers: `nl -ba` (plain `nl` skips blanks)
        args = words[1:]
        if args[:1] == ["-ba"]:
            args = args[1:]
        elif args[:2] == ["-b", "a"]:
            args = args[2:]
        else:
            raise Skip("an nl without -ba")
        return Shape(READ, "nl", _one_file(args), numbered=True)
    if name == "head":
        count, operands = _head_count(words)
        if count is None or count < 1:
            raise Skip("a head count other than N lines")
        return Shape(READ, "head", _one_file(operands), start=1, end=count)
    if name == "tail":
        if any(w in ("-f", "-F") or w.startswith("--follow") for w in words[1:]):
            raise Skip("an interactive command")
        count, operands = _head_count(words)
        if count is None or count == 0:
            raise Skip("a tail count other than N lines")
        if count < 0:
            return Shape(READ, "tail", _one_file(operands), start=-count)
        return Shape(READ, "tail", _one_file(operands), last=count)
    if name == "sed":
        a, b, operands = _sed_range(words)
        return Shape(READ, "sed", _one_file(operands), start=a, end=b)
    raise Skip("not a command ctx-tree routes")


READERS = ("cat", "nl", "head", "tail", "sed")


# --- greps --------------------------------------------------------------------------------

#: Per grep program: options that take a value (the next word, or ``=value`` when long), and
#: the options without one that ctx-tree accepts. Anything else is not routed: an option
#: may change what runs (``rg --pre``), what is read (``grep -f``) or the output's shape.
_GREP_VALUED = {
    "grep": {
        "-e", "-A", "-B", "-C", "-m", "--include", "--exclude", "--exclude-dir",
        "--regexp", "--after-context", "--before-context", "--context", "--max-count",
        "--color", "--colour", "--binary-files",
    },
    "rg": {
        "-e", "-A", "-B", "-C", "-m", "-g", "-t", "-T", "--glob", "--iglob", "--type",
        "--type-not", "--regexp", "--after-context", "--before-context", "--context",
        "--max-count", "--color", "--max-depth", "--max-filesize", "--sort",
    },
    "git grep": {
        "-e", "-A", "-B", "-C", "-m", "--max-count", "--after-context", "--before-context",
        "--context", "--max-depth", "--color",
    },
}  # fmt: skip
_GREP_FLAGS = {
    "grep": set("nHhiIyrRwxFEGPsolcv"),
    "rg": set("nNHiISswxFPlcuv.oL"),
    "git grep": set("nhHiIwFEGPlcv"),
}
_GREP_LONG = {
    "--line-number", "--ignore-case", "--word-regexp", "--fixed-strings", "--recursive",
    "--files-with-matches", "--count", "--with-filename", "--no-filename", "--no-messages",
    "--extended-regexp", "--basic-regexp", "--perl-regexp", "--line-regexp", "--invert-match",
    "--only-matching", "--hidden", "--no-ignore", "--no-heading", "--smart-case",
    "--case-sensitive", "--no-line-number", "--untracked", "--cached", "--no-index",
    "--dereference-recursive", "--ignore-vcs", "--follow",
}  # fmt: skip


def _grep(stages: list[list[str]]) -> Shape:
    words = stages[0]
    head = None
    if len(stages) == 2:
        tail = stages[1]
        if os.path.basename(tail[0]) != "head":
            raise Skip("a pipeline")
        count, extra = _head_count(tail)
        if extra or count is None or count < 1:
            raise Skip("a pipeline")
        head = count
    name = os.path.basename(words[0])
    if name == "git":
        if len(words) < 2 or words[1] != "grep":
            raise Skip("not a command ctx-tree routes")
        program, args = "git grep", words[2:]
    elif name in ("grep", "egrep", "fgrep"):
        program, args = "grep", words[1:]
    elif name == "rg":
        program, args = "rg", words[1:]
    else:
        raise Skip("not a command ctx-tree routes")
    valued, flags = _GREP_VALUED[program], _GREP_FLAGS[program]
    letters: set[str] = set()
    longs: set[str] = set()
    pattern_given = False
    operands: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands.extend(args[i + 1 :])
            break
        if word.startswith("--"):
            key, eq, _value = word.partition("=")
            if key in valued:
                if not eq:
                    i += 1
                pattern_given = pattern_given or key == "--regexp"
            elif key in _GREP_LONG and not eq:
                longs.add(key)
            else:
                raise Skip("a grep option ctx-tree does not mirror")
        elif word.startswith("-") and len(word) > 1:
            j = 1
            while j < len(word):
                letter = word[j]
                if "-" + letter in valued:
                    if j + 1 == len(word):
                        i += 1
                    pattern_given = pattern_given or letter == "e"
                    break
                if letter.isdigit() and program == "grep":  # -5: context
                    break
                if letter not in flags:
                    raise Skip("a grep option ctx-tree does not mirror")
                letters.add(letter)
                j += 1
        else:
            operands.append(word)
        i += 1
    if not pattern_given:
        if not operands:
            raise Skip("a grep without a pattern")
        operands = operands[1:]
    mode = "lines"
    if "l" in letters or "--files-with-matches" in longs:
        mode = "files"
    elif "c" in letters or "--count" in longs:
        mode = "count"
    if "-" in operands:
        raise Skip("a grep of standard input")
    if program == "grep" and not operands and not (letters & set("rR") or "--recursive" in longs):
        raise Skip("a grep of standard input")
    numbered = "n" in letters or "--line-number" in longs
    if program == "rg":
        numbered = numbered and "N" not in letters
    return Shape(
        GREP,
        "egrep" if name == "egrep" else ("fgrep" if name == "fgrep" else program),
        tuple(operands),
        numbered=numbered,
        mode=mode,
        head=head,
        piped=head is not None,
    )


GREPPERS = ("grep", "egrep", "fgrep", "rg", "git")


# --- runs ---------------------------------------------------------------------------------

#: Runs ctx-tree answers: leading words (after the program's base name; ``python -m X`` and
#: ``npm run X`` as written) → the run's class. ``*`` stands for any one word. A program
#: not listed here is not routed (docs/routing.md: interactive programs, servers and
#: watchers are left out on purpose).
RUNS = (
    (("pytest",), "test"),
    (("py.test",), "test"),
    (("python", "-m", "pytest"), "test"),
    (("python", "-m", "unittest"), "test"),
    (("python", "-m", "mypy"), "lint"),
    (("python", "-m", "pylint"), "lint"),
    (("python", "-m", "flake8"), "lint"),
    (("python", "-m", "ruff"), "lint"),
    (("python", "-m", "pip", "install"), "install"),
    (("python", "-m", "build"), "build"),
    (("python", "-m", "compileall"), "build"),
    (("python", "setup.py"), "build"),
    (("python", "-c"), "script"),
    (("python", "*.py"), "script"),
    (("tox",), "test"),
    (("nox",), "test"),
    (("./runtests.py",), "test"),
    (("mypy",), "lint"),
    (("ruff", "check"), "lint"),
    (("ruff", "format"), "lint"),
    (("flake8",), "lint"),
    (("pylint",), "lint"),
    (("black",), "lint"),
    (("isort",), "lint"),
    (("pyright",), "lint"),
    (("pip", "install"), "install"),
    (("pip3", "install"), "install"),
    (("uv", "sync"), "install"),
    (("uv", "pip", "install"), "install"),
    (("uv", "run", "pytest"), "test"),
    (("uv", "run", "*.py"), "script"),
    (("poetry", "install"), "install"),
    (("npm", "test"), "test"),
    (("npm", "t"), "test"),
    (("npm", "install"), "install"),
    (("npm", "i"), "install"),
    (("npm", "ci"), "install"),
    (("npm", "run", "*"), "script"),
    (("pnpm", "test"), "test"),
    (("pnpm", "install"), "install"),
    (("pnpm", "i"), "install"),
    (("pnpm", "run", "*"), "script"),
    (("pnpm", "build"), "build"),
    (("pnpm", "lint"), "lint"),
    (("pnpm", "typecheck"), "lint"),
    (("pnpm", "check"), "lint"),
    (("yarn", "test"), "test"),
    (("yarn", "install"), "install"),
    (("yarn", "run", "*"), "script"),
    (("yarn", "build"), "build"),
    (("yarn", "lint"), "lint"),
    (("yarn", "typecheck"), "lint"),
    (("bun", "test"), "test"),
    (("bun", "install"), "install"),
    (("bun", "run", "*"), "script"),
    (("npx", "tsc"), "build"),
    (("npx", "jest"), "test"),
    (("npx", "vitest", "run"), "test"),
    (("npx", "eslint"), "lint"),
    (("npx", "mocha"), "test"),
    (("npx", "prettier", "--check"), "lint"),
    (("npx", "tsx", "*"), "script"),
    (("npx", "ts-node", "*"), "script"),
    (("tsc",), "build"),
    (("jest",), "test"),
    (("vitest", "run"), "test"),
    (("mocha",), "test"),
    (("eslint",), "lint"),
    (("node", "*.js"), "script"),
    (("node", "*.mjs"), "script"),
    (("node", "*.cjs"), "script"),
    (("node", "*.ts"), "script"),
    (("tsx", "*.ts"), "script"),
    (("ts-node", "*.ts"), "script"),
    (("deno", "test"), "test"),
    (("deno", "run", "*"), "script"),
    (("ruby", "*.rb"), "script"),
    (("bundle", "exec", "rspec"), "test"),
    (("rspec",), "test"),
    (("rake",), "build"),
    (("make",), "build"),
    (("cmake", "--build"), "build"),
    (("ninja",), "build"),
    (("cargo", "build"), "build"),
    (("cargo", "test"), "test"),
    (("cargo", "check"), "build"),
    (("cargo", "clippy"), "lint"),
    (("cargo", "run"), "script"),
    (("go", "test"), "test"),
    (("go", "build"), "build"),
    (("go", "vet"), "lint"),
    (("go", "run"), "script"),
    (("mvn",), "build"),
    (("./mvnw",), "build"),
    (("gradle",), "build"),
    (("./gradlew",), "build"),
    (("dotnet", "build"), "build"),
    (("dotnet", "test"), "test"),
    (("phpunit",), "test"),
    (("php", "*.php"), "script"),
    (("git", "log"), "log"),
)
#: Scripts of a package manager's ``run`` that serve or watch until stopped: never routed.
LONG_RUNNING = ("dev", "start", "serve", "server", "watch", "preview", "storybook")
#: Words that make a listed run wait for input or run until stopped.
_NEVER = {"--watch", "--watchAll", "-w", "--interactive", "-i", "--pdb", "--trace", "--serve"}
_PYTHONS = ("python", "python3")


def _program(word: str) -> str:
    """A program's name for :data:`RUNS`: its base name, ``python3.11`` → ``python``; a
    relative ``./x`` keeps its ``./``."""
    name = word if word.startswith("./") and "/" not in word[2:] else os.path.basename(word)
    stem = name.rstrip("0123456789.")
    if stem in _PYTHONS:
        return "python"
    return name


def _word_matches(want: str, have: str) -> bool:
    """A :data:`RUNS` word: itself, ``*`` (any word but an option) or ``*.ext`` (a file)."""
    if want == have:
        return True
    if have.startswith("-") or not want.startswith("*"):
        return False
    return want == "*" or have.endswith(want[1:])


def _run(stages: list[list[str]]) -> Shape:
    if len(stages) != 1:
        raise Skip("a pipeline")
    words = stages[0]
    if any(w in _NEVER for w in words[1:]):
        raise Skip("an interactive command")
    name = _program(words[0])
    rest = words[1:]
    if (
        name == "git"
        and rest[:1] == ["log"]
        and any(
            w.startswith(("-n", "--max-count", "-p", "--patch", "--follow")) or w[1:].isdigit()
            for w in rest[1:]
        )
    ):
        raise Skip("a limited git log")
    if rest[:1] == ["run"] and len(rest) > 1 and rest[1].split(":")[0] in LONG_RUNNING:
        raise Skip("an interactive command")
    for pattern, kind in RUNS:
        if pattern[0] != name or len(rest) < len(pattern) - 1:
            continue
        if all(_word_matches(want, have) for want, have in zip(pattern[1:], rest)):
            return Shape(RUN, kind, ())
    raise Skip("not a command ctx-tree routes")


# --- the whole decision -------------------------------------------------------------------


def classify(command: str, cwd: str | None = None) -> Shape:
    """The :class:`Shape` of a command ctx-tree routes.

    ``cwd``: the directory the command runs in (an unquoted glob is refused when it matches
    a file there; without ``cwd`` every glob is refused). Raises :class:`Skip` (its text
    says why) for every other command: docs/routing.md lists them.
    """
    cd, stages = _stages(command, cwd)
    if cd is not None and cwd is not None:
        _check_expansions(command, os.path.join(cwd, cd))  # globs, as seen from there
    words = stages[0]
    name = os.path.basename(words[0])
    if name in READERS:
        shape = _read(stages)
    elif name in GREPPERS and (name != "git" or words[1:2] == ["grep"]):
        shape = _grep(stages)
    else:
        shape = _run(stages)
    return shape._replace(cd=cd) if cd is not None else shape


def hook_conditions() -> list[str]:
    """The host's ``if`` conditions (Claude Code's permission-rule syntax) under which its
    PreToolUse hook asks ctx-tree at all: one per program a routed command may start with
    (``Bash(pytest *)``, ``Bash(git grep *)``, ``Bash(cd *)``…) and ``Read``. A command that
    matches none is never routed, and the host does not call the hook for it."""
    words = set(READERS) | {"grep", "egrep", "fgrep", "rg", "cd"}
    words |= {pattern[0] for pattern, _kind in RUNS if pattern[0] not in ("git", "python")}
    conditions = [f"Bash({w} *)" for w in sorted(words)]
    # python by any path or version: /usr/bin/python3, python3.11 (a leading * is the host's)
    pythons = ["Bash(*python *)", "Bash(*python3 *)", "Bash(*python3.* *)"]
    return [*conditions, *pythons, "Bash(git grep *)", "Bash(git log *)", "Read"]


def claude_hook_entry(server: str = "plugin:ctx-tree:ctx-tree") -> dict[str, object]:
    """The PreToolUse entry of Claude Code's hooks that routes: one ``mcp_tool`` hook per
    :func:`hook_conditions` condition, calling ``ctx_tree_route`` on the MCP server named
    ``server`` (``plugin:ctx-tree:ctx-tree`` for the plugin, ``ctx-tree`` for a user-level
    server) with the hook's payload; ``hooks.json`` and ``ctx-tree install`` write it."""
    payload = {
        "tool": "${tool_name}",
        "input": "${tool_input}",
        "cwd": "${cwd}",
        "mode": "${permission_mode}",
        "session": "${session_id}",
        "id": "${tool_use_id}",
    }
    hooks = [
        {
            "type": "mcp_tool",
            "server": server,
            "tool": "ctx_tree_route",
            "if": condition,
            "input": payload,
            "timeout": 10,
        }
        for condition in hook_conditions()
    ]
    return {"matcher": "Bash|Read", "hooks": hooks}


def workdir(shape: Shape, cwd: str) -> str:
    """Where the command runs: ``cwd``, or its leading ``cd DIR``'s directory from there."""
    return os.path.normpath(os.path.join(cwd, shape.cd)) if shape.cd else cwd


def paths_inside(shape: Shape, cwd: str, root: str) -> bool:
    """True when every path the command reads, and the directory it runs in, resolve
    (symbolic links followed) inside the project ``root``: the host lets such a read-only
    command run without asking (checked on Claude Code 2.1.197; a path outside is refused by
    the host)."""
    base = os.path.realpath(root)
    where = workdir(shape, cwd)
    paths = [os.path.join(where, p) for p in shape.paths or (".",)]
    for path in [*paths, where]:
        real = os.path.realpath(path)
        if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
            return False
    return True


def rewrite(command: str, shape: Shape, client: Sequence[str]) -> str:
    """The command that runs instead of ``command``: the original as the pipeline's first
    stage, into ``client`` (its words, quoted here). A single-stage original gets
    ``set -o pipefail`` (its exit status is the pipeline's); a run also sends its standard
    error into the client (``2>&1``), as a terminal shows both."""
    client_text = " ".join(shlex.quote(w) for w in client)
    original = command.strip()
    if shape.piped:
        return original + " | " + client_text
    merge = " 2>&1" if shape.kind == RUN and not original.endswith("2>&1") else ""
    return "set -o pipefail; " + original + merge + " | " + client_text


# --- what the host would allow ------------------------------------------------------------


def cli_rules(argv: Sequence[str]) -> list[tuple[str, str]]:
    """``(decision, pattern)`` for each ``Bash`` entry of the host's ``--allowedTools`` /
    ``--allowed-tools`` (``allow``) and ``--disallowedTools`` / ``--disallowed-tools``
    (``deny``) command-line options; the pattern is the text inside ``Bash(...)``, ``*`` for a
    bare ``Bash``. Entries are separated by commas or spaces outside parentheses."""
    names = {
        "--allowedTools": "allow",
        "--allowed-tools": "allow",
        "--disallowedTools": "deny",
        "--disallowed-tools": "deny",
    }
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        key, eq, value = word.partition("=")
        decision = names.get(key)
        if decision is not None:
            values = [value] if eq else []
            while not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                values.append(argv[i + 1])
                i += 1
            for text in values:
                for entry in _entries(text):
                    if entry == "Bash":
                        out.append((decision, "*"))
                    elif entry.startswith("Bash(") and entry.endswith(")"):
                        out.append((decision, entry[5:-1].strip() or "*"))
        i += 1
    return out


def _entries(text: str) -> list[str]:
    """``Bash,Read Bash(git log:*)`` → ``["Bash", "Read", "Bash(git log:*)"]``."""
    out: list[str] = []
    depth, current = 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                out.append(current)
            current = ""
            continue
        current += ch
    if current:
        out.append(current)
    return out


def project_trusted(root: str, env: dict[str, str] | None = None) -> bool:
    """Whether the host honours the project's own allow rules (``.claude/settings.json`` and
    ``settings.local.json``): Claude Code does only in a trusted folder, one that or an
    ancestor of which has ``hasTrustDialogAccepted`` in its global config
    (``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``), or when
    ``CLAUDE_CODE_SANDBOXED`` is set (read in Claude Code 2.1.197; an untrusted project's allow
    rules were ignored there, its deny rules were not)."""
    import json

    env = dict(os.environ) if env is None else env
    if env.get("CLAUDE_CODE_SANDBOXED", "").lower() in ("1", "true", "yes"):
        return True
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    home = os.path.expanduser(env.get("HOME") or "~")
    path = (
        os.path.join(config_dir, ".claude.json")
        if config_dir
        else os.path.join(home, ".claude.json")
    )
    try:
        with open(path, "rb") as f:
            projects = json.loads(f.read(16 << 20)).get("projects") or {}
    except (OSError, ValueError, AttributeError):
        return False
    if not isinstance(projects, dict):
        return False
    for start in {os.path.abspath(root), os.path.realpath(root)}:
        here = start
        while True:
            entry = projects.get(here)
            if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
                return True
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return False


def host_allows(
    shape: Shape,
    simple_commands: Sequence[str],
    mode: str,
    allow_patterns: Sequence[str],
    matches: Callable[[str, str], bool],
    inside: bool,
) -> tuple[bool, str]:
    """Whether the host would run the original command without asking, and why: in
    ``bypassPermissions`` mode; when an allow pattern (``Bash(...)`` of its settings or its
    command line) matches each of the command's ``simple_commands`` (``matches(pattern,
    command)``: the host's matching); or, for a read or a grep, when every path it reads is
    ``inside`` the project (the host runs read-only commands there without asking, except in
    ``dontAsk`` mode with no rule). Deny and ask rules are the caller's to check first."""
    if mode == "bypassPermissions":
        return True, "bypassPermissions mode"
    if simple_commands and all(any(matches(p, c) for p in allow_patterns) for c in simple_commands):
        return True, "an allow rule"
    if shape.kind in (READ, GREP) and inside and mode in ("default", "acceptEdits", "plan", "auto"):
        return True, "a read-only command inside the project"
    return False, "the host would ask"
