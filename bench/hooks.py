"""Hook latency: spawn → exit of ``plugin/hooks/ctx_tree_hook.py`` per event, p50 / p95.

Each hook is run the way Claude Code runs it (``python3 -I -S ctx_tree_hook.py EVENT``, the
payload on stdin) with realistic payloads: a prompt, a 100 KB Read result, a 100 KB Bash output
holding a token to redact, a 100 KB Grep result, a 10 KB answer, PreToolUse on a 3,000-line
file (a hint) and on a small one (nothing to say), and SessionStart with a store summary. Rounds
are interleaved so load noise spreads evenly. Baselines in the same run: ``python3 -c pass``
and ``python3 -I -S -c pass`` with the same interpreter.

    uv run python bench/hooks.py [--runs 60] [--python python3] [--baseline DIR] [--runner]
                                 [--instructions]

``--baseline DIR``: another checkout (``git worktree add DIR REV``; its files 0644, or the hook
refuses to load its modules): its hook is timed too, alternated with this one's, same payloads.

``--runner``: time each hook also as the plugin's commands start it, ``sh ctx_tree_hook.sh``
(the interpreter ``--python`` resolves to, noted once, exec'd without the shim), beside
``--python -I -S ctx_tree_hook.py`` (the command as it was).

``--instructions``: instead of timing, count the instructions each hook process executes
(``valgrind --tool=callgrind``, one run per payload): the same on a busy machine as on an idle
one, so two versions compare exactly where wall and CPU times swing by more than they differ.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOOK = Path(__file__).resolve().parent.parent / "plugin" / "hooks" / "ctx_tree_hook.py"
RUNNER = "ctx_tree_hook.sh"
TOKEN = "ghp_" + "Bench0Token1Value2Xyz3Abc4Def5Ghi6Jkl7"


def payloads(project: Path) -> dict[str, tuple[str, bytes]]:
    big = project / "big.py"
    big.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(1000)))
    small = project / "small.py"
    small.write_text("def f():\n    return 1\n")
    hundred_kb = "".join(
        f"line {i:05d} of a realistic tool output, some words here\n" for i in range(2000)
    )
    assert len(hundred_kb) >= 100_000
    common = {"session_id": "bench", "cwd": str(project), "transcript_path": "", "prompt_id": "p"}

    def make(event: str, **fields) -> tuple[str, bytes]:
        return event, json.dumps({**common, **fields}).encode()

    return {
        "SessionStart": make("session-start", source="startup"),
        "UserPromptSubmit": make("prompt", prompt="Why does the cache evict too early? " * 5),
        "PreToolUse Read 3,000 lines (hint)": make(
            "pre-tool", tool_name="Read", tool_input={"file_path": str(big)}
        ),
        "PreToolUse Read small (nothing)": make(
            "pre-tool", tool_name="Read", tool_input={"file_path": str(small)}
        ),
        "PreToolUse Bash pytest (hint)": make(
            "pre-tool", tool_name="Bash", tool_input={"command": "pytest -q"}
        ),
        "PostToolUse Read, 100 KB result": make(
            "post-tool",
            tool_name="Read",
            tool_input={"file_path": str(big)},
            tool_response={"type": "text", "file": {"filePath": str(big), "content": hundred_kb}},
        ),
        "PostToolUse Bash, 100 KB + token": make(
            "post-tool",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_response={"stdout": hundred_kb + TOKEN, "stderr": "", "interrupted": False},
        ),
        "PostToolUse Grep, 100 KB content": make(
            "post-tool",
            tool_name="Grep",
            tool_input={"pattern": "line", "output_mode": "content"},
            tool_response={"mode": "content", "content": hundred_kb},
        ),
        "Stop, 10 KB answer": make("stop", last_assistant_message="The cache evicts. " * 550),
        # other hosts' payloads through their adapters (ctx_tree_hook.py HOST EVENT)
        "Gemini AfterTool shell 100 KB (hint)": make(
            "gemini AfterTool",
            hook_event_name="AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "pytest -q"},
            tool_response={"llmContent": hundred_kb + TOKEN, "returnDisplay": ""},
        ),
        "Copilot PostToolUse Bash 100 KB": make(
            "copilot PostToolUse",
            hook_event_name="PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_result={"result_type": "success", "text_result_for_llm": hundred_kb},
        ),
        "Cline PreToolUse read_files (hint)": make(
            "cline PreToolUse",
            hookName="PreToolUse",
            taskId="t",
            workspaceRoots=[str(project)],
            preToolUse={"toolName": "read_files", "parameters": {"files": [{"path": str(big)}]}},
        ),
        "Cline PostToolUse run_commands 100 KB": make(
            "cline PostToolUse",
            hookName="PostToolUse",
            taskId="t",
            workspaceRoots=[str(project)],
            postToolUse={
                "toolName": "run_commands",
                "parameters": {"commands": ["pytest -q"]},
                "result": hundred_kb,
                "success": True,
            },
        ),
        "OpenCode tool.execute.after bash 100 KB": make(
            "opencode tool.execute.after",
            tool="bash",
            args={"command": "pytest -q"},
            output=hundred_kb,
        ),
        "Cursor afterShellExecution 100 KB": make(
            "cursor afterShellExecution",
            hook_event_name="afterShellExecution",
            workspace_roots=[str(project)],
            command="pytest -q",
            output=hundred_kb,
        ),
    }


def server_start_leftovers(checkout: Path, home: Path) -> None:
    """What the server of ``checkout`` leaves in ``home`` when it starts, for its hooks to read
    (an older one wrote ``spool/modules.json``: module paths, redaction triggers), written by
    that checkout's own code; nothing for one whose hooks need nothing."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from ctx_tree_mcp.capture import spool; "
        "record = getattr(spool, 'record_modules', None); record and record(sys.argv[2])"
    )
    source = checkout / "packages" / "ctx-tree-mcp" / "src"
    subprocess.run([sys.executable, "-c", code, str(source), str(home)], check=True)


