"""``ctx_tree_bash``: run a shell command in the project root; store all of its output; answer
the exit status and the lines that matter within the budget.

When the whole output fits the budget, the answer is the output as printed, as the native
shell tool shows it: nothing before it when the command succeeded, ``exit 1`` (or how it was
stopped) when it did not, no footer unless a note must be said. Otherwise it starts with one
status line (``exit 1 · 2,345 lines · 1.2 s``), then numbered output lines (``<n>\\t<text>``,
line numbers of the stored output) with a bare ``…`` line for each omitted run, then the
manifest with the ``ctx_tree_get`` call that pages from the first line left out
(docs/tools.md, "Footer and manifest").
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from ctx_tree_mcp.answers.budget import (
    MAX_CHARS_PER_TOKEN,
    estimate_tokens,
    tokens_for_chars,
)
from ctx_tree_mcp.answers.render import Manifest, fitted_answer, over_the_capture_cap
from ctx_tree_mcp.answers.surface import argument_name
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.lookup import NOT_STORED, get_call
from ctx_tree_mcp.tools.spec import Budget, Cli, Input, Reply, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import MonitorMeta

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.engines.shell.record import Recorded
    from ctx_tree_mcp.engines.shell.run import RunResult
    from ctx_tree_mcp.engines.shell.sandbox import Plan

DESCRIPTION = "Run a shell command; output stored, a digest (errors, tail) returned."
MAX_TIMEOUT_S = 600
SOURCE = "ctx_tree_bash"
#: Budgets (tokens) under which the manifest may drop its ``next`` call and lists the omitted
#: runs (an omitted run is a bare ``…`` line at any budget: the numbered lines either side
#: say which lines it stands for).
SMALL_BUDGET = 200


class Args(Input):
    """Arguments of ``ctx_tree_bash``."""

    command: Annotated[
        str,
        Cli("one shell command line, e.g. `make test 2>&1 | tail`", positional=True),
    ]
    timeout_s: Annotated[
        int,
        Field(ge=1, le=MAX_TIMEOUT_S),
        Cli("seconds; then the command's process group is killed", flag="--timeout", short="-t"),
    ] = 120
    budget_tokens: Budget = 2000


def check_command(app: App, command: object) -> str:
    """The command, validated and not refused; else :class:`ToolInputError` (nothing runs)."""
    from ctx_tree_mcp.wire.denylist import refusal

    if not isinstance(command, str) or not command.strip():
        raise ToolInputError("command", "give a shell command, e.g. 'pytest -q'")
    if "\x00" in command:
        raise ToolInputError("command", "contains a NUL byte")
    reason = refusal(command, app.config.data["bash"]["deny"])
    if reason:
        raise ToolInputError("command", f"refused before running: {reason}")
    from ctx_tree_mcp.policy.secretfiles import secret_file_read

    secret = secret_file_read(command, app.policy, app.root)
    if secret is not None:
        raise ToolInputError(
            "command",
            f"refused before running: it prints {secret!r}, which matches the secret-file "
            "denylist (docs/security.md); secret files are never read",
        )
    _check_host_rules(app, command)
    return command


#: How long the hook's record that the host asked the user about a command stays good
#: (seconds): the host's prompt may wait for the user a while.
ASK_TICKET_S = 600


def _check_host_rules(app: App, command: str) -> None:
    """Apply the host's own ``Bash(...)`` permission rules (docs/security.md): a deny refuses
    naming the rule and its file; an ask runs only when ctx-tree's PreToolUse hook recorded
    that the host asked the user about this very command (single use, ``ASK_TICKET_S``);
    else it is refused with what to do. Raises :class:`ToolInputError`; nothing runs."""
    from ctx_tree_mcp.wire import permissions

    verdict = permissions.check(command, permissions.load_rules(app.root))
    if verdict is None:
        return
    if verdict.decision == "deny":
        raise ToolInputError(
            "command",
            f"refused before running: {verdict.sentence()} (the host's permission rules); "
            "it is not run by ctx-tree either",
        )
    if _take_ask_ticket(app, command):
        return
    raise ToolInputError(
        "command",
        f"not run: {verdict.sentence()}, and the host did not ask you about this call "
        "(ctx-tree's PreToolUse hook asks through the host's prompt: install the plugin's "
        "hooks, `ctx-tree install claude`); run it with the host's own shell tool instead",
    )


def _take_ask_ticket(app: App, command: str) -> bool:
    """Whether the hook recorded an ask for ``command`` within ``ASK_TICKET_S``; the record is
    removed either way (one ask, one run)."""
    import os
    import time

    from ctx_tree_store import ctx_tree_home

    from ctx_tree_mcp.app import spool_dir
    from ctx_tree_mcp.wire.permissions import ticket_name

    name: str = ticket_name(command)
    path = spool_dir(app.home or ctx_tree_home(), app.root) / "asked" / name
    try:
        age = time.time() - path.stat().st_mtime
        os.unlink(path)
    except OSError:
        return False
    return 0 <= age <= ASK_TICKET_S


def bash(app: App, command: str, timeout_s: int = 120, budget_tokens: int = 2000) -> str:
    """Handle ``ctx_tree_bash`` (blocking); returns the answer text.

    Raises ``ToolInputError`` for an empty, NUL-holding or refused command (see
    ``docs/security.md``). ``timeout_s`` (1..600 seconds) and ``budget_tokens`` come validated
    by the input model (``run_tool``).
    """
    command = check_command(app, command)
    return _answer(app, command, _run(app, command, timeout_s, None), budget_tokens).text


async def bash_async(
    app: App, command: str, timeout_s: int = 120, budget_tokens: int = 2000
) -> Reply:
    """:func:`bash` for the event loop (the registered handler): the command runs in a
    worker thread; cancelling the awaiting task ends the command's process group. Returns
    the answer and the command's exit status (``engines.shell.run.exit_status``: the CLI
    exits with it)."""
    command = check_command(app, command)
    cancel = threading.Event()
    try:
        result = await asyncio.to_thread(_run, app, command, timeout_s, cancel)
    except asyncio.CancelledError:
        cancel.set()
        raise
    return _answer(app, command, result, budget_tokens)


def _run(app: App, command: str, timeout: int, cancel: threading.Event | None) -> RunResult:
    """Run ``command`` under the host's sandbox when its settings turn it on
    (:mod:`.sandbox`); the result's ``note`` says when it ran outside one."""
    import dataclasses

    from ctx_tree_store import ctx_tree_home

    from ctx_tree_mcp.app import spool_dir
    from ctx_tree_mcp.engines.shell.sandbox import (
        SandboxRefused,
        never_ran,
        plan_for,
        unavailable,
    )

    private = spool_dir(app.home or ctx_tree_home(), app.root) / "sandbox"
    try:
        plan = plan_for(app.root, command, private)
    except SandboxRefused as exc:
        raise ToolInputError("command", f"refused before running: {exc}") from None
    result = _run_plan(app, plan, timeout, cancel)
    if plan.box is not None and not (result.timed_out or result.cancelled):
        head, why = never_ran(plan, result.head)
        if why is None:
            result = dataclasses.replace(
                result, head=head, total_bytes=result.total_bytes - len(plan.started or b"")
            )
        else:  # the runtime failed before the command started: nothing ran
            try:
                plan = unavailable(
                    plan.box, command, f"its runtime failed before the command started ({why})"
                )
            except SandboxRefused as exc:
                raise ToolInputError("command", f"not run: {exc}") from None
            result = _run_plan(app, plan, timeout, cancel)
    if plan.config is not None:  # the runtime's own helpers outlive the command a moment
        # (and nothing leaves its PID namespace: the sandbox ends with its first process)
        result = dataclasses.replace(result, stragglers=False, left_group=0)
    return dataclasses.replace(result, note=plan.note) if plan.note else result


