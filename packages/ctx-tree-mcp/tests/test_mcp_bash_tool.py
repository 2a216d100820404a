"""ctx_tree_bash end to end over real processes: answers, the stored node, refusals, budgets."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from answers import call_tool
from ctx_tree_mcp.answers.budget import estimate_tokens
from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.shell.record import keep_head_and_tail, record_output
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_mcp.tools.get import get

_APP: list[App] = []


@pytest.fixture(autouse=True)
def _this_app(app: App):
    _APP[:] = [app]
    yield
    _APP.clear()


def _node_id(answer: str) -> str:
    """The node a cut answer's manifest names; a complete answer names none (it holds all of
    the output): then the newest stored command output."""
    if "-- ctx-tree: node " in answer:
        return answer.split("-- ctx-tree: node ", 1)[1].split()[0].rstrip(";")
    return _APP[0].store.recent(kind="tool_output")[0].id


def test_answer_gives_exit_code_and_output_and_stores_a_node(app: App) -> None:
    answer = bash(app, "echo hello; echo oops >&2; exit 3")
    # all of it fits: the status line (the command failed) and the output as printed, no footer
    assert answer == "exit 3\nhello\noops\n"
    node = app.store.get(_node_id(answer))
    assert node is not None and node.kind.value == "tool_output"
    assert node.content == "hello\noops\n"
    assert node.parent_id == app.recorder.session_node_id()
    assert node.source_uri.startswith("cmd://")
    meta = node.metadata
    assert meta["command"] == "echo hello; echo oops >&2; exit 3"
    assert meta["exit_code"] == 3 and meta["source"] == "ctx_tree_bash"
    assert meta["cwd"] == str(app.root) and isinstance(meta["duration_ms"], int)
    # a command that succeeded costs what the native shell prints: the output alone
    assert bash(app, "echo hello; echo oops >&2") == "hello\noops\n"
    assert bash(app, "printf 'no line end'") == "no line end"  # as printed, nothing added


def test_refused_commands_never_run_and_store_nothing(app: App, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for command in (f"touch {marker}; env", f"touch {marker} && printenv", ""):
        with pytest.raises(ToolInputError) as err:
            bash(app, command)
        assert err.value.argument == "command"
    assert not marker.exists()
    (app.root / ".ctx-tree").mkdir()
    (app.root / ".ctx-tree" / "config.json").write_text(
        json.dumps({"bash": {"deny": ["git push"]}})
    )
    fresh = App(app.root, home=app.home)
    try:
        with pytest.raises(ToolInputError, match=r"bash\.deny"):
            bash(fresh, f"touch {marker}; git push origin main")
        assert not marker.exists()
        assert not fresh.stores.opened  # refused before the store was even opened
    finally:
        fresh.close()


def test_bad_arguments_are_tool_errors(app: App) -> None:
    for kwargs, argument in (
        ({"timeout_s": 0}, "timeout_s"),
        ({"timeout_s": 601}, "timeout_s"),
        ({"budget_tokens": 50}, "budget_tokens"),
    ):
        with pytest.raises(ToolInputError) as err:
            call_tool(app, "ctx_tree_bash", command="true", **kwargs)
        assert err.value.argument == argument


def test_secrets_in_output_are_redacted_in_store_and_answer(app: App) -> None:
    secret = "ghp_" + "a" * 36
    answer = bash(app, f"echo token {secret}")
    assert secret not in answer and "[REDACTED:github_token]" in answer
    assert secret not in app.store.get(_node_id(answer)).content


@pytest.mark.parametrize("numbered", ["sed -n", "cat -n"])
def test_a_key_body_printed_without_its_begin_line_is_hidden(app: App, numbered: str) -> None:
    """Lines of a key printed apart from its BEGIN line (an earlier command printed that)
    carry no marker redaction could see: runs of key-width base64 lines are hidden."""
    import base64
    import random

    body = base64.b64encode(random.Random(3).randbytes(1200)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END EC PRIVATE KEY-----\n"
    (app.root / "fixture_keys.py").write_text('KEY = """' + pem + '"""\nNEXT = 1\n')
    command = (
        "sed -n 4,14p fixture_keys.py"
        if numbered == "sed -n"
        else "cat -n fixture_keys.py | sed -n 4,14p"
    )
    answer = bash(app, command)
    stored = app.store.get(_node_id(answer)).content
    for line in lines[2:13]:
        assert line not in answer and line not in stored
    assert stored.count("[REDACTED:private_key]") == 11
    # hex digests of the same width are not keys
    digests = "\n".join(f"{i:064x}" for i in range(5))
    printed = bash(app, f"printf '{digests}\\n'")
    assert app.store.get(_node_id(printed)).content == digests + "\n"


def test_the_first_line_counts_the_whole_output_when_the_store_keeps_part_of_it(app: App) -> None:
    """Past capture.maxBytes the store keeps the first and last parts: the first line said
    '16,224 lines' for a command that printed 300,000; it gives the output's size and what of
    it was kept."""
    whole = sum(len(str(i)) + 1 for i in range(1, 300_001))
    answer = bash(app, "seq 1 300000", budget_tokens=300)
    first = answer.splitlines()[0]
    kept = len(app.store.get(_node_id(answer)).content.splitlines())
    assert first.startswith(f"exit 0 · {whole:,} bytes, {kept:,} lines of it kept · "), first
    assert bash(app, "seq 1 3000; exit 1").splitlines()[0].startswith("exit 1 · 3,000 lines · ")


def test_long_output_fits_the_budget_with_the_tail_and_a_get_call_that_pages(app: App) -> None:
    answer = bash(app, "seq 1 200000", budget_tokens=2000)
    assert estimate_tokens(answer) <= 2000
    assert answer.startswith("exit 0 · ")
    assert "\t200000\n" in answer  # the tail
    # the budget is a cap: bulk (one number a line) shows a few lines either end, not 2,000t
    assert "1\t1\n2\t2\n3\t3\n…\n" in answer and estimate_tokens(answer) < 250
    assert "omitted" not in answer  # the numbers either side of '…' say which lines are left out
    node_id = _node_id(answer)
    node = app.store.get(node_id)
    assert node.truncated and node.original_bytes == 1_288_895
    assert len(node.content.encode()) <= app.config.get("capture", "maxBytes")
    assert node.content.startswith("1\n2\n") and node.content.endswith("200000\n")
    assert "bytes left out here" in node.content
    next_call = next(ln for ln in answer.splitlines() if ln.startswith("next: "))
    offset = int(next_call.split("offset=")[1].rstrip(")"))
    page = get(app, node_id, offset=offset, budget_tokens=500)
    assert page.startswith("4\n5\n6\n")  # the first line left out


def test_timeout_answer_says_killed_and_shows_what_came_before(app: App) -> None:
    start = time.monotonic()
    answer = bash(app, "echo first-part; sleep 100", timeout_s=1)
    assert time.monotonic() - start < 2.5
    assert answer.startswith("killed at the timeout")
    assert "first-part" in answer
    node = app.store.get(_node_id(answer))
    assert node.metadata["timed_out"] is True and node.metadata["exit_code"] is None


def test_timeout_without_output_does_not_promise_output_below(app: App) -> None:
    answer = bash(app, "sleep 100", timeout_s=1)
    assert answer.startswith("killed at the timeout (timeout_s); no output before it")
    assert "below" not in answer


def test_binary_output_never_breaks_the_answer(app: App) -> None:
    answer = bash(app, "head -c 50000 /dev/urandom", budget_tokens=500)
    answer.encode("utf-8")
    assert estimate_tokens(answer) <= 500
    assert "looks binary" in answer


def test_failing_test_run_shows_the_failure_and_the_summary(app: App) -> None:
    """A real pytest run of 300 tests, one failing, answered in a 1,500-token budget."""
    pkg = app.root / "suite"
    (pkg / "tests").mkdir(parents=True)
    (pkg / "pytest.ini").write_text("[pytest]\n")
    tests = "".join(
        f"def test_case_{i:03d}():\n    assert {i} == {i}\n\n\n"
        if i != 117
        else "def test_total_is_right():\n    total = sum([1, 2, 3])\n    assert total == 7\n\n\n"
        for i in range(300)
    )
    (pkg / "tests" / "test_many.py").write_text(tests)
    command = f"cd suite && {sys.executable} -m pytest -v -p no:cacheprovider -p no:xdist tests"
    answer = bash(app, command, budget_tokens=1500)
    node = app.store.get(_node_id(answer))
    assert estimate_tokens(answer) <= 1500 < estimate_tokens(node.content)
    assert answer.startswith("exit 1 · ")
    assert "FAILED tests/test_many.py::test_total_is_right" in answer
    assert "assert 6 == 7" in answer
    assert "1 failed, 299 passed" in answer


def test_a_quiet_failing_pytest_run_keeps_its_result_at_the_smallest_budget(app: App) -> None:
    """``pytest -q`` ends with a bare result line (``2 failed, 150 passed in 0.41s``, no
    ``===`` rules): at budget 100 the answer still holds it, the exit code and a FAILED line
    (docs/tools.md)."""
    pkg = app.root / "quiet"
    pkg.mkdir()
    (pkg / "pytest.ini").write_text("[pytest]\n")
    tests = "".join(f"def test_ok_{i}():\n    assert {i} == {i}\n\n\n" for i in range(150))
    tests += "def test_sum():\n    total = sum([2, 2])\n    assert total == 5\n\n\n"
    tests += "def test_key():\n    table = {'a': 1}\n    assert table['b'] == 1\n"
    (pkg / "test_quiet.py").write_text(tests)
    command = f"cd quiet && {sys.executable} -m pytest -q -p no:cacheprovider -p no:xdist"
    answer = bash(app, command, budget_tokens=100)
    assert estimate_tokens(answer) <= 100, answer
    assert answer.startswith("exit 1 · "), answer
    assert "2 failed, 150 passed in " in answer, answer
    answer = bash(app, command, budget_tokens=160)  # room for the first test it names
    assert "2 failed, 150 passed in " in answer, answer
    assert "FAILED test_quiet.py::test_sum - assert 4 == 5" in answer, answer


def test_record_output_keeps_head_and_tail_and_redacts(app: App) -> None:
    """The seam the capture hooks use for the host's own Bash/Grep/Glob results."""
    big = "".join(f"line {i}\n" for i in range(50_000)) + "key AKIAQ3XK7NPLM2RT5VWZ\n"
    rec = record_output(
        app, big, command="make", cwd=str(app.root), source="hook:Bash", exit_code=2
    )
    node = app.store.get(rec.node_id)
    assert node.content == rec.content and rec.truncated
    assert node.content.startswith("line 0\n") and "[REDACTED:aws_access_key]" in node.content
    assert "AKIAQ3XK7NPLM2RT5VWZ" not in node.content
    assert node.metadata["source"] == "hook:Bash" and node.metadata["exit_code"] == 2
    assert node.metadata["duration_ms"] is None


