"""The routing rules (``wire/route.py``, docs/routing.md): which shell commands are routed, read
how, and which are left alone and why; the rewritten command; what the host would allow."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ctx_tree_mcp.wire import permissions, route
from ctx_tree_mcp.wire.route import GREP, READ, RUN, Shape, Skip, classify

ROUTED = [
    # reads: the file, the lines, the numbering of the native command
    ("cat src/a.py", Shape(READ, "cat", ("src/a.py",))),
    ("cat -n a.py", Shape(READ, "cat", ("a.py",), numbered=True)),
    ("nl -ba a.py", Shape(READ, "nl", ("a.py",), numbered=True)),
    ("nl -b a a.py", Shape(READ, "nl", ("a.py",), numbered=True)),
    ("head a.py", Shape(READ, "head", ("a.py",), start=1, end=10)),
    ("head -n 40 a.py", Shape(READ, "head", ("a.py",), start=1, end=40)),
    ("head -40 a.py", Shape(READ, "head", ("a.py",), start=1, end=40)),
    ("head -n40 a.py", Shape(READ, "head", ("a.py",), start=1, end=40)),
    ("head --lines=40 a.py", Shape(READ, "head", ("a.py",), start=1, end=40)),
    ("tail -n 20 a.py", Shape(READ, "tail", ("a.py",), last=20)),
    ("tail -n +300 a.py", Shape(READ, "tail", ("a.py",), start=300)),
    ("sed -n '10,80p' a.py", Shape(READ, "sed", ("a.py",), start=10, end=80)),
    ("sed -n 10,80p a.py", Shape(READ, "sed", ("a.py",), start=10, end=80)),
    ("sed -n '7p' a.py", Shape(READ, "sed", ("a.py",), start=7, end=7)),
    (
        "nl -ba a.py | sed -n '100,220p'",
        Shape(READ, "nl", ("a.py",), start=100, end=220, numbered=True, piped=True),
    ),
    (
        "cat -n a.py | sed -n 5,9p",
        Shape(READ, "cat", ("a.py",), start=5, end=9, numbered=True, piped=True),
    ),
    ("cat a.py | head -n 30", Shape(READ, "cat", ("a.py",), start=1, end=30, piped=True)),
    ("cat a.py 2>/dev/null", Shape(READ, "cat", ("a.py",))),
    # greps: the shape of their output
    ("grep -rn Foo src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -n Foo a.py b.py", Shape(GREP, "grep", ("a.py", "b.py"), numbered=True)),
    ("grep -c Foo a.py", Shape(GREP, "grep", ("a.py",), mode="count")),
    ("grep -rl Foo .", Shape(GREP, "grep", (".",), mode="files")),
    ("grep -r --count Foo .", Shape(GREP, "grep", (".",), mode="count")),
    ("grep -rn -A 3 -B2 Foo src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -rn -5 Foo src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -rn -e Foo -e Bar src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -rn 'a|b' src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -rn 'end$' src", Shape(GREP, "grep", ("src",), numbered=True)),
    ("grep -rn --include=*.py Foo .", Shape(GREP, "grep", (".",), numbered=True)),
    ("grep -rn --include '*.py' Foo .", Shape(GREP, "grep", (".",), numbered=True)),
    ("egrep -rn 'a|b' src", Shape(GREP, "egrep", ("src",), numbered=True)),
    (
        "grep -rn Foo src | head -20",
        Shape(GREP, "grep", ("src",), numbered=True, head=20, piped=True),
    ),
    (
        "grep -rn Foo src | head -n 5",
        Shape(GREP, "grep", ("src",), numbered=True, head=5, piped=True),
    ),
    ("grep -rn Foo src 2>&1", Shape(GREP, "grep", ("src",), numbered=True)),
    ("rg Foo", Shape(GREP, "rg", ())),
    ("rg -n Foo src", Shape(GREP, "rg", ("src",), numbered=True)),
    ("rg -l -g '*.py' Foo", Shape(GREP, "rg", (), mode="files")),
    ("rg -n -N Foo", Shape(GREP, "rg", ())),
    ("git grep -n Foo", Shape(GREP, "git grep", (), numbered=True)),
    ("git grep -n Foo -- src", Shape(GREP, "git grep", ("src",), numbered=True)),
    # runs: by their class
    ("pytest -q tests/test_x.py", Shape(RUN, "test")),
    ("python -m pytest -x", Shape(RUN, "test")),
    ("python3.11 -m pytest", Shape(RUN, "test")),
    ("/usr/bin/python3 reproduce.py", Shape(RUN, "script")),
    ("python -c 'print(1)'", Shape(RUN, "script")),
    ("npm test", Shape(RUN, "test")),
    ("npm run build", Shape(RUN, "script")),
    ("pnpm run typecheck", Shape(RUN, "script")),
    ("node src/index.ts test", Shape(RUN, "script")),
    ("npx tsx convert.ts out/", Shape(RUN, "script")),
    ("cd reproduction && python3 repro.py", Shape(RUN, "script", cd="reproduction")),
    ("cd src && cat a.py", Shape(READ, "cat", ("a.py",), cd="src")),
    (
        "cd src && grep -rn Foo . | head -5",
        Shape(GREP, "grep", (".",), numbered=True, head=5, piped=True, cd="src"),
    ),
    ("npx tsc --noEmit", Shape(RUN, "build")),
    ("make", Shape(RUN, "build")),
    ("cargo test --all", Shape(RUN, "test")),
    ("go test ./...", Shape(RUN, "test")),
    ("ruff check .", Shape(RUN, "lint")),
    ("mypy src", Shape(RUN, "lint")),
    ("pip install -e .", Shape(RUN, "install")),
    ("./gradlew test", Shape(RUN, "build")),
    ("git log", Shape(RUN, "log")),
    ("git log --stat", Shape(RUN, "log")),
    ("pytest 2>&1", Shape(RUN, "test")),
]

LEFT_ALONE = [
    # compound commands: a rewrite might change what they mean
    ("cat a.py && ls", "a list, subshell or redirection"),
    ("cat a.py; ls", "a list, subshell or redirection"),
    ("cat a.py > b.txt", "a list, subshell or redirection"),
    ("cat < a.py", "a list, subshell or redirection"),
    ("cat <<EOF", "a list, subshell or redirection"),
    ("(cat a.py)", "a list, subshell or redirection"),
    ("cd src; cat a.py", "a list, subshell or redirection"),
    ("cd src && cd lib && cat a.py", "a list, subshell or redirection"),
    ("cd -P src && cat a.py", "a list, subshell or redirection"),
    ("cd -P && cat a.py", "a cd other than `cd DIR &&`"),
    ("pytest &", "a list, subshell or redirection"),
    ("pytest | tail -20", "a pipeline"),
    ("grep Foo a.py | wc -l", "a pipeline"),
    ("grep -rn Foo . | sort | head", "a pipeline"),
    ("cat a.py\ncat b.py", "several lines"),
    ("FOO=1 pytest", "an environment assignment"),
    ("cat $F", "a substitution or variable"),
    ('grep -rn "$X" .', "a substitution or variable"),
    ("cat `ls`", "a substitution or variable"),
    ("cat $(ls)", "a substitution or variable"),
    ("cat ~/a.py", "a home-directory path (~)"),
    ("cat {a,b}.py", "a brace expansion"),
    ("cat 'a.py", "unbalanced quotes"),
    ("", "empty"),
    # shapes ctx-tree cannot mirror, or nothing to gain
    ("cat a.py b.py", "not one file"),
    ("cat", "not one file"),
    ("cat -A a.py", "a cat option other than -n"),
    ("nl a.py", "an nl without -ba"),
    ("head -c 100 a.py", "a head/tail option other than -n N"),
    ("tail -f log.txt", "an interactive command"),
    ("tail -F log.txt", "an interactive command"),
    ("sed -i 's/a/b/' a.py", "a sed script other than -n 'A,Bp'"),
    ("sed -n '/x/p' a.py", "a sed script other than -n 'A,Bp'"),
    ("grep Foo", "a grep of standard input"),
    ("grep Foo -", "a grep of standard input"),
    ("grep -f pats.txt a.py", "a grep option ctx-tree does not mirror"),
    ("grep -q Foo a.py", "a grep option ctx-tree does not mirror"),
    ("rg --pre cat Foo", "a grep option ctx-tree does not mirror"),
    ("rg -z Foo", "a grep option ctx-tree does not mirror"),
    ("git grep -O Foo", "a grep option ctx-tree does not mirror"),
    ('grep "|" a.py', "a pipeline"),
    # interactive programs, servers and watchers; anything not listed
    ("python", "not a command ctx-tree routes"),
    ("python -i x.py", "an interactive command"),
    ("pytest --pdb", "an interactive command"),
    ("jest --watch", "an interactive command"),
    ("npm run dev", "an interactive command"),
    ("pnpm run start:prod", "an interactive command"),
    ("npm start", "not a command ctx-tree routes"),
    ("vim a.py", "not a command ctx-tree routes"),
    ("git status", "not a command ctx-tree routes"),
    ("git log -5", "a limited git log"),
    ("git log -n 10 --oneline", "a limited git log"),
    ("git log -p", "a limited git log"),
    ("ls -la", "not a command ctx-tree routes"),
    ("ctx-tree read a.py", "not a command ctx-tree routes"),
]


@pytest.mark.parametrize(("command", "shape"), ROUTED, ids=[c for c, _ in ROUTED])
def test_routed_shapes(command: str, shape: Shape, tmp_path: Path) -> None:
    assert classify(command, str(tmp_path)) == shape


@pytest.mark.parametrize(("command", "why"), LEFT_ALONE, ids=[c or "empty" for c, _ in LEFT_ALONE])
def test_commands_left_alone_say_why(command: str, why: str, tmp_path: Path) -> None:
    with pytest.raises(Skip) as caught:
        classify(command, str(tmp_path))
    assert str(caught.value) == why


def test_a_glob_matching_a_file_is_left_alone(tmp_path: Path) -> None:
    """The shell expands it into words ctx-tree did not read; an unmatched one stays as is."""
    (tmp_path / "a.py").write_text("x\n")
    with pytest.raises(Skip, match="a glob the shell expands"):
        classify("grep -n Foo *.py", str(tmp_path))
    assert classify("grep -n Foo *.rs", str(tmp_path)).paths == ("*.rs",)
    with pytest.raises(Skip, match="a glob the shell expands"):
        classify("grep -n Foo *.rs")  # no directory to look in: never assumed literal


def test_the_rewritten_command_keeps_the_original_as_a_stage_and_its_exit_status(
    tmp_path: Path,
) -> None:
    """Run by bash: the original's output reaches the client, its exit status is the
    command's, and its standard error goes where the native command sends it."""
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    client = ["python3", "-c", "import sys; sys.stdout.write('<' + sys.stdin.read() + '>')"]
    cases = [
        ("cat a.txt", "<one\ntwo\n>", "", 0),
        ("cat nope.txt", "<>", "No such file", 1),
        ("grep -n zzz a.txt", "<>", "", 1),
        ("grep -n two a.txt | head -n 1", "<2:two\n>", "", 0),
        ("pytest-like-missing", None, None, None),
    ]
    for command, out, err, status in cases:
        if out is None:
            continue
        shape = classify(command, str(tmp_path))
        rewritten = route.rewrite(command, shape, client)
        assert rewritten.startswith(command) or rewritten.startswith(f"set -o pipefail; {command}")
        done = subprocess.run(
            ["bash", "-c", rewritten], cwd=tmp_path, capture_output=True, text=True
        )
        assert (done.stdout, done.returncode) == (out, status), command
        assert err in done.stderr
    run = route.rewrite("make", Shape(RUN, "build"), ["filter"])
    assert run == "set -o pipefail; make 2>&1 | filter"
    quoted = route.rewrite("cat 'my file.txt'", Shape(READ, "cat", ("my file.txt",)), ["/a b/py"])
    assert quoted == "set -o pipefail; cat 'my file.txt' | '/a b/py'"


