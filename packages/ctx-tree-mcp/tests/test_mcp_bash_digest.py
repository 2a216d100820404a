"""Which lines a ctx_tree_bash answer keeps: summaries, errors with context, the tail."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.answers.budget import estimate_tokens
from ctx_tree_mcp.engines.shell.digest import MAX_LINE_CHARS, render_lines, scan, select_lines

NOISE = [f"compiling module_{i:05d} ... ok" for i in range(5000)]


def _shown(lines: list[str], room: int) -> str:
    text, _ = render_lines(lines, select_lines(scan(lines), room).shown)
    return text


@pytest.mark.parametrize(
    ("summary", "where"),
    [
        ("--- FAIL: TestParse (0.00s)", 1200),  # go test
        ("test result: FAILED. 41 passed; 1 failed; 0 ignored", 2500),  # cargo
        ("Tests:       1 failed, 97 passed, 98 total", 3000),  # jest
        (" Test Files  1 failed | 12 passed (13)", 3000),  # vitest
        ("  2 failing", 100),  # mocha
        ("make[2]: *** [Makefile:12: all] Error 2", 4000),  # make
        ("npm error code ELIFECYCLE", 2000),  # npm
        ("===== 1 failed, 299 passed in 0.68s =====", 2500),  # pytest
        ("Ran 12 tests in 0.004s", 2500),  # unittest
        ("FAILED tests/test_x.py::test_y - assert 6 == 7", 10),  # pytest short summary
        ("src/app.ts(12,5): error TS2322: Type 'string' is not assignable", 4500),  # tsc
    ],
)
def test_runner_summaries_are_kept_wherever_they_are(summary: str, where: int) -> None:
    lines = [*NOISE[:where], summary, *NOISE[where:]]
    shown = _shown(lines, 600)
    assert f"{where + 1}\t{summary}\n" in shown
    assert estimate_tokens(shown) <= 600


def test_an_error_in_the_middle_comes_with_its_context_and_the_tail() -> None:
    lines = [*NOISE[:2500], "src/io.c:88:5: error: 'fd' undeclared", *NOISE[2500:]]
    shown = _shown(lines, 500)
    for n in range(2499, 2504):  # two lines either side
        assert f"\n{n}\t" in "\n" + shown
    assert f"{len(lines)}\t{lines[-1]}\n" in shown  # the tail
    assert "(lines 1-" in shown  # the head was left out, and says so


def test_everything_is_shown_when_it_fits() -> None:
    lines = ["one", "two", "error: three"]
    found = scan(lines)
    assert select_lines(found, 100).shown == [0, 1, 2]
    text, gaps = render_lines(lines, [0, 1, 2])
    assert text == "1\tone\n2\ttwo\n3\terror: three\n" and gaps == []


def test_omitted_runs_are_marked_and_reported() -> None:
    lines = [f"l{i}" for i in range(10)]
    text, gaps = render_lines(lines, [0, 1, 8, 9])
    assert gaps == [(3, 8)]
    assert "…\t(lines 3-8 omitted)\n" in text


def test_a_very_long_line_is_cut_in_the_answer() -> None:
    lines = ["x" * 50_000, "done"]
    shown = _shown(lines, 300)
    assert "…[+" in shown and estimate_tokens(shown) <= 300
    assert len(max(shown.splitlines(), key=len)) < MAX_LINE_CHARS + 40


def test_runs_of_passing_lines_are_not_spent_on() -> None:
    """pytest -v style: 2,000 PASSED lines, one failure, the summary. The answer is the
    header, the failure with its context, the failure section and the summary, far under
    the room it was given."""
    lines = ["=== test session starts ===", "collected 2001 items", ""]
    lines += [f"t.py::test_{i} PASSED   [ {i // 20}%]" for i in range(1000)]
    lines += ["t.py::test_bad FAILED   [ 50%]"]
    lines += [f"t.py::test_{i} PASSED   [ {i // 20}%]" for i in range(1000, 2000)]
    lines += [
        "",
        "=== FAILURES ===",
        "___ test_bad ___",
        "E       assert 1 == 2",
        "=== 1 failed, 2000 passed in 3.1s ===",
    ]
    shown = _shown(lines, 2000)
    assert "t.py::test_bad FAILED" in shown and "E       assert 1 == 2" in shown
    assert "1 failed, 2000 passed" in shown and "collected 2001 items" in shown
    assert shown.count("PASSED") <= 6  # the failure's context, nothing more
    assert estimate_tokens(shown) < 300


def _pytest_run(failed: int = 2, passed: int = 150) -> list[str]:
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.11.4, pytest-8.3.2, pluggy-1.5.0", "rootdir: /repo",
             f"collected {failed + passed} items", ""]  # fmt: skip
    lines += [f"tests/test_mod{i}.py {'.' * 50} [{(i + 1) * 33:3d}%]" for i in range(3)]
    lines += ["", "=================================== FAILURES ===================================",
              "_______________________________ test_parse_port ________________________________",
              "", "    def test_parse_port():", '        port = int("70000")',
              "E       ValueError: Port out of range 0-65535", "",
              "tests/test_mod1.py:12: ValueError",
              "=========================== short test summary info ============================",
              "FAILED tests/test_mod1.py::test_parse_port - ValueError: Port out of range 0-65535",
              "FAILED tests/test_mod2.py::test_other - assert 1 == 2",
              f"======================== {failed} failed, {passed} passed in 1.23s ========================="]  # fmt: skip
    return lines


@pytest.mark.parametrize("quiet", [False, True], ids=["rules", "quiet"])
@pytest.mark.parametrize("room", [60, 90, 200, 500, 680])
def test_a_failing_run_keeps_its_result_at_any_room(room: int, quiet: bool) -> None:
    """The run's result line is the first summary taken, so a small budget still says
    '2 failed, 150 passed' (before, the first summaries in order filled the room); ``pytest
    -q`` writes it bare, without the ``===`` rules."""
    run = _pytest_run()
    if quiet:
        run[-1] = "2 failed, 150 passed in 1.23s"
    lines = [*run[:9], *[f"log line {i}: nothing to see" for i in range(400)], *run[9:]]
    shown = _shown(lines, room)
    assert "2 failed, 150 passed" in shown
    assert estimate_tokens(shown) <= room
    if room >= 200:
        assert "ValueError: Port out of range 0-65535" in shown
        assert "FAILED tests/test_mod1.py::test_parse_port" in shown


@pytest.mark.parametrize(
    "result",
    [
        "1 failed, 299 passed in 0.68s",
        "3 failed, 1 error, 296 passed, 2 warnings in 65.32s (0:01:05)",
        "1 error in 0.12s",  # a collection error
        "no tests ran in 0.01s",
    ],
)
def test_pytest_q_results_at_the_end_are_the_runs_result(result: str) -> None:
    """``pytest -q`` writes its result bare, as its last line: it is the run's result there
    (and only there: a line of numbers and words in the middle of an output is no result)."""
    lines = [*NOISE[:3000], "FAILED tests/test_x.py::test_y - assert 6 == 7", result]
    found = scan(lines)
    assert found.summaries[0] == len(lines) - 1
    assert result in _shown(lines, 60)
    middle = scan([*NOISE[:1500], result, *NOISE[1500:3000]])
    assert 1500 not in middle.summaries


@pytest.mark.parametrize(
    ("message", "result"),
    [
        ("src/m{i}.ts(3,5): error TS2322: Type 'string' is not assignable", "Found 40 errors in 40 files."),
        ("src/m{i}.py:3: error: Incompatible return value type  [return-value]",
         "Found 40 errors in 12 files (checked 89 source files)"),
        ("src/m{i}.py:1:8: F401 [*] `os` imported but unused", "Found 40 errors."),
    ],
)  # fmt: skip
def test_a_checkers_result_line_is_kept_at_the_smallest_room(message: str, result: str) -> None:
    """tsc, mypy and ruff end with a count of what they found: that is the run's result."""
    lines = [f"log line {i}: nothing to see" for i in range(300)]
    lines += [message.format(i=i) for i in range(40)] + [result, "", "tail: done"]
    shown = _shown(lines, 60)
    assert result in shown and estimate_tokens(shown) <= 60, shown


