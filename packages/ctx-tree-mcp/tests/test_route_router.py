"""Routing end to end without a host: the PreToolUse decision (``route/router.py``), the
rewritten command run by bash, the channel and the answers (``route/answers.py``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.route.channel import Channel
from ctx_tree_mcp.route.router import Router

BIG_LOG = "".join(f"step {i} ok\n" if i % 9 else f"step {i} WARNING slow\n" for i in range(4000))


@pytest.fixture
def proj(root: Path) -> Path:
    (root / "log.txt").write_text(BIG_LOG)
    (root / "small.txt").write_text("tiny\n")
    (root / "fail.sh").write_text(
        "for i in $(seq 1 3000); do echo test_$i PASSED; done\n"
        "echo 'E   AssertionError: expected 3, got 4' >&2\necho '1 failed, 2999 passed'\nexit 1\n"
    )
    return root


def _decide(router: Router, command: str, cwd: Path, mode: str = "default") -> str | None:
    router.socket_path = router.socket_path or "/x.sock"
    out = router.decide(
        {"tool": "Bash", "input": json.dumps({"command": command}), "cwd": str(cwd), "mode": mode}
    )
    if not out:
        return None
    spec = json.loads(out)["hookSpecificOutput"]
    assert spec["permissionDecision"] == "allow"
    command_out: str = spec["updatedInput"]["command"]
    return command_out


def _run(app: App, steps: list[tuple[str, str]], cwd: Path) -> list[tuple[Any, ...]]:
    """For each (command, mode): (rewritten or None, stdout, exit status, native stdout,
    native status)."""

    async def main() -> list[tuple[Any, ...]]:
        router = Router(app)
        channel = Channel(router, str(app.home))
        assert await channel.start()
        out = []
        try:
            for command, mode in steps:
                rewritten = _decide(router, command, cwd, mode)
                proc = await asyncio.create_subprocess_exec(
                    "bash",
                    "-c",
                    rewritten or command,
                    cwd=cwd,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                got, _ = await proc.communicate()
                native = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True)
                out.append(
                    (
                        rewritten,
                        got.decode(),
                        proc.returncode,
                        native.stdout.decode(),
                        native.returncode,
                    )
                )
        finally:
            await channel.close()
        assert not Path(channel.path or "x").exists()
        return out

    return asyncio.run(main())


def test_big_outputs_are_cut_small_ones_pass_unchanged(app: App, proj: Path) -> None:
    results = _run(
        app,
        [
            ("cat log.txt", "default"),
            ("grep -n WARNING log.txt", "default"),
            ("grep -c WARNING log.txt", "default"),
            ("grep -n nothing-here log.txt", "default"),
            ("cat small.txt", "default"),
            ("bash fail.sh", "bypassPermissions"),
        ],
        proj,
    )
    (cat, grep, count, none, small, run) = results
    # a big read: routed, cut, the same exit status, a line saying what is left out
    assert cat[0] and cat[0].startswith("set -o pipefail; cat log.txt | ")
    assert cat[2] == cat[4] == 0
    assert len(cat[1]) < len(cat[3]) / 5
    assert "-- ctx-tree: log.txt" in cat[1] and "sed -n" in cat[1]
    # a big grep: the native lines themselves, fewer
    assert grep[2] == 0 and grep[1].startswith("1:step 0 WARNING slow\n")
    assert set(grep[1].splitlines()[:50]) <= set(grep[3].splitlines())
    assert "-- ctx-tree:" in grep[1] and "ctx-tree get" in grep[1]
    # small outputs: byte for byte, status included
    assert count[1] == count[3] and count[2] == 0
    assert none[0] is not None and (none[1], none[2]) == ("", 1)  # big file: routed
    small_grep = _decide(Router(app), "grep -n tiny small.txt", proj)
    assert small_grep is None  # one small file: it surely fits, no client started
    assert small[0] is None and small[1] == "tiny\n"  # never routed: the file is small
    # `bash fail.sh` is not a run ctx-tree knows: left alone
    assert run[0] is None


def test_a_failing_run_keeps_its_status_and_its_failure(app: App, proj: Path) -> None:
    (proj / "runner.py").write_text(
        "import sys\nfor i in range(3000): print(f'test_{i} PASSED')\n"
        "print('E   AssertionError: expected 3, got 4', file=sys.stderr)\n"
        "print('== 1 failed, 2999 passed in 3.2s ==')\nsys.exit(1)\n"
    )
    ((rewritten, out, status, native, native_status),) = _run(
        app, [("python3 runner.py", "bypassPermissions")], proj
    )
    assert rewritten is not None and rewritten.endswith(rewritten.split("| ")[-1])
    assert status == native_status == 1
    assert "AssertionError: expected 3, got 4" in out
    assert "1 failed, 2999 passed" in out
    assert len(out) < len(native) / 10


def test_routing_never_widens_the_hosts_permissions(app: App, proj: Path, tmp_path: Path) -> None:
    settings = tmp_path / "claude-user" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    router = Router(app)
    router.socket_path = str(tmp_path / "x.sock")  # decisions only
    # no rule: a run would be asked about, so it is left to the host
    assert _decide(router, "pytest -q", proj) is None
    assert _decide(router, "pytest -q", proj, "dontAsk") is None
    # an allow rule that covers it, or bypassPermissions: routed
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(pytest:*)"]}}))
    assert _decide(router, "pytest -q", proj) is not None
    assert _decide(router, "make", proj) is None
    # a deny or ask rule on the original: left alone, whatever else allows it
    settings.write_text(
        json.dumps(
            {"permissions": {"allow": ["Bash"], "deny": ["Bash(cat:*)"], "ask": ["Bash(grep:*)"]}}
        )
    )
    assert _decide(router, "cat log.txt", proj, "bypassPermissions") is None
    assert _decide(router, "grep -n step log.txt", proj, "bypassPermissions") is None
    assert _decide(router, "pytest -q", proj) is not None
    # a deny rule on the client or on `set` (the rewritten command's own stages)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(set:*)"]}}))
    assert _decide(router, "cat log.txt", proj) is None
    # the project's own allow rules count only in a folder the host trusts
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(pytest:*)"]}})
    )
    settings.write_text("{}")
    assert _decide(router, "pytest -q", proj) is None
    (tmp_path / "claude-user" / ".claude.json").write_text(
        json.dumps({"projects": {str(proj): {"hasTrustDialogAccepted": True}}})
    )
    assert _decide(router, "pytest -q", proj) is not None
    # a cd out of the project: the host would block it
    assert _decide(router, "cd .. && pytest -q", proj) is None
    (proj / "sub").mkdir()
    assert _decide(router, "cd sub && pytest -q", proj) is not None
    # a read outside the project: the host would block it; left alone
    outside = tmp_path / "outside.txt"
    outside.write_text(BIG_LOG)
    settings.write_text("{}")
    assert _decide(router, f"cat {outside}", proj) is None
    assert _decide(router, "cat log.txt", proj) is not None


def test_switched_off_and_excluded_commands_run_as_they_are(app: App, proj: Path) -> None:
    config = proj / ".ctx-tree" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"route": {"exclude": ["grep -c", "cat"]}}))
    router = Router(app)
    router.socket_path = "/x.sock"
    assert _decide(router, "cat log.txt", proj) is None
    assert _decide(router, "grep -c step log.txt", proj) is None
    assert _decide(router, "grep -n step log.txt", proj) is not None
    other = App(proj, home=app.home)
    config.write_text(json.dumps({"route": {"enabled": False}}))
    off = Router(other)
    off.socket_path = "/x.sock"
    assert _decide(off, "grep -n step log.txt", proj) is None
    other.close()


def test_one_call_asked_twice_gets_one_answer(app: App, proj: Path) -> None:
    """Two of the hook's ``if`` conditions may match one command (``cd src && cat f``): the
    same tool call id gets the same rewrite, and only one command waits for its output."""
    router = Router(app)
    router.socket_path = "/x.sock"
    args = {
        "tool": "Bash",
        "input": json.dumps({"command": "cat log.txt"}),
        "cwd": str(proj),
        "id": "toolu_1",
    }
    first = router.decide(args)
    assert first and router.decide(args) == first
    assert len(router.pending) == 1
    assert router.decide({**args, "id": "toolu_2"}) != first  # another call: its own token


def test_a_routed_command_holds_the_project_index_until_its_answer_is_out(
    app: App, proj: Path
) -> None:
    """The index writes between calls (docs/index.md): the host's routed command counts as a
    call from the hook's decision until its answer is out; one left alone for a moment."""

    async def main() -> tuple[set[str], set[str], str]:
        router = Router(app)
        channel = Channel(router, str(app.home))
        assert await channel.start()
        try:
            rewritten = _decide(router, "cat log.txt", proj)
            assert rewritten
            token = next(iter(router.pending))
            held = set(app.calls._holds)
            proc = await asyncio.create_subprocess_exec(
                "bash", "-c", rewritten, cwd=proj, stdout=asyncio.subprocess.PIPE
            )
            await proc.communicate()
            for _ in range(100):  # the channel releases it once the reply is written
                if token not in app.calls._holds:
                    break
                await asyncio.sleep(0.01)
            return held, set(app.calls._holds), token
        finally:
            await channel.close()

    held, after, token = asyncio.run(main())
    assert token in held and any(k.startswith("host:") for k in held)
    assert token not in after


