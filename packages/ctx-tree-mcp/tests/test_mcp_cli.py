"""The CLI speaks CLI: verbs and flags from the registry, hints in CLI syntax, --root anywhere."""

from __future__ import annotations

import re

import pytest
from ctx_tree_mcp.cli.main import PACKAGES, build_parser, main
from ctx_tree_mcp.tools.registry import TOOLS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def env(root, monkeypatch, tmp_path):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    return root


def test_version_is_one_line_with_all_six_packages(capsys) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.count("\n") == 1
    assert all(f"{name} 0." in out for name in PACKAGES)


def test_every_tool_argument_has_a_flag_with_help_range_and_default() -> None:
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices  # argparse keeps them here
    for spec in TOOLS:
        sub = verbs[spec.verb]
        actions = {a.dest: a for a in sub._actions}
        for name in spec.args.model_fields:
            assert name in actions, f"{spec.verb}: no flag for {name}"
            assert actions[name].help, f"{spec.verb} {name}: no help"
        helptext = sub.format_help()
        if "budget_tokens" in spec.args.model_fields:
            assert "100..50000" in helptext and "default" in helptext


def test_root_is_accepted_after_the_verb_and_hints_are_cli_syntax(env, capsys) -> None:
    code, out, err = run(capsys, "read", "src/decoder.py", "--budget", "200", "--root", str(env))
    assert code == 0, err
    nxt = next(line for line in out.splitlines() if line.startswith("next: "))
    assert re.fullmatch(r"next: ctx-tree read src/decoder.py (--lines \d+:|--symbol \w+)", nxt), nxt
    assert "ctx_tree_" not in out
    code, out, err = run(capsys, "--root", str(env), "grep", "def ", "--budget", "150")
    assert code == 0, err
    assert re.search(r"^next: ctx-tree get [0-9A-Z]{26} --offset \d+$", out, re.M)


def test_bad_flags_exit_2_in_cli_syntax_without_library_text(env, capsys) -> None:
    code, _, err = run(capsys, "read", "src/decoder.py", "-b", "5", "--root", str(env))
    assert code == 2
    assert err.startswith("ctx-tree: --budget: 5 is out of range; allowed: an integer 100..50000")
    assert err.rstrip().endswith("a call that works: ctx-tree read src/decoder.py")
    assert "pydantic" not in err
    code, _, err = run(capsys, "read", "src/decoder.py", "--symbol", "nope", "--root", str(env))
    assert code == 2 and err.startswith("ctx-tree: --symbol: 'nope' not found")
    assert "ctx-tree read src/decoder.py gives the outline" in err
    code, _, err = run(capsys, "read", "src/decoder.py", "--lines", "x:y", "--root", str(env))
    assert code == 2 and "--lines: expected START:END" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["read", ".", "--budget", "abc"], "argument --budget/--budget-tokens/-b: 'abc' is not a "
         "whole number; give one such as --budget 2000 (100..50000)"),
        (["grep", "x", "-C", "many"], "argument --context/--context-lines/-C: 'many' is not a "
         "whole number; give one such as --context 0 (0..10)"),
        (["search", "x", "--limit", "1.5"], "'1.5' is not a whole number; give one such as "
         "--limit 10 (1..100)"),
        (["inspect", "--port", "http"], "argument --port: 'http' is not a whole number; give one "
         "such as --port 8765 (0..65535)"),
        (["demo", "--files", "all"], "argument --files: 'all' is not a whole number"),
        (["reembed", "--batch", "big"], "argument --batch: 'big' is not a whole number"),
    ],
)  # fmt: skip
def test_a_bad_number_names_the_flag_an_example_and_the_range(env, capsys, argv, says) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and says in err, err
    assert "invalid int value" not in err


def test_search_kind_sugar_sets_the_filter(env, capsys) -> None:
    run(capsys, "note", "a finding about scanstring", "--title", "finding", "--root", str(env))
    code, out, err = run(capsys, "search", "scanstring", "--kind", "note", "--root", str(env))
    assert code == 0, err
    assert "note finding" in out