def test_a_diagnostic_print_among_repeated_messages_is_kept() -> None:
    """A linter's messages repeat one shape; the script's own print stands out."""
    lines = ["Running: pylint --recursive=y ."]
    for module in range(12):
        lines.append(f"************* Module mod_{module}")
        lines += [f"mod_{module}.py:{i}:0: C0114: Missing module docstring (missing-module-docstring)"
                  for i in range(1, 9)]  # fmt: skip
        if module == 6:
            lines.append("DEBUG: ignore=('CVS',)")
    lines += ["", "-" * 66, "Your code has been rated at 5.87/10", ""]
    shown = _shown(lines, 400)
    assert "DEBUG: ignore=('CVS',)" in shown
    assert "rated at 5.87/10" in shown and estimate_tokens(shown) <= 400


def test_one_created_file_among_hundreds_of_progress_lines_is_kept() -> None:
    lines = ["Found 3 JSONL file(s) to process..."]
    for n in range(300):
        lines.append(f"#{n} {'user' if n % 3 else 'assistant'}")
        if n == 150:
            lines.append("✅ Created 2025-08-10_14-42-56Z-ive-got-the-code-for_70970a80.md")
    lines += [f"Line #{n} is already processed, skipping" for n in range(300)]
    shown = _shown(lines, 500)
    assert "✅ Created 2025-08-10_14-42-56Z-ive-got-the-code-for_70970a80.md" in shown
    assert estimate_tokens(shown) <= 500