def test_keep_head_and_tail_cuts_at_line_ends() -> None:
    text = "".join(f"{i:05d}\n" for i in range(10_000))
    out = keep_head_and_tail(text, 2000)
    assert len(out.encode()) <= 2000
    head, _, tail = out.partition("[…")
    assert head.endswith("\n") and head.startswith("00000\n")
    assert tail.endswith("09999\n")
    assert keep_head_and_tail("short\n", 2000) == "short\n"


def test_an_error_deep_inside_a_huge_output_is_kept_and_shown(app: App) -> None:
    """1 MB of build log, over capture.maxBytes: the store keeps head and tail, and the
    left-out middle's problem lines, so the compiler error still reaches the answer."""
    lines = [f"[{i:05d}] CC src/module_{i:05d}.c -o build/module_{i:05d}.o" for i in range(20000)]
    lines[11234] = "src/net/socket.c:482:17: error: 'SO_REUSEPORT' undeclared"
    (app.root / "build.log").write_text("\n".join(lines) + "\nmake: *** [all] Error 1\n")
    answer = bash(app, "cat build.log; exit 2", budget_tokens=1500)
    assert "socket.c:482:17: error: 'SO_REUSEPORT' undeclared" in answer
    assert "make: *** [all] Error 1" in answer and answer.startswith("exit 2 · ")
    node = app.store.get(_node_id(answer))
    assert "the lines among them that report a problem" in node.content
    assert "[00000] CC" in node.content and "[19999] CC" in node.content
    assert "[11233] CC" not in node.content  # the middle itself is left out


