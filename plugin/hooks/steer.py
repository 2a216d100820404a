"""Steering rules of ctx-tree's PreToolUse hook: before a native Read, Grep or Bash that would
pour a lot into the context, name the ctx-tree call that costs less (docs/capture.md).

``advise`` returns the hook's stdout: in ``hint`` mode the tool runs and the model sees the
suggestion as additional context; in ``deny`` mode the call is refused with the suggestion as
the reason. Each suggestion is at most 60 tokens (240 characters). Standard library only.
"""

import os

from fastjson import dumps

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
#: passed over without importing ``re`` (~4 ms).
_BASH_WORDS = (
    "test", "make", "ninja", "mvn", "gradle", "npm", "pnpm", "yarn", "bun", "cargo", "go ",
    "dotnet", "swift", "bazel", "cmake", "docker", "pip", "tox", "nox", "jest", "vitest",
    "mocha", "ava", "phpunit", "rspec", "tsc", "git", "cat", "less", "more",
)  # fmt: skip
_PATTERNS = {}


def _re(name):
    """The compiled pattern ``name``, compiled on first use (``re`` is imported only then)."""
    if name not in _PATTERNS:
        import re

        multiline = re.M
        sources = {
            "definition": (
                rb"^[ \t]*(?:export[ \t]+)?(?:pub(?:\([a-z]+\))?[ \t]+)?(?:async[ \t]+)?"
                rb"(?:def|class|function|func|fn|struct|interface|enum|trait|impl|module)[ \t]+"
                rb"([A-Za-z_][A-Za-z0-9_]*)",
                multiline,
            ),
            # test runners, builds, installs: matched on the words after wrappers
            "noisy": (
                r"^(?:pytest|py\.test|tox|nox|jest|vitest|mocha|ava|phpunit|rspec|ctest|tsc|make"
                r"|gmake|ninja|mvn|gradle|\./gradlew|\./mvnw"
                r"|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|check)"
                r"|cargo (?:test|build|check|clippy|bench)|go (?:test|build|vet)"
                r"|dotnet (?:build|test)|swift (?:build|test)|bazel (?:build|test)"
                r"|cmake --build|docker (?:build|compose build)|pip install|npm (?:install|ci))\b",
                0,
            ),
            "wrappers": (
                r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|time|nice|command|env|timeout \S+|"
                r"uv run(?: --\S+)*|poetry run|pipenv run|hatch run|pdm run|npx|pnpm exec|bunx|"
                r"python3? -m|python3?\.\d+ -m)\s+)+",
                0,
            ),
            "limited": (
                r"\|\s*(?:head|tail|grep|rg|wc|less|more|jq|sort|uniq|awk|sed|cut)\b"
                r"|(?<![0-9&>])>>?\s*[^&\s]",
                0,
            ),
            "git_log_limit": (r"\s(?:-n\s*\d+|-\d+|--max-count[= ]\d+|--since|--after|-L)", 0),
            "git_log": (r"^git\s+log\b", 0),
            "pager": (r"^(?:cat|less|more)\s+\S+$", 0),
            "separators": (r"&&|\|\||;|\n|\|", 0),
            "regex_syntax": (r"[\\.*+?()\[\]{}|^$]", 0),
        }
        source, flags = sources[name]
        _PATTERNS[name] = re.compile(source, flags)
    return _PATTERNS[name]


def advise(payload, root, steer):
    """The hook's stdout for a PreToolUse payload ('' when nothing to say)."""
    tool = payload.get("tool_name")
    tin = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
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
        return ""
    if steer.get("mode") == "deny":
        out = {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": text,
        }
    else:
        out = {"hookEventName": "PreToolUse", "additionalContext": text}
    return dumps({"hookSpecificOutput": out})


def _fit(*variants):
    """The first variant that fits MAX_CHARS (the last one cut if none does)."""
    for text in variants:
        if len(text) <= MAX_CHARS:
            return text
    return variants[-1][: MAX_CHARS - 1] + "…"


def _relative(path, root):
    """``path`` relative to the project root, or None when it lies outside."""
    if not isinstance(path, str) or not path:
        return None
    real = os.path.realpath(os.path.join(root, path))
    rel = os.path.relpath(real, root)
    return None if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def file_facts(absolute, limit=0):
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
    names = _re("definition").findall(data) if lines > limit else []
    first = names[0].decode("ascii", "replace") if names else ""
    return lines, size, len(names), first


def read_advice(tin, root, limit):
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


def grep_advice(tin):
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
    literal = _re("regex_syntax").sub("", bare)
    if not (pattern.strip() in _ANYTHING or len(literal) <= 2 or literal.lower() in _COMMON_WORDS):
        return ""
    call = "ctx_tree_grep(pattern=%s, budget_tokens=1500)" % dumps(pattern)
    return _fit(
        "ctx-tree: this grep matches almost every file and may flood the context. Cheaper: %s "
        "stores every match and returns a budgeted slice with counts." % call,
        "ctx-tree: cheaper: %s (budgeted slice, full output stored)." % call,
    )


def _programs(command):
    """Each simple command's words after wrappers (``uv run``, ``VAR=1``, ``python -m``)."""
    for part in _re("separators").split(command):
        words = _re("wrappers").sub("", part.strip())
        if words:
            yield words


def bash_advice(tin, root, limit):
    command = tin.get("command")
    if not isinstance(command, str) or not command.strip() or tin.get("run_in_background"):
        return ""
    lowered = command.lower()
    if not any(word in lowered for word in _BASH_WORDS) or _re("limited").search(command):
        return ""
    why = ""
    for words in _programs(command):
        if _re("noisy").match(words):
            why = "test runs and builds print a lot"
        elif _re("git_log").match(words) and not _re("git_log_limit").search(" " + words):
            why = "git log without a limit prints the whole history"
        elif _re("pager").match(words):
            return read_advice({"file_path": words.split()[1]}, root, limit)
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
