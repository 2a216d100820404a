"""Steering rules of ctx-tree's PreToolUse hook: before a native Read, Grep or Bash that would
pour a lot into the context, name the ctx-tree call that costs less (docs/capture.md).

``advise`` returns the hook's answer: in ``hint`` mode the tool runs and the model sees the
suggestion as additional context; in ``deny`` mode the call is refused with the suggestion as
the reason. Each suggestion is at most 60 tokens (240 characters). Standard library only.

Commands and definitions are matched by plain string scanning, not ``re``: importing ``re``
costs a hook's process ~27M instructions (~4-8 ms, docs/benchmarks.md#hooks), more than the
hook's own work. Each matcher finds what the regular expression in the comment beside it
finds (``\\s`` and ``\\S`` are ``str.isspace``, ``\\d`` is ``str.isdecimal``, a word character
is ``str.isalnum`` or ``_``, as in ``re``'s Unicode patterns); a test checks each one against
its expression on generated and real commands.
"""

import os

from ctx_tree_mcp.wire.answer import Answer
from ctx_tree_mcp.wire.fastjson import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ctx_tree_mcp.wire.payload import Reader

MAX_CHARS = 240  # 60 tokens at ctx-tree's estimate of 4 characters a token
#: Read: at most this much of a file is scanned; a larger one has its line count estimated.
SCAN_BYTES = 4 << 20
NOT_TEXT = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".pdf", ".ipynb")
#: Grep patterns that match almost every line.
_ANYTHING = {".", ".*", ".+", "^", "$", r"\w", r"\w+", r"\S", r"\S+", r"\s", "[a-z]", "[A-Za-z]"}
_COMMON_WORDS = {
    "import", "from", "def", "class", "function", "return", "if", "for", "const", "let", "var",
    "self", "this", "the", "public", "private", "static", "void", "int", "string", "new", "func",
}  # fmt: skip
#: Words one of which every command :func:`bash_advice` flags holds: a command holding none is
#: passed over at once.
_BASH_WORDS = (
    "test", "make", "ninja", "mvn", "gradle", "npm", "pnpm", "yarn", "bun", "cargo", "go ",
    "dotnet", "swift", "bazel", "cmake", "docker", "pip", "tox", "nox", "jest", "vitest",
    "mocha", "ava", "phpunit", "rspec", "tsc", "git", "cat", "less", "more",
)  # fmt: skip
#: A grep pattern's regular-expression syntax, deleted to leave its literal part
#: (``re.sub(r"[\\.*+?()\[\]{}|^$]", "", pattern)``).
_REGEX_SYNTAX = {ord(c): None for c in "\\.*+?()[]{}|^$"}

# --- definitions in a file's bytes -----------------------------------------------------------

_ID_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_ID_CHARS = _ID_START | frozenset(b"0123456789")
#: Each byte that cannot be in an identifier mapped to a space (``bytes.translate``).
_ID_TABLE = bytes(c if c in _ID_CHARS else 32 for c in range(256))
_LOWER = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_DEF_WORDS = frozenset(
    (b"def", b"class", b"function", b"func", b"fn", b"struct", b"interface", b"enum", b"trait",
     b"impl", b"module")
)  # fmt: skip
#: The first byte of each word a definition line can start with.
_DEF_FIRST = frozenset(w[:1] for w in _DEF_WORDS | {b"export", b"pub", b"async"})


def _pub(word: bytes) -> bool:
    """``pub`` or ``pub(<lower-case letters>)``: ``pub(?:\\([a-z]+\\))?``."""
    return word == b"pub" or (
        word[:4] == b"pub(" and word[-1:] == b")" and len(word) > 5
        and all(c in _LOWER for c in word[4:-1])
    )  # fmt: skip


def _split_word(text: bytes) -> "tuple[bytes, bytes] | None":
    """``(first word, the rest without its leading spaces)`` of bytes ``text``; None when no
    space follows the first word."""
    word, sep, rest = text.partition(b" ")
    return (word, rest.lstrip(b" ")) if sep else None