def test_the_rewritten_command_is_judged_by_the_hosts_rules_on_the_original() -> None:
    """The host's rules (as ``wire/permissions.py`` reads them) see the original as a stage of
    its own: a deny or ask rule on it matches the rewritten command too."""
    rules = [permissions.Rule("deny", "cat:*", "Bash(cat:*)", "test")]
    rewritten = route.rewrite("cat a.py", Shape(READ, "cat", ("a.py",)), ["/usr/bin/python3", "c"])
    verdict = permissions.check(rewritten, rules)
    assert verdict is not None and verdict.decision == "deny"
    asked = [permissions.Rule("ask", "pytest:*", "Bash(pytest:*)", "test")]
    verdict = permissions.check(route.rewrite("pytest -q", Shape(RUN, "test"), ["c"]), asked)
    assert verdict is not None and verdict.decision == "ask"


def test_cli_rules_read_the_hosts_allowed_and_disallowed_tools() -> None:
    argv = [
        "claude", "-p", "go", "--allowedTools", "Bash,Read,mcp__x__y", "--disallowed-tools",
        "Bash(git push:*) Bash(rm -rf *)", "--allowed-tools=Bash(npm test:*)", "--verbose",
    ]  # fmt: skip
    assert route.cli_rules(argv) == [
        ("allow", "*"),
        ("deny", "git push:*"),
        ("deny", "rm -rf *"),
        ("allow", "npm test:*"),
    ]
    assert route.cli_rules(["claude", "--allowedTools", "Read"]) == []