def _run_plan(app: App, plan: Plan, timeout: int, cancel: threading.Event | None) -> RunResult:
    """Run ``plan``'s command line; its runtime settings file is removed after."""
    from ctx_tree_mcp.engines.shell.run import run_command

    try:
        return run_command(
            plan.command,
            app.root,
            timeout_s=timeout,
            keep_bytes=app.config.data["capture"]["maxBytes"],
            cancel=cancel,
        )
    except OSError as exc:
        raise ToolInputError("command", f"the shell could not be started: {exc}") from None
    finally:
        if plan.config is not None:
            plan.config.unlink(missing_ok=True)


def _answer(app: App, command: str, result: RunResult, budget: int) -> Reply:
    from ctx_tree_mcp.engines.shell.record import record_output
    from ctx_tree_mcp.engines.shell.run import output_text

    text, binary = output_text(result, raw=app.config.data["capture"]["rawTerminal"])
    meta: MonitorMeta = {
        "timed_out": result.timed_out,
        "signal": result.signal,
        "shell": result.shell,
        "binary": binary,
    }
    # The command has run: on a full disk its output is kept in memory and answered (the
    # answer says nothing was stored), never lost to a "call again" that would run it twice.
    rec = app.stores.or_memory(
        lambda: record_output(
            app,
            text,
            command=command,
            cwd=str(app.root),
            source=SOURCE,
            exit_code=result.exit_code,
            duration_ms=result.duration_ms,
            # the raw size counts as cut only when bytes were dropped: colours and redraws
            # the terminal model removed are not output lost
            original_bytes=result.total_bytes if result.dropped_bytes else None,
            metadata=meta,
        )
    )
    answer = _render(app, result, rec, binary, budget)
    from ctx_tree_mcp.engines.shell.run import exit_status

    app.count(
        "bash",
        tokens_served=estimate_tokens(answer),
        tokens_source=tokens_for_chars(result.total_bytes),
    )
    return Reply(answer, exit_status(result))