def definition_name(line: bytes) -> "bytes | None":
    """The name a definition line defines, or None. ``line``: bytes with no ``\\n``, its tabs
    made spaces and its leading spaces taken off (as :func:`definition_names` passes it).

    As ``re.match(rb"[ \\t]*(?:export[ \\t]+)?(?:pub(?:\\([a-z]+\\))?[ \\t]+)?(?:async[ \\t]+)?"
    rb"(?:def|class|function|func|fn|struct|interface|enum|trait|impl|module)[ \\t]+"
    rb"([A-Za-z_][A-Za-z0-9_]*)", line).group(1)``: each word there is followed by spaces,
    and none of ``export``, ``pub`` and ``async`` is another of its words, so each is taken
    where it stands and never has to be given back."""
    parts = _split_word(line)
    for prefix in (b"export", b"pub", b"async"):  # each at most once, in this order
        if parts is None:
            return None
        if parts[0] == prefix or (prefix == b"pub" and parts[0][:3] == b"pub" and _pub(parts[0])):
            parts = _split_word(parts[1])
    if parts is None:
        return None
    word, rest = parts
    if not rest or word not in _DEF_WORDS or rest[0] not in _ID_START:
        return None
    end = rest.translate(_ID_TABLE).find(b" ")
    return rest if end < 0 else rest[:end]


def definition_names(data: bytes) -> "list[bytes]":
    """Every definition's name in ``data`` (bytes, a file's text), in order, at most one a
    line: what :func:`definition_name`'s pattern with ``re.M`` finds (``findall``). About as
    fast as that pattern on a 3,000-line file and twice as fast on 4 MB."""
    names = []
    first = _DEF_FIRST
    for line in data.replace(b"\t", b" ").split(b"\n"):
        line = line.lstrip(b" ")
        if line[:1] in first:
            name = definition_name(line)
            if name is not None:
                names.append(name)
    return names


# --- commands --------------------------------------------------------------------------------

_ASCII_ID_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_ASCII_ID_CHARS = _ASCII_ID_START | frozenset("0123456789")
#: Programs whose runs print a lot (test runners, builds, installs), each matched at the start of
#: a simple command's words and ended by a word boundary: ``re.match(r"(?:pytest|py\.test|tox|
#: nox|jest|vitest|mocha|ava|phpunit|rspec|ctest|tsc|make|gmake|ninja|mvn|gradle|\./gradlew|
#: \./mvnw|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|check)|cargo (?:test|build|check|
#: clippy|bench)|go (?:test|build|vet)|dotnet (?:build|test)|swift (?:build|test)|bazel (?:build|
#: test)|cmake --build|docker (?:build|compose build)|pip install|npm (?:install|ci))\b", words)``
_NOISY = (
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "phpunit", "rspec",
    "ctest", "tsc", "make", "gmake", "ninja", "mvn", "gradle", "./gradlew", "./mvnw",
    *[
        "%s%s %s" % (tool, run, task)
        for tool in ("npm", "pnpm", "yarn", "bun")
        for run in ("", " run")
        for task in ("test", "build", "lint", "check")
    ],
    "cargo test", "cargo build", "cargo check", "cargo clippy", "cargo bench",
    "go test", "go build", "go vet", "dotnet build", "dotnet test", "swift build", "swift test",
    "bazel build", "bazel test", "cmake --build", "docker build", "docker compose build",
    "pip install", "npm install", "npm ci",
)  # fmt: skip
#: Programs after a pipe that bound what reaches the context.
_LIMITERS = ("head", "tail", "grep", "rg", "wc", "less", "more", "jq", "sort", "uniq", "awk",
             "sed", "cut")  # fmt: skip
#: Wrapper words taken off a simple command's start when whitespace follows them.
_WRAPPER_WORDS = ("sudo", "time", "nice", "command", "env")
_RUNNERS = ("poetry run", "pipenv run", "hatch run", "pdm run", "npx", "pnpm exec", "bunx")