@pytest.mark.parametrize(
    ("shape", "mode", "allow", "inside", "allowed"),
    [
        (Shape(RUN, "test"), "default", [], True, False),  # the host would ask
        (Shape(RUN, "test"), "default", ["pytest:*"], True, True),
        (Shape(RUN, "test"), "default", ["npm test:*"], True, False),
        (Shape(RUN, "test"), "default", ["*"], True, True),  # a bare `Bash`
        (Shape(RUN, "test"), "bypassPermissions", [], True, True),
        (Shape(RUN, "test"), "dontAsk", [], True, False),
        (Shape(RUN, "test"), "plan", [], True, False),
        (Shape(READ, "cat", ("a.py",)), "default", [], True, True),  # read-only, inside
        (Shape(READ, "cat", ("a.py",)), "default", [], False, False),  # outside: blocked
        (Shape(READ, "cat", ("a.py",)), "plan", [], True, True),
        (Shape(READ, "cat", ("a.py",)), "dontAsk", [], True, False),
        (Shape(GREP, "grep", ("src",)), "acceptEdits", [], True, True),
    ],
)
def test_host_allows_only_what_it_would_run_unasked(
    shape: Shape, mode: str, allow: list[str], inside: bool, allowed: bool
) -> None:
    command = "pytest -q" if shape.kind == RUN else "cat a.py"
    got, why = route.host_allows(shape, [command], mode, allow, permissions.matches, inside)
    assert got is allowed, why


