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
from ctx_tree_mcp.cli import main

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


def test_a_complete_answer_holds_the_range_the_next_read_zoomed_into(
    project, home, monkeypatch, capsys
):
    """The judge's one extra rule: an un-numbered answer without a manifest holds a ``range``
    reference; one with a manifest is judged as the harness judges it."""
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    main(["--root", str(project), "read", "pkg/decoder.py", "--lines", "40:52", "--no-numbers"])
    answer = capsys.readouterr().out
    refs = [{"kind": "range", "path": "pkg/decoder.py", "start": 44, "end": 52},
            {"kind": "ident", "value": "no_such_name_here"}]  # fmt: skip

    def harness_judge(refs, answer):  # numbered lines only, as the harness's
        return [False for _ in refs]

    rescued = [0]
    judge = faithful.judge_complete(harness_judge, rescued)
    assert judge(refs, answer) == [True, False] and rescued == [1]
    cut = answer + "\n-- ctx-tree: pkg/decoder.py · 13 lines\ntruncated: lines 48-52 not shown\n"
    assert judge(refs, cut) == [False, False] and rescued == [1]
    assert judge(refs, "") == [False, False]