def test_a_background_command_or_another_tool_is_left_alone(app: App, proj: Path) -> None:
    router = Router(app)
    router.socket_path = "/x.sock"
    bg = json.dumps({"command": "cat log.txt", "run_in_background": True})
    assert router.decide({"tool": "Bash", "input": bg, "cwd": str(proj)}) == ""
    assert router.decide({"tool": "Read", "input": "{}", "cwd": str(proj)}) == ""
    assert router.decide({"tool": "Bash", "input": "not json", "cwd": str(proj)}) == ""


def test_usage_counts_per_kind(app: App, proj: Path) -> None:
    """What the host would have passed (``tokens_source``) and what it passed, per kind."""
    from ctx_tree_store import browse

    _run(
        app,
        [
            ("cat log.txt", "default"),
            ("grep -n WARNING log.txt", "default"),
            ("cat -n log.txt", "default"),
        ],
        proj,
    )
    app.flush_counters()
    rows: dict[tuple[str, str], int] = {}
    for _day, tool, name, value in browse.usage_since(app.store, "2000-01-01"):
        rows[(tool, name)] = rows.get((tool, name), 0) + value
    for kind in ("read", "grep"):
        source, served = (
            rows[(f"route:{kind}", "tokens_source")],
            rows[(f"route:{kind}", "tokens_served")],
        )
        assert 0 < served < source / 3, (kind, served, source)