def _word_end(text: str, i: int) -> bool:
    """``\\b`` at ``text[i]`` after a word character: the end, or a non-word character."""
    return i >= len(text) or not (text[i].isalnum() or text[i] == "_")


def _spaces_end(text: str, i: int) -> int:
    """The end of the run of whitespace (``\\s+``) at ``text[i]``, or -1 when there is none."""
    n, j = len(text), i
    while j < n and text[j].isspace():
        j += 1
    return j if j > i else -1


def _token_end(text: str, i: int) -> int:
    """The end of the run of non-whitespace (``\\S*``) at ``text[i]``."""
    n = len(text)
    while i < n and not text[i].isspace():
        i += 1
    return i


def _wrapper_end(text: str, i: int) -> int:
    """Where one wrapper and the whitespace after it end, from ``text[i]``; -1 when none
    starts there. One turn of ``(?:[A-Za-z_][A-Za-z0-9_]*=\\S*|sudo|time|nice|command|env|
    timeout \\S+|uv run(?: --\\S+)*|poetry run|pipenv run|hatch run|pdm run|npx|pnpm exec|bunx|
    python3? -m|python3?\\.\\d+ -m)\\s+``."""
    n = len(text)
    if i >= n:
        return -1
    if text[i] in _ASCII_ID_START:  # VAR=value
        j = i + 1
        while j < n and text[j] in _ASCII_ID_CHARS:
            j += 1
        if j < n and text[j] == "=":
            end = _spaces_end(text, _token_end(text, j + 1))
            if end > 0:
                return end
    for word in _WRAPPER_WORDS:
        if text.startswith(word, i):
            end = _spaces_end(text, i + len(word))
            if end > 0:
                return end
    if text.startswith("timeout ", i):
        j = _token_end(text, i + 8)
        if j > i + 8:
            end = _spaces_end(text, j)
            if end > 0:
                return end
    if text.startswith("uv run", i):
        ends = [i + 6]
        while text.startswith(" --", ends[-1]):
            j = _token_end(text, ends[-1] + 3)
            if j == ends[-1] + 3:
                break
            ends.append(j)
        for j in reversed(ends):  # an option at the very end is given back to `\s+`
            end = _spaces_end(text, j)
            if end > 0:
                return end
    for word in _RUNNERS:
        if text.startswith(word, i):
            end = _spaces_end(text, i + len(word))
            if end > 0:
                return end
    if text.startswith("python", i):
        after = (i + 7, i + 6) if text.startswith("3", i + 6) else (i + 6,)
        for j in after:  # python3? -m
            if text.startswith(" -m", j):
                end = _spaces_end(text, j + 3)
                if end > 0:
                    return end
        for j in after:  # python3?\.\d+ -m
            if text.startswith(".", j) and text[j + 1 : j + 2].isdecimal():
                k = j + 2
                while k < n and text[k].isdecimal():
                    k += 1
                if text.startswith(" -m", k):
                    end = _spaces_end(text, k + 3)
                    if end > 0:
                        return end
    return -1


def unwrapped(words: str) -> str:
    """``words`` without the wrappers it starts with (``uv run``, ``VAR=1``, ``sudo``,
    ``timeout 5``, ``python -m``): ``re.sub(r"^(?:(?:WRAPPER)\\s+)+", "", words)``, one
    wrapper as :func:`_wrapper_end` matches it."""
    i = 0
    while True:
        end = _wrapper_end(words, i)
        if end < 0:
            return words[i:]
        i = end


def _programs(command: str) -> "Iterator[str]":
    """Each simple command's words after wrappers: the parts between ``&&``, ``||``, ``;``, a
    line break and ``|`` (``re.split(r"&&|\\|\\||;|\\n|\\|", command)``), stripped, unwrapped."""
    parts = command.replace("&&", "\n").replace("||", "\n").replace(";", "\n").replace("|", "\n")
    for part in parts.split("\n"):
        words = unwrapped(part.strip())
        if words:
            yield words