def status_line(
    result: RunResult, lines: int, whole_bytes: int | None = None, *, brief: bool = False
) -> str:
    """``exit 0 · 12 lines · 0.3 s``, or ``killed at the timeout (timeout_s); output before it
    below · …`` (``--timeout`` on the CLI; ``no output before it`` when ``lines`` is 0). With ``whole_bytes`` (the store kept part of the output: ``lines`` are
    those kept), ``exit 0 · 1,988,895 bytes, 15,185 lines of it kept · 0.3 s``. ``brief``
    (the whole output follows): how it ended alone, ``exit 1``."""
    seconds = f"{result.duration_ms / 1000:.1f} s"
    size = f"{lines:,} line{'s' if lines != 1 else ''}"
    if whole_bytes is not None:
        size = f"{whole_bytes:,} bytes, {size} of it kept"
    before = "output before it below" if lines else "no output before it"
    if result.timed_out:
        limit = argument_name("ctx_tree_bash", "timeout_s")
        how = f"killed at the timeout ({limit}); {before}"
    elif result.cancelled:
        how = f"cancelled by the client; {before}"
    elif result.signal is not None:
        how = f"ended by signal {_signal_name(result.signal)}"
    else:
        how = f"exit {result.exit_code}"
    if brief:
        return how + "\n"
    return f"{how} · {size} · {seconds}\n"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _offset(lines: list[str], index: int) -> int:
    """Character offset of line ``index`` (0-based) in the stored text."""
    return sum(len(line) + 1 for line in lines[:index])


def succeeded(result: RunResult) -> bool:
    """Whether the command ended by itself with exit code 0 (no timeout, cancel or signal)."""
    return not (result.timed_out or result.cancelled or result.signal is not None) and (
        result.exit_code == 0
    )