def test_standouts_need_a_repeated_bulk() -> None:
    """An output where every line differs has nothing that stands out."""
    from ctx_tree_mcp.engines.shell.digest import standouts

    assert standouts([f"{w} happened" for w in ("alpha beta gamma delta " * 10).split()]) == []


def test_the_room_is_a_cap_not_a_target() -> None:
    """Before, a cut output was padded with its tail and head up to the room: ``seq 1 3000``
    answered its last 230 lines. Now bulk shows three lines either end, and an output that
    fits no budget shows its salient lines and stops."""
    numbers = [str(i) for i in range(1, 3001)]
    shown = _shown(numbers, 2000)
    assert shown.splitlines()[:3] == ["1\t1", "2\t2", "3\t3"]
    assert shown.splitlines()[-3:] == ["2998\t2998", "2999\t2999", "3000\t3000"]
    assert len(shown.splitlines()) == 7  # and the marker between
    log = [f"[{i:05d}] CC src/module_{i:05d}.c" for i in range(3000)]
    log[1200] = "TypeError: __init__() got an unexpected keyword argument 'strict'"
    log[2400] = "Created build/out.bin"
    shown = _shown(log, 2000)
    assert "unexpected keyword argument 'strict'" in shown and "Created build/out.bin" in shown
    assert estimate_tokens(shown) < 400


def test_a_problem_line_of_the_bulk_is_shown_without_its_neighbours() -> None:
    """A linter's repeated 'exception' message is bulk: before, each of its first 12 got two
    lines of context either side, more bulk; now at most 3 of its shape, each alone."""
    lines = []
    for i in range(400):
        lines.append(f"mod_{i}.py:16:11: W0703: Catching too general exception Exception")
        lines.append(f"mod_{i}.py:1:0: C0114: Missing module docstring (missing-module-docstring)")
    lines.append("Your code has been rated at 5.87/10")
    shown = _shown(lines, 2000)
    assert "rated at 5.87/10" in shown
    assert shown.count("W0703") <= 3 + 2  # three alone, and the head's or tail's
    assert shown.count("C0114") <= 5  # the head's and tail's, no context windows