def limited(command: str) -> bool:
    """True when the command bounds its output: piped to a program that cuts it, or redirected
    to a file (``re.search(r"\\|\\s*(?:head|tail|grep|rg|wc|less|more|jq|sort|uniq|awk|sed|cut)
    \\b|(?<![0-9&>])>>?\\s*[^&\\s]", command)``)."""
    n = len(command)
    i = command.find("|")
    while i >= 0:
        j = i + 1
        while j < n and command[j].isspace():
            j += 1
        for word in _LIMITERS:
            if command.startswith(word, j) and _word_end(command, j + len(word)):
                return True
        i = command.find("|", i + 1)
    i = command.find(">")
    while i >= 0:
        if i == 0 or command[i - 1] not in "0123456789&>":
            if command.startswith(">", i + 1):
                return True  # `>>`, or `>` then the second `>` as the target's first character
            j = i + 1
            while j < n and command[j].isspace():
                j += 1
            if j < n and command[j] != "&" and not command[j].isspace():
                return True
        i = command.find(">", i + 1)
    return False


def noisy(words: str) -> bool:
    """True when a simple command's words (wrappers taken off) start a test run, build or
    install (:data:`_NOISY`)."""
    return any(words.startswith(p) and _word_end(words, len(p)) for p in _NOISY)


def git_log(words: str) -> bool:
    """``re.match(r"git\\s+log\\b", words)``."""
    if not words.startswith("git"):
        return False
    j = _spaces_end(words, 3)
    return j > 0 and words.startswith("log", j) and _word_end(words, j + 3)


def git_log_limited(words: str) -> bool:
    """True when a ``git log`` is bounded: ``re.search(r"\\s(?:-n\\s*\\d+|-\\d+|--max-count[= ]
    \\d+|--since|--after|-L)", " " + words)``."""
    text = " " + words
    n = len(text)
    i = text.find("-")
    while i >= 0:
        if text[i - 1].isspace():
            if text.startswith(("--since", "--after", "-L"), i) or text[i + 1 : i + 2].isdecimal():
                return True
            if text.startswith("-n", i):
                j = i + 2
                while j < n and text[j].isspace():
                    j += 1
                if text[j : j + 1].isdecimal():
                    return True
            if (
                text[i + 11 : i + 12] in ("=", " ")
                and text.startswith("--max-count", i)
                and text[i + 12 : i + 13].isdecimal()
            ):
                return True
        i = text.find("-", i + 1)
    return False


def pager(words: str) -> "str | None":
    """The file a ``cat``, ``less`` or ``more`` of one file pages, or None:
    ``re.match(r"(?:cat|less|more)\\s+\\S+$", words)``."""
    for program in ("cat", "less", "more"):
        if words.startswith(program):
            j = _spaces_end(words, len(program))
            if j < 0:
                return None
            path = words[j:-1] if words.endswith("\n") else words[j:]
            return path if path and path.split() == [path] else None
    return None


def advise(payload: "Reader", root: str, steer: "dict[str, Any]") -> "Answer | None":
    """The answer to a pre-tool payload: a hint, or a refusal in ``deny`` mode; None when
    there is nothing to say."""
    tool = payload.text("tool_name")
    tin = payload.mapping("tool_input")
    limit = steer.get("readLines", 400)
    if tool == "Read":
        text = read_advice(tin, root, limit)
    elif tool == "Grep":
        text = grep_advice(tin)
    elif tool == "Bash":
        text = bash_advice(tin, root, limit)
    else:
        text = ""
    if not text:
        return None
    if steer.get("mode") == "deny":
        return Answer(decision="deny", reason=text)
    return Answer(context=text)


def _fit(*variants: str) -> str:
    """The first variant that fits MAX_CHARS (the last one cut if none does)."""
    for text in variants:
        if len(text) <= MAX_CHARS:
            return text
    return variants[-1][: MAX_CHARS - 1] + "…"