def _render(app: App, result: RunResult, rec: Recorded, binary: bool, budget: int) -> str:
    """The answer, fitted by :func:`~ctx_tree_mcp.answers.render.fitted_answer` (one rule for every
    tool, docs/tools.md "Footer and manifest"): the whole output as printed when it fits (the
    status line only when the command did not succeed, no node id: the output is stored and
    ``ctx_tree_recent`` names it), else the status line, the digest and the manifest."""
    # Imported on first use: compiling the digest's patterns costs ~20-40 ms at start-up.
    from ctx_tree_mcp.engines.shell.digest import render_lines, scan, select_lines

    content = rec.content
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head = status_line(result, len(lines), rec.original_bytes if rec.truncated else None)
    if result.note:
        head += f"note: {result.note}\n"
    notes = _notes(result, rec, binary, int(app.config.data["capture"]["maxBytes"]))
    whole = None
    if not rec.truncated:  # the whole output, as printed, when it fits
        # the output shows its own size: a failed command's complete answer says only how it ended
        whole = "" if succeeded(result) else status_line(result, len(lines), brief=True)
        whole += content  # as printed: a last line without its end stays so, unless a note follows
        if (notes or result.note) and content and not content.endswith("\n"):
            whole += "\n"
    found = None

    def body(room: int) -> tuple[str, list[tuple[int, int]] | None]:
        nonlocal found
        if (
            whole is not None
            and len(whole) <= MAX_CHARS_PER_TOKEN * (room + 1)
            and estimate_tokens(whole) <= room
        ):
            return whole, None
        found = found or scan(lines)
        chosen = select_lines(found, max(room - estimate_tokens(head), 0))
        text, gaps = render_lines(lines, chosen.shown, terse=True)
        return head + text, gaps

    def manifest(gaps: list[tuple[int, int]] | None) -> Manifest:
        if app.store.in_file(rec.node_id):
            m = Manifest(f"node {rec.node_id}")  # the status line counts the lines
        else:  # a read-only or damaged store: no node a later call could get
            m = Manifest("output not stored")
        if gaps is None:  # all of it: only what must be said beside it
            m.complete = True
            if result.note:
                m.add("note", result.note)
        for note in notes:
            m.add("note", note)
        if gaps:
            runs = ", ".join(f"{a}-{b}" for a, b in gaps[:6])
            more = f" (+{len(gaps) - 6} more runs)" if len(gaps) > 6 else ""
            if budget < SMALL_BUDGET:  # no room for the lines either side: say which they are
                m.add("omitted", f"lines {runs}{more}", optional=True)
            get = get_call(app, rec.node_id, _offset(lines, gaps[0][0] - 1))
            # under SMALL_BUDGET the head's node id is the pointer: the call would crowd out
            # the exit code and the run's result
            small = budget < SMALL_BUDGET
            if get:
                m.add("next", get, optional=small)
            else:
                m.add("more", f"the whole output is {NOT_STORED}", optional=small)
        return m

    return fitted_answer(
        budget, body, manifest, tokens_for_chars(rec.original_bytes), "output", terse=True
    )


def _notes(result: RunResult, rec: Recorded, binary: bool, max_bytes: int) -> list[str]:
    """What an answer must say beside the output: escaped or ended processes, binary output,
    what the store kept of it."""
    notes = []
    if result.escaped:
        notes.append(
            "a process that left the command's group and cleared its environment still "
            "holds its output; it keeps running and what it prints later is not captured"
        )
    if result.left_group:
        many = result.left_group != 1
        notes.append(
            f"{result.left_group} process{'es' * many} the command started outside its "
            f"process group (setsid) {'were' if many else 'was'} ended with it"
        )
    elif result.stragglers:
        notes.append("processes the command left in the background were ended")
    if binary:
        notes.append("the output looks binary; undecodable bytes are shown as �")
    from ctx_tree_mcp.engines.shell.run import wanted_a_person

    if wanted_a_person(rec.content):
        notes.append(
            "the command asked for an editor or a prompt; none runs here (no terminal): pass "
            "the text on the command line (git commit -m MESSAGE, --no-edit)"
        )
    if rec.truncated:
        notes.append(
            f"{over_the_capture_cap(max_bytes)}: it was {rec.original_bytes:,} bytes, of "
            "which the store keeps the first and last parts"
        )
    return notes


SPEC = ToolSpec(
    name="ctx_tree_bash",
    description=DESCRIPTION,
    args=Args,
    handler=bash_async,
    example={"command": "pytest -q", "timeout_s": 300, "budget_tokens": 1500},
    # Runs any command: hosts should ask the user, as they do for their own shell tool.
    # openWorldHint is left out: its MCP default (true) is right, and tools/list is paid
    # on every turn.
    annotations={"readOnlyHint": False, "destructiveHint": True},
    help="run a shell command in the project root; full output stored, a digest shown",
)