def test_the_hosts_trust_decides_whether_project_allow_rules_count(tmp_path: Path) -> None:
    """Claude Code ignores an untrusted project's allow rules: a folder (or an ancestor) with
    ``hasTrustDialogAccepted`` in the global config, or CLAUDE_CODE_SANDBOXED, trusts it."""
    import json

    root = tmp_path / "work" / "proj"
    root.mkdir(parents=True)
    config = tmp_path / "cfg"
    config.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)}
    assert not route.project_trusted(str(root), env)
    (config / ".claude.json").write_text(json.dumps({"projects": {str(root): {}}}))
    assert not route.project_trusted(str(root), env)
    trusted = {"hasTrustDialogAccepted": True}
    (config / ".claude.json").write_text(
        json.dumps({"projects": {str(tmp_path / "work"): trusted}})
    )
    assert route.project_trusted(str(root), env)
    (config / ".claude.json").write_text("not json")
    assert not route.project_trusted(str(root), env)
    assert route.project_trusted(str(root), {**env, "CLAUDE_CODE_SANDBOXED": "1"})
    (tmp_path / ".claude.json").write_text(json.dumps({"projects": {str(root): trusted}}))
    assert route.project_trusted(str(root), {"HOME": str(tmp_path)})


def test_paths_inside_follow_links(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("x")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    inside = str(root)
    assert route.paths_inside(Shape(READ, "cat", ("src/a.py",)), inside, inside)
    assert route.paths_inside(Shape(GREP, "rg", ()), inside, inside)
    assert not route.paths_inside(Shape(READ, "cat", ("../secret.txt",)), inside, inside)
    assert not route.paths_inside(Shape(READ, "cat", ("link.txt",)), inside, inside)
    assert not route.paths_inside(Shape(GREP, "grep", ("src", "/etc")), inside, inside)
    assert route.paths_inside(Shape(RUN, "test", cd="src"), inside, inside)
    assert not route.paths_inside(Shape(RUN, "test", cd=".."), inside, inside)


def test_every_routed_shape_meets_one_of_the_hooks_conditions() -> None:
    """The host calls the hook only under these ``if`` conditions: each routed command must
    meet one (as the host matches a rule: any of its simple commands)."""
    from ctx_tree_mcp.wire import denylist

    patterns = [c[5:-1] for c in route.hook_conditions() if c.startswith("Bash(")]
    assert "Read" in route.hook_conditions()
    for command, _shape in ROUTED:
        simple = [" ".join(words) for words in denylist.simple_commands(command)]
        assert any(permissions.matches(p, s) for p in patterns for s in simple), command
    assert not any(permissions.matches(p, "git status") for p in patterns)
    assert not any(permissions.matches(p, "ls -la") for p in patterns)