def timed(argv: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms spawn → exit, CPU ms of the child: user + system)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, input=data, capture_output=True, env=env)
    elapsed = (time.perf_counter() - t0) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0 and not done.stderr, done.stderr
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
    return elapsed, cpu


def instructions(argv: list[str], data: bytes, env: dict[str, str]) -> int:
    """Instructions the process ``argv`` executes (``valgrind --tool=callgrind``: Ir)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        input=data, capture_output=True, env=env, check=True,
    )  # fmt: skip
    for line in done.stderr.decode().splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise RuntimeError(done.stderr.decode()[-500:])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--python", default="python3", help="interpreter the host runs hooks with")
    parser.add_argument("--baseline", type=Path, help="a checkout whose hook is timed alongside")
    parser.add_argument("--runner", action="store_true", help="time ctx_tree_hook.sh as well")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead"
    )
    args = parser.parse_args()
    hooks = {"": HOOK}
    if args.baseline:
        hooks[" (baseline)"] = args.baseline.resolve() / "plugin" / "hooks" / "ctx_tree_hook.py"
    python = shutil.which(args.python) or args.python
    starts = {"": lambda hook: [python, "-I", "-S", str(hook)]}
    if args.runner:
        starts[" (ctx_tree_hook.sh)"] = lambda hook: ["sh", str(hook.with_name(RUNNER))]
    hooks_started = {tag + how: (hook, how) for tag, hook in hooks.items() for how in starts}
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": tmp, "CTX_TREE_HOME": str(home),
               "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
        cases = payloads(project)
        # A store summary for SessionStart to report.
        from ctx_tree_mcp.app import spool_dir
        from ctx_tree_mcp.capture.spool import write_state

        for hook in hooks.values():
            server_start_leftovers(hook.parent.parent.parent, home)

        base = spool_dir(home, project)
        write_state(base, {"prompt": 12, "response": 12, "file": 40, "tool_output": 9, "session": 3},
                    int(time.time() * 1000) - 3_600_000)  # fmt: skip
        if args.instructions:
            count_instructions(python, hooks, cases, env, base)
            return
        times: dict[str, list[tuple[float, float]]] = {
            name + tag: [] for name in cases for tag in hooks_started
        }
        baselines = {"python3 -c pass": [python, "-c", "pass"],
                     "python3 -I -S -c pass": [python, "-I", "-S", "-c", "pass"]}  # fmt: skip
        times.update({name: [] for name in baselines})
        for event, data in cases.values():  # warm-up (page cache, __pycache__, the note)
            for hook, how in hooks_started.values():
                timed([*starts[how](hook), *event.split()], data, env)
        for _ in range(args.runs):
            for name, argv in baselines.items():
                times[name].append(timed(argv, b"", env))
            for name, (event, data) in cases.items():
                for tag, (hook, how) in hooks_started.items():
                    times[name + tag].append(timed([*starts[how](hook), *event.split()], data, env))
            for stale in (base / "new").glob("*.json"):
                stale.unlink()  # keep the spool at a realistic size
        real = os.path.realpath(python)
        print(f"interpreter: {python} -> {real}; {args.runs} runs each, interleaved")
        print(f"load average: {os.getloadavg()[0]:.2f}")
        print(f"{'hook':52} {'min ms':>8} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8}")
        for name, pairs in times.items():
            wall, cpu = [w for w, _ in pairs], [c for _, c in pairs]
            print(
                f"{name:52} {min(wall):8.1f} {statistics.median(wall):8.1f} {pct(wall, 0.95):8.1f} "
                f"{statistics.median(cpu):8.1f}"
            )
        for tag in hooks_started:
            walls = [[w for w, _ in times[name + tag]] for name in cases]
            worst50 = max(statistics.median(v) for v in walls)
            worst95 = max(pct(v, 0.95) for v in walls)
            print(
                f"worst hook{tag}: p50 {worst50:.1f} ms (aim <= 25), "
                f"p95 {worst95:.1f} ms (aim <= 60)"
            )


def count_instructions(
    python: str,
    hooks: dict[str, Path],
    cases: dict[str, tuple[str, bytes]],
    env: dict[str, str],
    base: Path,
) -> None:
    """Print the instructions of one run of each hook per payload (after a warm-up run), and
    of ``python3 -I -S`` running an empty script, in millions."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as empty:
        floor = instructions([python, "-I", "-S", empty.name], b"", env)
    print(f"interpreter: {python} -> {os.path.realpath(python)}; instructions (M), one run each")
    print(f"python3 -I -S, an empty script: {floor / 1e6:.2f} M")
    tags = list(hooks)
    print(f"{'hook':44}" + "".join(f"{'M' + tag:>16}" for tag in tags))
    totals = dict.fromkeys(tags, 0)
    for name, (event, data) in cases.items():
        row = []
        for tag, hook in hooks.items():
            argv = [python, "-I", "-S", str(hook), *event.split()]
            timed(argv, data, env)  # warm-up: __pycache__, the spool folders
            count = instructions(argv, data, env)
            totals[tag] += count
            row.append(count)
            for stale in (base / "new").glob("*.json"):
                stale.unlink()
        print(f"{name:44}" + "".join(f"{c / 1e6:16.2f}" for c in row))
    print(f"{'all payloads':44}" + "".join(f"{totals[t] / 1e6:16.2f}" for t in tags))


if __name__ == "__main__":
    main()
