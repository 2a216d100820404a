"""The steering hook's matchers (``plugin/hooks/steer.py``, plain string scanning) find exactly
what the regular expressions they stand for find, on generated and real commands and files;
the capture hook's trigger scan finds exactly the triggers a text holds; and a steering hook's
process loads no ``re`` for any host's payload (importing ``re`` costs
~27M instructions, docs/benchmarks.md#hooks)."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from e2e_support import STDLIB

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "plugin" / "hooks"
HOOK = HOOKS / "ctx_tree_hook.py"
HOOK_PYTHON = os.environ.get("CTX_TREE_HOOK_PYTHON") or sys.executable
sys.path.insert(0, str(HOOKS))
import steer  # noqa: E402

#: The regular expressions steer.py matched with before (the comment beside each matcher).
ORACLES = {
    "noisy": re.compile(
        r"^(?:pytest|py\.test|tox|nox|jest|vitest|mocha|ava|phpunit|rspec|ctest|tsc|make"
        r"|gmake|ninja|mvn|gradle|\./gradlew|\./mvnw"
        r"|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|check)"
        r"|cargo (?:test|build|check|clippy|bench)|go (?:test|build|vet)"
        r"|dotnet (?:build|test)|swift (?:build|test)|bazel (?:build|test)"
        r"|cmake --build|docker (?:build|compose build)|pip install|npm (?:install|ci))\b"
    ),
    "wrappers": re.compile(
        r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|time|nice|command|env|timeout \S+|"
        r"uv run(?: --\S+)*|poetry run|pipenv run|hatch run|pdm run|npx|pnpm exec|bunx|"
        r"python3? -m|python3?\.\d+ -m)\s+)+"
    ),
    "limited": re.compile(
        r"\|\s*(?:head|tail|grep|rg|wc|less|more|jq|sort|uniq|awk|sed|cut)\b"
        r"|(?<![0-9&>])>>?\s*[^&\s]"
    ),
    "git_log_limit": re.compile(r"\s(?:-n\s*\d+|-\d+|--max-count[= ]\d+|--since|--after|-L)"),
    "git_log": re.compile(r"^git\s+log\b"),
    "pager": re.compile(r"^(?:cat|less|more)\s+\S+$"),
    "separators": re.compile(r"&&|\|\||;|\n|\|"),
    "regex_syntax": re.compile(r"[\\.*+?()\[\]{}|^$]"),
    "definition": re.compile(
        rb"^[ \t]*(?:export[ \t]+)?(?:pub(?:\([a-z]+\))?[ \t]+)?(?:async[ \t]+)?"
        rb"(?:def|class|function|func|fn|struct|interface|enum|trait|impl|module)[ \t]+"
        rb"([A-Za-z_][A-Za-z0-9_]*)",
        re.M,
    ),
}

#: Commands as agents write them.
REAL = [
    "pytest -q", "uv run pytest tests/ -x", "cd web && npm test", "cargo build --release",
    "git log", "git log --oneline", "git log -n 5", "git log -20 --oneline", "pytest -q | tail -20",
    "make > build.log 2>&1", "ls -la", "echo pytest", "FOO=1 BAR=x sudo -E timeout 300 make -j4",
    "timeout 600 uv run --frozen python -m pytest packages/ctx-tree-mcp -q -x -n 2",
    "python3.11 -m pytest -k 'cache and not slow'", "poetry run pytest --cov", "npx jest --ci",
    "pnpm exec vitest run", "bunx tsc --noEmit", "cd /repo && git log --since=2.weeks -- src/",
    "git --no-pager log --oneline -n 30", "git log -L 10,20:app.py", "cat README.md",
    "cat setup.py | head -50", "less +G build.log", "cat a.txt b.txt", "more 'notes file.txt'",
    "docker compose build && docker compose up -d", "pip install -e '.[dev]' 2>&1 | tail -3",
    "npm ci && npm run build", "go test ./... -run TestCache -count=1", "go vet ./...",
    "dotnet test --no-build", "swift build -c release", "bazel test //...:all",
    "cmake --build build -j8", "./gradlew test --info", "./mvnw -q verify", "tox -e py311",
    "nox -s lint", "CI=true yarn test --watchAll=false", "env -i PATH=/usr/bin make",
    "command -v pytest || pip install pytest", "sudo apt-get install -y ripgrep",
    "find . -name '*.py' | xargs grep -n TODO", "grep -rn 'def ' src | wc -l",
    "python -c 'import sys; print(sys.path)'", "rspec spec/models", "phpunit --testdox",
    "ctest --output-on-failure", "make test >> log.txt", "make &> all.log", "make 2>/dev/null",
    "git status; git diff --stat", "while true; do pytest -x || break; done",
    "bash -c 'cd sub && make'", "time make all", "nice -n 10 cargo bench", "cat <<EOF > f\nx\nEOF",
    "git log --max-count=5", "git log --max-count 5 --stat", "git log --after=2024-01-01",
]  # fmt: skip
ENV = ["", "", "FOO=1 ", "A_B=x ", "CI=true DEBUG= ", '_X="a b" ', "9A=1 ", "é=1 "]
WRAP = [
    "", "", "", "sudo ", "time ", "nice ", "command ", "env ", "timeout 5 ", "timeout 10s ",
    "timeout  5 ", "uv run ", "uv run --frozen ", "uv run --with x ", "uv run --", "uv run\t",
    "poetry run ", "pipenv run ", "hatch run ", "pdm run ", "npx ", "pnpm exec ", "bunx ",
    "python -m ", "python3 -m ", "python3.11 -m ", "python3.x -m ", "python -mpytest ",
    "sudo -E ", "env -i ", "timeout",
]  # fmt: skip
PROGRAMS = [
    "pytest", "pytest -q", "py.test tests/", "tox -e py311", "nox -s lint", "jest --ci",
    "vitest run", "mocha", "make", "make -j4 all", "gmake", "ninja -C build", "mvn package",
    "gradle build", "./gradlew test", "./mvnw verify", "npm test", "npm run build", "pnpm lint",
    "yarn run check", "bun test", "cargo test", "cargo clippy --all", "go test ./...", "go vet",
    "dotnet build", "swift test", "bazel build //...", "cmake --build build", "docker build .",
    "docker compose build", "pip install -e .", "npm install", "npm ci", "git log",
    "git log --oneline", "git log -n 5", "git log -n5", "git log -n x", "git  log", "git\tlog -20",
    "git log --max-count=3", "git log --max-count 3", "git log --max-count=", "git log --since=x",
    "git log -L 1,2:f.py", "git log\u00a0-5", "git logx", "git log_x", "git status",
    "cat README.md", "cat a b", "less setup.py", "more notes.txt", "cat", "cat  x", "catalog x",
    "ls -la", "echo pytest", "pytestx", "pytest_x", "pytest-x", "makefile", "npm testx",
    "npm test_", "cd web", "grep -r foo .", "python x.py", "tsc --noEmit", "rspec spec/",
    "phpunit", "ctest", "ava", "cat 'my file.txt'", 'cat "a b.txt"', "mvnw", "pytest\u00e9",
    "make\u0663", "go  test",
]  # fmt: skip
TAILS = [
    "", "", "", " | head -20", " | tail", "| grep FAIL", " |wc -l", " | less", " |  more",
    " | jqx", " | sort", " > out.log", " >> out.log", " 2>&1", " > out.log 2>&1", " &> all.log",
    " >/dev/null", " > &", " >", ">x", ">>&", " | tee log", " || true", " && echo ok",
    "; echo done", " &", "\n", " 3> x", " >\u00a0x", " |\u2003head",
]  # fmt: skip
SEPARATORS = [" && ", " || ", "; ", ";", "\n", " | ", "|", "&&", " & ", "|||", ";;"]
PIECES = [
    *WRAP, *PROGRAMS, *TAILS, *SEPARATORS, " ", "  ", "\t", "\x0b", "\u00a0", "\u2003", "\x1c",
    "-", "--", "-n", "-5", "=", "'", '"', "$(", ")", "_", "x", "1", "\u0663", "é", "ß", ">",
]  # fmt: skip


def commands(rng: random.Random, count: int) -> list[str]:
    """Real commands, structured ones (env prefixes, wrappers, program, pipes and redirects,
    joined by separators) and random runs of their pieces (near misses)."""
    out = list(REAL)
    for _ in range(count):
        if rng.random() < 0.6:
            simple = [
                rng.choice(ENV) + "".join(rng.choice(WRAP) for _ in range(rng.randrange(3)))
                + rng.choice(PROGRAMS) + rng.choice(TAILS)
                for _ in range(rng.randrange(1, 4))
            ]  # fmt: skip
            text = simple[0]
            for part in simple[1:]:
                text += rng.choice(SEPARATORS) + part
            if rng.random() < 0.1:
                text = rng.choice(["bash -c '%s'", 'sh -c "%s"', " %s ", "(%s)"]) % text
        else:
            text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(8)))
        out.append(text)
    return out


def old_programs(command: str) -> list[str]:
    parts = (ORACLES["wrappers"].sub("", p.strip()) for p in ORACLES["separators"].split(command))
    return [w for w in parts if w]


def old_bash_advice(command: str, root: str) -> str:
    """steer.bash_advice as it was, over the regular expressions."""
    if not command.strip():
        return ""
    if not any(w in command.lower() for w in steer._BASH_WORDS):
        return ""
    if ORACLES["limited"].search(command):
        return ""
    for words in old_programs(command):
        if ORACLES["noisy"].match(words):
            why = "test runs and builds print a lot"
        elif ORACLES["git_log"].match(words) and not ORACLES["git_log_limit"].search(" " + words):
            why = "git log without a limit prints the whole history"
        elif ORACLES["pager"].match(words):
            return steer.read_advice({"file_path": words.split()[1]}, root, 400)
        else:
            continue
        call = "ctx_tree_bash(command=%s)" % steer.dumps(command)
        return steer._fit(
            "ctx-tree: %s. Cheaper: %s stores the full output and returns the exit code, "
            "failures and tail." % (why, call),
            "ctx-tree: cheaper: %s (full output stored; exit code, failures and tail "
            "returned)." % call,
            "ctx-tree: %s. Cheaper: the same command through ctx_tree_bash(command=...)." % why,
        )
    return ""


def test_command_matchers_find_what_their_regular_expressions_find() -> None:
    rng = random.Random(28)
    seen = dict.fromkeys(["noisy", "wrappers", "limited", "git_log", "git_log_limit", "pager"], 0)
    for text in commands(rng, 25_000):
        assert steer.noisy(text) == bool(ORACLES["noisy"].match(text)), text
        unwrapped = ORACLES["wrappers"].sub("", text)
        assert steer.unwrapped(text) == unwrapped, text
        assert steer.limited(text) == bool(ORACLES["limited"].search(text)), text
        assert steer.git_log(text) == bool(ORACLES["git_log"].match(text)), text
        bounded = bool(ORACLES["git_log_limit"].search(" " + text))
        assert steer.git_log_limited(text) == bounded, text
        paged = ORACLES["pager"].match(text)
        assert (steer.pager(text) is not None) == bool(paged), text
        if paged and "\n" not in text:
            assert steer.pager(text) == text.split()[1]
        programs = list(steer._programs(text))
        assert programs == old_programs(text), text
        for words in programs:  # the matchers meet the unwrapped words in the hook
            assert steer.noisy(words) == bool(ORACLES["noisy"].match(words)), words
            assert steer.git_log(words) == bool(ORACLES["git_log"].match(words)), words
            bounded = bool(ORACLES["git_log_limit"].search(" " + words))
            assert steer.git_log_limited(words) == bounded, words
            assert (steer.pager(words) is not None) == bool(ORACLES["pager"].match(words))
        seen["noisy"] += bool(ORACLES["noisy"].match(text))
        seen["wrappers"] += unwrapped != text
        seen["limited"] += bool(ORACLES["limited"].search(text))
        seen["git_log"] += any(ORACLES["git_log"].match(w) for w in programs)
        seen["git_log_limit"] += bounded
        seen["pager"] += any(ORACLES["pager"].match(w) for w in programs)
    # the texts reach every shape, not only near misses
    assert min(seen.values()) > 300, seen


def test_bash_advice_is_what_it_was_over_the_regular_expressions(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("line\n" * 500)
    (tmp_path / "setup.py").write_text("def f():\n    pass\n" * 300)
    rng = random.Random(2028)
    hinted = 0
    for text in commands(rng, 20_000):
        got = steer.bash_advice({"command": text}, str(tmp_path), 400)
        assert got == old_bash_advice(text, str(tmp_path)), text
        hinted += bool(got)
    assert hinted > 2000


def test_the_grep_literal_is_the_pattern_without_its_regex_syntax() -> None:
    rng = random.Random(7)
    alphabet = "\\.*+?()[]{}|^$ab_9 -é"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(10)))
        assert text.translate(steer._REGEX_SYNTAX) == ORACLES["regex_syntax"].sub("", text)


def test_character_classes_are_the_str_methods_re_uses() -> None:
    every = "".join(map(chr, range(0x110000)))
    assert set(re.findall(r"\s", every)) == set(filter(str.isspace, every))
    assert set(re.findall(r"\d", every)) == set(filter(str.isdecimal, every))
    assert set(re.findall(r"\w", every)) == set(filter(str.isalnum, every)) | {"_"}


DEFINITION_PIECES = [
    b"def", b"class", b"function", b"func", b"fn", b"struct", b"interface", b"enum", b"trait",
    b"impl", b"module", b"export", b"pub", b"pub(crate)", b"pub()", b"pub(A)", b"pub(a", b"async",
    b"functionx", b"defx", b" ", b"  ", b"\t", b"\r", b"\n", b"\n", b"\x0b", b"x", b"_a1", b"9",
    b"(", b"name", b"\xc3\xa9", b"#", b"0", b"\x00",
]  # fmt: skip


def test_definitions_are_found_as_their_regular_expression_finds_them() -> None:
    rng = random.Random(5)
    matched = 0
    for _ in range(30_000):
        data = b"".join(
            rng.choice(DEFINITION_PIECES) + rng.choice([b" ", b"\t", b"", b""])
            for _ in range(rng.randrange(12))
        )
        expected = ORACLES["definition"].findall(data)
        assert steer.definition_names(data) == expected, data
        matched += bool(expected)
    assert matched > 3000
    # real files: the interpreter's own sources, and the same made one 4 MB text
    sources = sorted(STDLIB.glob("*.py"))[:80] + sorted(STDLIB.glob("json/*.py"))
    for path in sources:
        data = path.read_bytes()
        assert steer.definition_names(data) == ORACLES["definition"].findall(data), path
    names = steer.definition_names(b"".join(p.read_bytes() for p in sources))
    assert len(names) > 1000


def _steering_payloads(project: Path) -> list[tuple[str, dict, str]]:
    big = project / "big.py"
    big.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(1000)))
    common = {"session_id": "s", "cwd": str(project), "transcript_path": ""}
    out = "x\n" * 100 + "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    return [
        ("pre-tool", {**common, "tool_name": "Read", "tool_input": {"file_path": str(big)}},
         "handler_0"),
        ("pre-tool", {**common, "tool_name": "Bash", "tool_input": {"command": "pytest -q"}},
         "ctx_tree_bash"),
        ("pre-tool", {**common, "tool_name": "Bash",
                      "tool_input": {"command": "FOO=1 uv run --frozen git log"}},
         "git log without a limit"),
        ("pre-tool", {**common, "tool_name": "Grep",
                      "tool_input": {"pattern": ".*", "output_mode": "content"}},
         "ctx_tree_grep"),
        ("gemini AfterTool", {**common, "hook_event_name": "AfterTool",
                              "tool_name": "run_shell_command",
                              "tool_input": {"command": "pytest -q"},
                              "tool_response": {"llmContent": out, "returnDisplay": ""}},
         "ctx_tree_bash"),
        ("opencode tool.execute.after", {**common, "tool": "bash",
                                         "args": {"command": "pytest -q"}, "output": out},
         "ctx_tree_bash"),
        ("cline PreToolUse", {**common, "hookName": "PreToolUse", "taskId": "t",
                              "workspaceRoots": [str(project)],
                              "preToolUse": {"toolName": "read_files",
                                             "parameters": {"files": [{"path": str(big)}]}}},
         "ctx_tree_read"),
    ]  # fmt: skip


def test_a_steering_hook_loads_no_re_for_any_hosts_payload(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    for event, payload, hint in _steering_payloads(project):
        done = subprocess.run(
            [HOOK_PYTHON, "-X", "importtime", "-I", "-S", str(HOOK), *event.split()],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env={
                "PATH": os.environ["PATH"],
                "HOME": str(home),
                "CTX_TREE_HOME": str(home),
                "CLAUDE_PROJECT_DIR": str(project),
            },
            timeout=20,
        )
        assert done.returncode == 0
        assert hint in done.stdout.decode(), (event, done.stdout)
        imported = {
            line.rsplit("|", 1)[1].strip()
            for line in done.stderr.decode().splitlines()
            if line.startswith("import time:") and "|" in line
        }
        # the hook runs its own modules from their bytecode (hook_main.load), out of this list;
        # what they import from the standard library is in it
        assert "_json" in imported, sorted(imported)
        assert "re" not in imported and "enum" not in imported, (event, sorted(imported))


def test_the_hooks_trigger_scan_finds_each_trigger_the_text_holds(tmp_path: Path) -> None:
    import capture
    from ctx_tree_mcp.wire.spool import generated

    triggers = generated()["redact_triggers"]
    letters = generated()["redact_letters"]
    assert set(letters) == {c for t in triggers for c in t}
    rng = random.Random(31)
    fill = ["x", " ", "\n", "p", "a", "s", "$", ":", "-", "e", "t", "o", "k", "n", "é"]
    found = 0
    for size in [0, 1, 5, 40, 400, 4000] * 300:
        pieces = [rng.choice(triggers) if rng.random() < 0.3 else rng.choice(fill)]
        while sum(map(len, pieces)) < size:
            piece = rng.choice(triggers + fill * 4)
            if rng.random() < 0.3:  # a cut trigger: a near miss
                piece = piece[: rng.randrange(len(piece) + 1)]
            pieces.append(piece)
        lowered = "".join(pieces)
        got = capture.triggers_present(lowered, triggers, letters)
        assert got == {t: t in lowered for t in triggers}, lowered
        found += sum(got.values())
    # the output the hooks bench captures: common characters, a token at the end
    lowered = ("line 00001 of a realistic tool output, some words here\n" * 2000).lower()
    for text in (lowered, lowered + "ghp_bench0token1", "$1$" + lowered + ":5432:"):
        got = capture.triggers_present(text, triggers, letters)
        assert got == {t: t in text for t in triggers}
    assert found > 5000