def test_an_output_that_fits_is_printed_first_then_stored_and_counted(app: App, proj: Path) -> None:
    """A routed output that fits its budget is printed as it was, and stored whole and counted
    once the client has it (docs/routing.md)."""
    from ctx_tree_store import browse

    (proj / "mid.log").write_text("".join(f"zqevent {i} ok\n" for i in range(40)))
    ((rewritten, out, status, native, native_status),) = _run(
        app, [("grep -rn zqevent .", "default")], proj
    )
    assert rewritten and (out, status) == (native, native_status) and out.count("\n") == 40
    app.flush_counters()
    rows = {
        name: value
        for _day, tool, name, value in browse.usage_since(app.store, "2000-01-01")
        if tool == "route:grep"
    }
    assert rows["tokens_served"] == rows["tokens_source"] > 0
    (node,) = app.store.recent(kind="tool_output", limit=1)
    assert app.store.get(node.id).content == native


def test_the_start_up_session_answers_the_route_call_at_once() -> None:
    """Before and after the SDK's handover the hooks' call never waits: nothing routed until
    the routing service is up, then its decision."""
    from ctx_tree_mcp.serve.instant import ROUTE_TOOL, Session, load_snapshot

    sent: list[dict[str, Any]] = []
    session = Session(load_snapshot(), lambda text: sent.append(json.loads(text)))
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": ROUTE_TOOL, "arguments": {"tool": "Bash", "input": "{}"}},
    }
    session.receive(json.dumps(call))  # not even initialized: still answered, nothing routed
    assert sent[-1] == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": ""}], "isError": False},
    }
    session.route_decide = lambda args: "ROUTED " + args["tool"]
    session.receive(json.dumps({**call, "id": 8}))
    assert sent[-1]["id"] == 8 and sent[-1]["result"]["content"][0]["text"] == "ROUTED Bash"
    assert session.pending == []  # never queued for the SDK


def test_a_big_read_without_a_range_gets_its_top_and_the_outline(app: App, root: Path) -> None:
    """The Read shows the file's first lines; the hook's context holds the outline, the end
    of the file and the command for the rest; a small file or a Read with a range is left."""
    router = Router(app)
    big = root / "src" / "argparse_copy.py"

    def decide(**tool_input: object) -> dict[str, Any] | None:
        out = router.decide_read({"tool": "Read", "input": json.dumps(tool_input)})
        return json.loads(out)["hookSpecificOutput"] if out else None

    spec = decide(file_path=str(big))
    assert spec is not None and "permissionDecision" not in spec  # the host judges the Read
    given = spec["updatedInput"]
    assert given["file_path"] == str(big) and given["offset"] == 1
    total = len(big.read_text().splitlines())
    assert 10 < given["limit"] < total / 4
    context = spec["additionalContext"]
    assert context.startswith(f"ctx-tree: the Read shows lines 1-{given['limit']}")
    assert "## outline (" in context and "class ArgumentParser" in context
    assert f"## lines 1-{given['limit']}" not in context  # those lines are the Read's
    last = big.read_text().splitlines()[-1]
    assert last in context  # the end of the file
    assert "sed -n" in context  # the rest, by a command that shows it
    assert decide(file_path=str(big), offset=1, limit=50) is None
    small = root / "small.py"
    small.write_text("x = 1\n")
    assert decide(file_path=str(small)) is None
    assert decide(file_path=str(root.parent / "elsewhere.py")) is None