def test_every_option_of_every_verb_has_help_text() -> None:
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices
    assert {"read", "grep", "walk", "stats", "serve"} <= set(verbs)
    for name, sub in verbs.items():
        for action in sub._actions:
            if action.dest != "help":
                assert action.help, (
                    f"ctx-tree {name}: {action.option_strings or action.dest} has no help"
                )
        assert "_SUGAR" not in sub.format_help(), f"ctx-tree {name}: internal metavar shown"


def test_every_verb_help_says_what_the_verb_does(capsys) -> None:
    verbs = build_parser()._subparsers._group_actions[0].choices
    for name, sub in verbs.items():
        said = sub.description
        assert said and len(said) > 20, f"ctx-tree {name} --help: no description"
    code, out, _ = run(capsys, "reembed", "--help")
    assert code == 0
    assert "Embed every live and pending node" in out


def test_verb_help_uses_the_cli_s_words_not_the_mcp_tool_s() -> None:
    """``ctx-tree search --help`` says ``ctx-tree get`` and ``--budget``, which a shell takes,
    not ``ctx_tree_get`` and ``budget_tokens``."""
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0]
    for spec in TOOLS:
        sub = verbs.choices[spec.verb]
        listed = next(a.help for a in verbs._choices_actions if a.dest == spec.verb)
        for said in (sub.description, listed):
            assert "ctx_tree_" not in said, (spec.verb, said)
            for name in spec.args.model_fields:
                if "_" in name:
                    assert not re.search(rf"(?<![\w-]){name}\b", said), (spec.verb, said)
    assert "(read with ctx-tree get)" in verbs.choices["search"].description
    assert "into --budget" in verbs.choices["compose"].description


def test_option_help_names_other_options_by_their_flags() -> None:
    """``ctx-tree grep --help`` says ``-A``'s default is ``--context``, a flag a shell takes,
    not the MCP argument ``context_lines``; a positional is named by its metavar."""
    verbs = build_parser()._subparsers._group_actions[0].choices
    for spec in TOOLS:
        for action in verbs[spec.verb]._actions:
            for name in spec.args.model_fields:
                if "_" in name and action.help:
                    assert not re.search(rf"(?<![\w-]){name}\b", action.help), (spec.verb, name)
    helps = {a.dest: a.help for a in verbs["grep"]._actions}
    assert "(default: --context)" in helps["after_context"]
    assert helps["fixed_strings"].startswith("PATTERN is a literal")


def test_an_empty_grep_pattern_names_the_flag_on_the_cli(env, capsys) -> None:
    """The CLI names ``--fixed-strings``, not the MCP argument ``fixed_strings=true``."""
    code, _, err = run(capsys, "--root", str(env), "grep", "")
    assert code == 2 and "--fixed-strings" in err and "fixed_strings=" not in err, err


@pytest.mark.parametrize(
    ("flags", "named", "says"),
    [
        (["--start-line", "0"], "--start-line", "0 is out of range"),
        (["--end-line", "0"], "--end-line", "0 is out of range"),
        (["--lines", "0:"], "--lines", "0 is out of range"),
        (["--lines", "50:10"], "--lines", "ends at line 10, before it starts (line 50)"),
        (["--start-line", "5", "--end-line", "2"], "--end-line", "ends at line 2"),
    ],
)
def test_a_line_range_error_names_the_flag_that_was_typed(env, capsys, flags, named, says):
    code, _, err = run(capsys, "--root", str(env), "read", "src/decoder.py", *flags)
    assert code == 2 and err.startswith(f"ctx-tree: {named}: "), err
    assert says in err and "start_line" not in err and "end_line" not in err, err