def test_at_most_twenty_summary_lines_besides_the_result() -> None:
    """157 'ERROR tests/…' lines filled two fifths of the room before; the first 20 name
    enough failures to act on, the rest is one get away."""
    lines = [
        f"ERROR tests/test_api.py::test_case_{i} - fixture 'srv' not found" for i in range(157)
    ]
    lines += [f"teardown step {i} done" for i in range(40)]
    lines.append(
        "======================== 132 passed, 157 errors in 1.31s ========================"
    )
    shown = _shown(lines, 2000)
    assert "132 passed, 157 errors" in shown
    assert shown.count("ERROR tests/") == 20


def _pytest_failure(name: str, body: list[str], at: str) -> list[str]:
    return [
        f"{'_' * 20} {name} {'_' * 20}",
        "",
        "testdir = <Testdir local('/tmp/pytest-of-root/pytest-4/x0')>",
        "",
        f"    def {name}(testdir):",
        *(f"        {b}" if b else "    " for b in body),
        f">       {at}",
        "E       AssertionError: assert 1 == 2",
        "",
        "testing/test_x.py:40: AssertionError",
        "----------------------------- Captured stdout call -----------------------------",
        *(f"captured line {i} of {name}" for i in range(40)),
    ]


def test_a_pytest_failure_shows_the_test_code_up_to_its_failing_line() -> None:
    """Each failing test's code above pytest's ``>`` line is kept, its own ``def`` included
    (the digest showed two lines above the ``>`` line: the call that set the test up, seven
    lines up, was gone), and the tail shows the short summary, not the last captured output."""
    one = [f'res_{i} = testdir.runpytest("--opt{i}")' for i in range(12)]
    two = ["", *(f"sub_{i}.ensure('x{i}.py')" for i in range(10))]
    lines = [
        "=" * 30 + " test session starts " + "=" * 30,
        *(f"testing/test_{i}.py ........" for i in range(60)),
        "=" * 30 + " FAILURES " + "=" * 30,
        *_pytest_failure("test_one", one, "assert res_0.ret == 2"),
        *_pytest_failure("test_two", two, "assert sub_0.check()"),
        "=" * 20 + " short test summary info " + "=" * 20,
        "FAILED testing/test_x.py::test_one - AssertionError",
        "FAILED testing/test_x.py::test_two - AssertionError",
        "=" * 20 + " 2 failed, 480 passed in 3.88s " + "=" * 20,
    ]
    shown = _shown(lines, 900)
    assert estimate_tokens(shown) <= 900
    for name, body in (("test_one", one), ("test_two", two)):
        assert f"    def {name}(testdir):\n" in shown
        for b in filter(None, body):
            assert f"\t        {b}\n" in shown, b
    assert "captured line 39 of test_two" not in shown  # the tail stops at the section rule
    assert "short test summary info" in shown and "2 failed, 480 passed" in shown


def test_a_named_exception_comes_before_pytest_details_and_a_test_failing_twice_shows_once() -> (
    None
):
    """A line naming an exception (``E   UnboundLocalError: …``) is kept before pytest's other
    ``E`` details (twelve ``E   and: …`` lines crowded it out), and a parametrized test that
    failed twice shows its code once."""
    body = [f"sub_{i}.ensure('x{i}.py')" for i in range(8)]
    details = [f"E           and: 'captured output line {i} of the inner run'" for i in range(14)]
    fail = _pytest_failure("test_sub", body, "result.stdout.fnmatch_lines(['*2 passed*'])")
    fail[fail.index("E       AssertionError: assert 1 == 2") + 1 : 1] = details
    lines = [
        "=" * 30 + " FAILURES " + "=" * 30,
        *fail,
        *fail,
        "/testbed/src/_pytest/main.py:535: in _collect",
        "E   UnboundLocalError: local variable 'm' referenced before assignment",
        *(f"captured tail line {i}" for i in range(40)),
        "=" * 20 + " short test summary info " + "=" * 20,
        "=" * 20 + " 2 failed in 0.24s " + "=" * 20,
    ]
    shown = _shown(lines, 700)
    assert "E   UnboundLocalError: local variable 'm' referenced" in shown
    assert shown.count("\t        sub_0.ensure('x0.py')\n") == 1