def test_a_newer_run_of_the_same_command_supersedes_the_older(app: App) -> None:
    from ctx_tree_schema import NodeStatus

    first = _node_id(bash(app, "date +%N; echo run"))
    app.store.set_status([first], NodeStatus.LIVE)  # what the filter walker does
    second = _node_id(bash(app, "date +%N; echo run"))
    other = _node_id(bash(app, "echo another command"))
    assert second != first
    assert app.store.get(first).status == NodeStatus.SUPERSEDED
    assert app.store.get(other).status == NodeStatus.PENDING
    edges = app.store.neighbors(second, spine=False)
    assert [(n.node.id, n.via) for n in edges] == [(first, "supersedes:out")]


def test_redacted_output_is_not_reported_or_stored_as_cut(app: App) -> None:
    """Redaction shortens a short output; nothing was left out, so the node is not
    ``truncated`` and the answer does not say the store kept only its first and last parts."""
    answer = bash(
        app, "echo key AKIAQ3XK7NPLM2RT5VWZ; echo ghp_abcdefghijklmnopqrstuvwxyz0123456789ab"
    )
    node = app.store.get(_node_id(answer))
    assert (
        "[REDACTED:aws_access_key]" in node.content and "AKIAQ3XK7NPLM2RT5VWZ" not in node.content
    )
    assert node.truncated is False
    assert "first and last" not in answer


