"""The replay's faithful mapping (``bench/replay_faithful.py``): the ctx-tree call it makes of a
recorded native call answers with what the native command printed, run for real on both sides
(GNU grep / sed / head in a shell, the ``ctx-tree`` CLI)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ctx_tree_mcp.cli.main import main

BENCH = Path(__file__).resolve().parents[1] / "bench" / "replay_faithful.py"


def _module():
    spec = importlib.util.spec_from_file_location("replay_faithful", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_faithful"] = module
    spec.loader.exec_module(module)
    return module


faithful = _module()

# (native command, the harness's classify() dict, the harness's literal argv)
CASES = [
    (
        'grep -A 3 "def raw_decode" pkg/decoder.py',
        {"kind": "grep", "rg": {"native_cmd": 'grep -A 3 "def raw_decode" pkg/decoder.py'}},
        ["grep", "def raw_decode", "pkg/decoder.py", "--context", "3"],
    ),
    (
        'grep -n -B 2 "def " pkg/decoder.py | head -n 5',
        {"kind": "grep", "rg": {"native_cmd": 'grep -n -B 2 "def " pkg/decoder.py | head -n 5'}},
        ["grep", "def ", "pkg/decoder.py", "--context", "2"],
    ),
    (
        'grep -nA2 -B1 "JSONDecodeError(" pkg/decoder.py',
        {"kind": "grep", "rg": {"native_cmd": 'grep -nA2 -B1 "JSONDecodeError(" pkg/decoder.py'}},
        ["grep", "JSONDecodeError\\(", "pkg/decoder.py", "--context", "2"],
    ),
    (
        "grep -r scanstring pkg",
        {"kind": "grep", "rg": {"native_cmd": "grep -r scanstring pkg"}},
        ["grep", "scanstring", "pkg"],
    ),
    (
        "sed -n '40,52p' pkg/decoder.py",
        {"kind": "read", "fmt": "cat"},
        ["read", "pkg/decoder.py", "--lines", "40:52"],
    ),
    (
        "head -n 12 pkg/decoder.py",
        {"kind": "read", "fmt": "cat"},
        ["read", "pkg/decoder.py", "--lines", "1:12"],
    ),
]


@pytest.mark.skipif(not (shutil.which("grep") and shutil.which("sed")), reason="no grep/sed")
@pytest.mark.parametrize(("native", "c", "literal"), CASES, ids=[c[0] for c in CASES])
def test_faithful_calls_answer_what_the_native_command_printed(
    project, home, monkeypatch, capsys, native, c, literal
):
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    printed = subprocess.run(native, shell=True, cwd=project, capture_output=True, text=True)
    argv = faithful.faithful([*literal, "--budget", "2000"], c)
    assert argv[-2:] == ["--budget", "2000"]
    main(["--root", str(project), *argv])
    answer = capsys.readouterr().out
    if "| head" in native:  # the lines left out are paged by the manifest's next: call
        answer, _, manifest = answer.partition("-- ctx-tree:")
        assert "--head-limit 5 shown" in manifest and "next: ctx-tree get" in manifest
    if native.startswith("grep -r"):  # ctx-tree groups a file's lines under its path
        path, *lines = answer.splitlines()
        answer = "".join(f"{path}:{line}\n" for line in lines)
    assert answer == printed.stdout


def test_intent_comes_from_the_command_only():
    want = faithful.grep_intent('grep -rn --after-context=4 -C 1 "x y" src | head -20')
    assert want == {"after": 4, "before": None, "context": 1, "numbers": True, "head": 20}
    assert faithful.grep_intent("rg -e -n foo")["numbers"] is False  # -n is -e's pattern
    read = faithful.faithful(["read", "a.py", "--budget", "500"], {"kind": "read", "fmt": "nl"})
    assert read == ["read", "a.py", "--budget", "500"]  # nl -ba / cat -n stay numbered


def test_a_range_is_judged_by_what_the_answer_says_it_holds(project, home, monkeypatch, capsys):
    """The judge's one extra rule: an un-numbered read answer holds a ``range`` reference when
    it has no manifest, or the lines are outside the ranges it says it left out; the lines it
    says it left out are not held."""
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    main(["--root", str(project), "read", "pkg/decoder.py", "--lines", "40:52", "--no-numbers"])
    answer = capsys.readouterr().out

    def harness_judge(refs, answer):  # finds numbered lines only, none here
        return [False for _ in refs]

    rescued = [0]
    judge = faithful.judge_by_manifest(harness_judge, rescued)
    tail = {"kind": "range", "path": "pkg/decoder.py", "start": 50, "end": 52}
    ident = {"kind": "ident", "value": "no_such_name_here"}
    assert judge([tail, ident], answer) == [True, False] and rescued == [1]
    cut = answer + "\n-- ctx-tree: pkg/decoder.py · 13 lines\ntruncated: lines 48-52 not shown\n"
    assert judge([tail], cut) == [False] and rescued == [1]
    head = {"kind": "range", "path": "pkg/decoder.py", "start": 40, "end": 47}
    assert judge([head], cut) == [True]
    whole = "x\n-- ctx-tree: pkg/decoder.py · 90 lines, 900t; shown: outline, lines 60-90\n"
    assert judge([head], whole) == [False] and judge([tail | {"start": 61, "end": 70}], whole) == [
        True
    ]
    assert judge([tail], "") == [False]


def test_the_ranges_a_cut_read_names_are_its_own(project, home, monkeypatch, capsys):
    """A real range read longer than its budget: the gap it names is exactly what it left out."""
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    body = "".join(
        f"value_{i} = compute_something_long({i}, {i * 7}, name='v{i}')\n" for i in range(400)
    )
    (project / "big.py").write_text(body)
    main(
        [
            "--root",
            str(project),
            "read",
            "big.py",
            "--lines",
            "1:400",
            "--no-numbers",
            "--budget",
            "500",
        ]
    )
    answer = capsys.readouterr().out
    gaps = faithful._LEFT_OUT.findall(answer)
    assert gaps, answer
    a, b = (int(x) for x in gaps[0])
    shown = [
        line for line in answer.split("\n-- ctx-tree:")[0].splitlines() if line.startswith("value_")
    ]
    numbers = sorted(int(line.split(" ", 1)[0][6:]) + 1 for line in shown)
    assert all(n < a or n > b for n in numbers) and numbers[-1] == 400
    assert faithful.holds_range(answer, 400, 400) and not faithful.holds_range(answer, a, a)