def _relative(path: object, root: str) -> "str | None":
    """``path`` relative to the project root, or None when it lies outside."""
    if not isinstance(path, str) or not path:
        return None
    real = os.path.realpath(os.path.join(root, path))
    rel = os.path.relpath(real, root)
    return None if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def file_facts(absolute: str, limit: int = 0) -> "tuple[int, int, int, str] | None":
    """``(lines, bytes, definitions, first definition name)`` of a text file, or None for a
    binary, unreadable or non-regular file. Lines past SCAN_BYTES are estimated."""
    try:
        size = os.stat(absolute).st_size
        with open(absolute, "rb") as fh:
            data = fh.read(SCAN_BYTES)
    except (OSError, ValueError):
        return None
    if b"\0" in data[:8192]:
        return None
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if size > len(data) and data:
        lines = lines * size // len(data)
    names = definition_names(data) if lines > limit else []
    first = names[0].decode("ascii", "replace") if names else ""
    return lines, size, len(names), first


def read_advice(tin: "dict[str, Any]", root: str, limit: int) -> str:
    if tin.get("offset") is not None or tin.get("limit") is not None:
        return ""
    path = tin.get("file_path")
    rel = _relative(path, root)
    if rel is None or rel.lower().endswith(NOT_TEXT):
        return ""
    facts = file_facts(os.path.join(root, rel), limit)
    if facts is None or facts[0] <= limit:
        return ""
    lines, size, defs, first = facts
    head = "ctx-tree: %s is %s lines (~%sk tokens)" % (
        rel,
        format(lines, ","),
        max(1, size // 4000),
    )
    outline = 'ctx_tree_read(path="%s")' % rel
    if first:
        then = '; then symbol="%s" or query="…"' % first
        return _fit(
            "%s. Cheaper: %s returns its outline (%d definitions)%s." % (head, outline, defs, then),
            "%s. Cheaper: %s returns its outline%s." % (head, outline, then),
            "File is %s lines. Cheaper: %s, then symbol= or query=."
            % (format(lines, ","), outline),
        )
    return _fit(
        '%s. Cheaper: %s with query="…" or start_line/end_line.' % (head, outline),
        "File is %s lines. Cheaper: %s with query= or start_line/end_line."
        % (format(lines, ","), outline),
    )


def grep_advice(tin: "dict[str, Any]") -> str:
    if (
        tin.get("output_mode") != "content"
        or tin.get("head_limit")
        or tin.get("glob")
        or tin.get("type")
    ):
        return ""
    pattern = tin.get("pattern")
    if not isinstance(pattern, str):
        return ""
    bare = pattern.strip().strip("^$").replace("\\b", "")
    literal = bare.translate(_REGEX_SYNTAX)
    if not (pattern.strip() in _ANYTHING or len(literal) <= 2 or literal.lower() in _COMMON_WORDS):
        return ""
    call = "ctx_tree_grep(pattern=%s, budget_tokens=1500)" % dumps(pattern)
    return _fit(
        "ctx-tree: this grep matches almost every file and may flood the context. Cheaper: %s "
        "stores every match and returns a budgeted slice with counts." % call,
        "ctx-tree: cheaper: %s (budgeted slice, full output stored)." % call,
    )


def bash_advice(tin: "dict[str, Any]", root: str, limit: int) -> str:
    command = tin.get("command")
    if not isinstance(command, str) or not command.strip() or tin.get("run_in_background"):
        return ""
    lowered = command.lower()
    if not any(word in lowered for word in _BASH_WORDS) or limited(command):
        return ""
    why = ""
    for words in _programs(command):
        if noisy(words):
            why = "test runs and builds print a lot"
        elif git_log(words) and not git_log_limited(words):
            why = "git log without a limit prints the whole history"
        else:
            path = pager(words)
            if path is not None:
                return read_advice({"file_path": path}, root, limit)
        if why:
            break
    if not why:
        return ""
    call = "ctx_tree_bash(command=%s)" % dumps(command)
    return _fit(
        "ctx-tree: %s. Cheaper: %s stores the full output and returns the exit code, failures and tail."
        % (why, call),
        "ctx-tree: cheaper: %s (full output stored; exit code, failures and tail returned)." % call,
        "ctx-tree: %s. Cheaper: the same command through ctx_tree_bash(command=...)." % why,
    )