def test_cancelling_the_call_ends_the_command(app: App, tmp_path: Path) -> None:
    """The MCP server awaits bash_async; a client's cancel cancels that task, and the
    command's process group must end with it."""
    import asyncio
    import os

    from ctx_tree_mcp.tools.bash import bash_async

    pid_file = tmp_path / "pid"

    async def main() -> None:
        task = asyncio.create_task(bash_async(app, f"sleep 100 & echo $! > {pid_file}; wait"))
        for _ in range(100):
            await asyncio.sleep(0.05)
            if pid_file.exists() and pid_file.read_text().strip():
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    start = time.monotonic()
    asyncio.run(main())  # returns once the worker thread has ended the group
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"sleep {pid} still running after cancel")
    assert time.monotonic() - start < 8


def test_an_output_that_fits_is_answered_whole_with_its_tail(app: App) -> None:
    """Before, fit was checked with chars / 4 and the answer then cut from its end by the
    estimator: a pytest run of ~1.3k tokens lost its exception and summary in a 2,000 budget."""
    lines = ["============================= test session starts =============================="]
    lines += [f"tests/test_m{i}.py {'.' * 70} [{i % 100:3d}%]" for i in range(100)]
    lines += ["E       ValueError: Port out of range 0-65535",
              "=================== 1 failed, 10499 passed in 12.00s ==================="]  # fmt: skip
    (app.root / "out.txt").write_text("\n".join(lines) + "\n")
    answer = bash(app, "cat out.txt; exit 1", budget_tokens=2000)
    assert estimate_tokens(answer) <= 2000
    assert "[…cut" not in answer and "omitted" not in answer
    assert answer.startswith("exit 1\n=====")
    assert answer.endswith("1 failed, 10499 passed in 12.00s ===================\n")
    assert "-- ctx-tree" not in answer


@pytest.mark.parametrize("budget", [100, 120, 500])
def test_a_small_budget_still_gives_the_exit_code_and_the_result(app: App, budget: int) -> None:
    lines = [f"tests/test_m{i}.py {'.' * 70} [{i % 100:3d}%]" for i in range(300)]
    lines += ["=================== 2 failed, 150 passed in 1.00s ==================="]
    (app.root / "out.txt").write_text("\n".join(lines) + "\n")
    answer = bash(app, "cat out.txt; exit 1", budget_tokens=budget)
    assert answer.startswith("exit 1 · 301 lines · ")
    assert "2 failed, 150 passed" in answer and estimate_tokens(answer) <= budget


@pytest.mark.parametrize("budget", [100, 150])
def test_a_small_budget_pages_by_real_amounts_not_characters(app: App, budget: int) -> None:
    """A node's description (a long command, up to 120 characters) filled a small page's
    manifest, so ctx_tree_get paged 7 characters at a time at a budget of 100."""
    command = "python3 -c 'print(\"x\" * 20000)' # " + "a comment that makes the command long " * 6
    node_id = _node_id(bash(app, command))
    offset = 0
    for _ in range(3):
        page = get(app, node_id, offset=offset, budget_tokens=budget)
        assert estimate_tokens(page) <= budget
        following = int(page.split("offset=")[1].split(")")[0])
        assert following - offset >= 60, page
        offset = following


def test_a_cut_output_says_why_in_the_words_grep_uses(app: App) -> None:
    """The note of an output past capture.maxBytes named the setting as jargon
    ('(capture.maxBytes)'); it says what the setting is, as a cut grep's answer does."""
    answer = bash(app, "seq 1 300000", budget_tokens=300)
    cap = app.config.get("capture", "maxBytes")
    assert (
        f"the output came to more than the {cap:,} bytes the store keeps of one output "
        "(the capture.maxBytes setting): it was 1,988,895 bytes, of which the store keeps the "
        "first and last parts"
    ) in answer, answer


def test_the_answer_says_a_process_left_the_group_and_was_ended(app, tmp_path) -> None:
    from ctx_tree_mcp.tools.bash import bash

    pid = tmp_path / "pid"  # written by the sleep once it is in its own session
    text = bash(
        app,
        f"setsid sh -c 'echo $$ > {pid}; exec sleep 30' > /dev/null 2>&1 & "
        f"while [ ! -s {pid} ]; do sleep 0.01; done; echo started",
    )
    assert text.startswith("started\n"), text
    assert "1 process the command started outside its process group (setsid) was ended" in text