def test_an_unknown_option_is_named_before_a_missing_verb(env, capsys) -> None:
    code, _, err = run(capsys, "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err, err
    code, _, err = run(capsys)
    assert code == 2 and "give a COMMAND, e.g. `ctx-tree read FILE`" in err, err


@pytest.mark.parametrize("own", [["--start-line", "5"], ["--end-line", "9"]])
def test_a_shorthand_and_a_flag_it_sets_are_not_both_obeyed(env, capsys, own) -> None:
    code, out, err = run(
        capsys, "--root", str(env), "read", "src/decoder.py", *own, "--lines", "1:3"
    )
    assert code == 2 and not out, out
    assert err.startswith(
        f"ctx-tree: --lines: give --lines or --start-line/--end-line, not both ({own[0]} too)"
    ), err


def test_a_missing_grep_path_or_demo_directory_names_the_fix(env, capsys) -> None:
    code, _, err = run(capsys, "--root", str(env), "grep", "foo", "nosuchdir")
    assert code == 2 and "'nosuchdir' does not exist; check the path (relative to " in err, err
    assert "or leave it out to search the whole project" in err
    code, _, err = run(capsys, "demo", str(env / "nowhere"))
    assert code == 2 and "is not a directory; give a project's directory" in err, err


def test_reembed_names_a_bad_batch_before_the_missing_provider(env, capsys) -> None:
    code, _, err = run(capsys, "--root", str(env), "reembed", "--batch", "0")
    assert code == 2 and err.startswith("ctx-tree: --batch: 0 is out of range"), err
    code, _, err = run(capsys, "--root", str(env), "reembed", "--batch", "4")
    assert code == 2 and "no embedding provider is configured" in err, err


# A verb that only reads the store creates none: on a project without one it says so.
NODE = "01M8P43WT7F7V6BSB3EFS2282Y"


@pytest.mark.parametrize(
    "argv",
    [
        ["stats"],
        ["recent"],
        ["search", "foo"],
        ["get", NODE],
        ["neighbors", NODE],
        ["path-to-root", NODE],
        ["compose", NODE],
        ["doctor"],
        ["stores"],
    ],
)
def test_a_read_only_verb_leaves_no_store_behind(argv, root, tmp_path, monkeypatch, capsys):
    home = tmp_path / "h"
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    code, out, err = run(capsys, "--root", str(root), *argv)
    assert code == 0, err
    assert not list(home.rglob("store.db*")), list(home.rglob("*"))
    if argv[0] not in ("doctor", "stores"):
        assert out.startswith(f"no store yet for {root}: "), out


def test_bad_arguments_are_named_before_the_missing_store(root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    code, _, err = run(capsys, "--root", str(root), "get", NODE, "--budget", "5")
    assert code == 2 and "--budget: 5 is out of range" in err


def test_with_a_store_the_verbs_answer_as_before(root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    assert run(capsys, "--root", str(root), "note", "retry lives in App.run")[0] == 0
    code, out, _ = run(capsys, "--root", str(root), "search", "retry")
    assert code == 0 and "1 hit" in out
    code, out, _ = run(capsys, "--root", str(root), "stats")
    assert code == 0 and out.startswith("store: ")


def test_bash_exits_with_the_commands_status(capsys, env) -> None:
    code, out, _ = run(capsys, "--root", str(env), "bash", "echo partial; exit 3")
    assert code == 3 and "partial" in out and "exit 3" in out
    code, out, _ = run(capsys, "--root", str(env), "bash", "echo fine")
    assert code == 0 and "fine" in out
    code, out, _ = run(capsys, "--root", str(env), "bash", "sleep 5", "--timeout", "1")
    assert code == 124 and "killed at the timeout (--timeout)" in out


def test_cli_errors_are_redacted_like_answers(env, capsys) -> None:
    """An error echoes its argument: over MCP the server redacts it; the CLI printed it as is."""
    key = "AKIA" + "QQQQQQQQQQQQQQQQ"
    code, _, err = run(capsys, "read", f"creds-{key}.txt", "--root", str(env))
    assert code == 2 and key not in err and "[REDACTED:aws_access_key]" in err
    assert run(capsys, "note", "a store to look in", "--root", str(env))[0] == 0
    code, _, err = run(capsys, "get", key, "--root", str(env))
    assert code == 2 and key not in err


def test_counts_of_one_read_in_the_singular(tmp_path, monkeypatch, capsys) -> None:
    """'1 file', '1 line', '1 read, 1 grep': never '1 files'."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "one.py").write_text("def one():\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "read", ".")
    assert code == 0
    assert "map of ./: 1 file, ranked" in out and "one.py (python, 1 line)" in out, out
    assert "the one file shown" in out
    assert run(capsys, "grep", "one")[0] == 0
    code, out, _ = run(capsys, "index")
    assert code == 0 and out.startswith(("1 file listed", "0 files listed")), out
    code, out, _ = run(capsys, "stats")
    assert code == 0 and "calls: 1 read, 1 grep" in out and "1 file live" in out, out
    assert not re.search(r"\b1 (files|lines|reads|greps|matches)\b", out)


def test_before_the_index_has_run_search_and_the_map_say_how_to_fill_the_store(
    tmp_path, monkeypatch, capsys
) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "net.py").write_text("def retry(n):\n    return n\n")
    (project / "src" / "other.py").write_text("def other():\n    pass\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "search", "retry")
    assert code == 0 and out.startswith("no store yet for") and "`ctx-tree index`" in out, out
    assert run(capsys, "read", "src/net.py")[0] == 0
    hint = "the project index has not run on this store yet"
    code, out, _ = run(capsys, "search", "other")  # stored: only src/net.py
    assert code == 0 and "0 hits" in out and hint in out and "`ctx-tree index`" in out, out
    code, out, _ = run(capsys, "read", ".")
    assert code == 0 and "map of ./: 1 file" in out and hint in out, out
    assert run(capsys, "index")[0] == 0
    code, out, _ = run(capsys, "search", "other")
    assert code == 0 and "src/other.py" in out and hint not in out, out
    code, out, _ = run(capsys, "read", ".")
    assert code == 0 and "all 2 files shown" in out and hint not in out, out


def test_a_grep_cut_at_the_store_limit_says_so_in_the_users_terms(
    tmp_path, monkeypatch, capsys
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    line = "needle_{0} = {0}  # padding to make each line long enough\n"
    for i in range(40):
        (project / f"f{i}.py").write_text("".join(line.format(j) for j in range(300)))
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "grep", "needle", "--budget", "300")
    assert code == 0
    assert (
        "note: the output came to more than the 100,000 bytes the store keeps of one output "
        "(the capture.maxBytes setting): the matches past it are not kept; narrow the search "
        "to see them"
    ) in out, out
    assert "output over capture.maxBytes" not in out


def test_a_stored_grep_is_listed_with_its_pattern_as_typed(tmp_path, monkeypatch, capsys) -> None:
    """A search hit on a stored grep shows ``'\\bretry\\b'``, not repr's ``'\\\\bretry\\\\b'``."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "net.py").write_text("def retry(n):\n    return retry(n - 1)\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    assert run(capsys, "grep", r"\bretry\b")[0] == 0
    code, out, _ = run(capsys, "search", "retry", "--kind", "tool_output")
    assert code == 0 and r"grep '\bretry\b' in . (2 matches)" in out, out
    assert "\\\\b" not in out


def test_compose_by_query_alone_takes_no_seed(tmp_path, monkeypatch, capsys) -> None:
    """``--help``, docs/tools.md and the MCP tool accept compose with a query and no seed ids."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "ledger.py").write_text("def settle_ledger(rows):\n    return sum(rows)\n")
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    assert run(capsys, "index")[0] == 0
    code, out, err = run(capsys, "compose", "--query", "settle ledger", "--budget", "400")
    assert code == 0, err
    assert "settle_ledger" in out and "ledger.py" in out, out
    code, _, err = run(capsys, "compose")
    assert code == 2 and "--query" in err and "SEED" in err, err


def test_every_argument_with_a_default_may_be_left_off_the_command_line() -> None:
    """A positional with a default (a list too) is optional on the CLI, as in the MCP tool."""
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices
    for spec in TOOLS:
        required = [
            spec.flag_of(name)
            for name, info in spec.args.model_fields.items()
            if info.is_required()
        ]
        sub = verbs[spec.verb]
        actions = {a.dest: a for a in sub._actions}
        for name, info in spec.args.model_fields.items():
            if spec.cli_of(name).positional and not info.is_required():
                assert actions[name].nargs in ("?", "*"), f"{spec.verb}: {name} is optional"
        assert "(default [])" not in sub.format_help()
        assert all(flag in sub.format_usage() for flag in required), spec.verb
