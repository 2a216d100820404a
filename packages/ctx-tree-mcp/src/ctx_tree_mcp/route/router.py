"""The PreToolUse decision: rewrite the host's shell command to be answered by ctx-tree, or
leave it alone (docs/routing.md).

The host calls the server's hidden ``ctx_tree_route`` tool from its PreToolUse hook (Claude
Code's ``mcp_tool`` hook: no process is started) with the hook's payload. :meth:`Router.decide`
answers the hook's JSON: nothing (the command runs as it is), or the rewritten command with
``permissionDecision: allow``, given only when the host would have run the original without
asking (``wire.route.host_allows``) and no deny or ask rule of the host matches the original
or the rewritten command. The host checks its deny and ask rules again on the rewritten
command, where the original is a stage of its own.

Routing is on unless ``route.enabled`` is false; ``route.exclude`` lists commands (their first
words) never routed; ``route.budget`` (reads, greps) and ``route.runBudget`` (runs) are the
answers' budgets in tokens.

A ``Read`` of a big file without a range (:meth:`Router.decide_read`) gets a range instead: the
file's first lines, with its outline and its end as the hook's additional context; the host's
own rules then judge the same file, unchanged.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.route.answers import Routed
from ctx_tree_mcp.wire import route

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App

log = logging.getLogger(__name__)

#: The hidden tool the hooks call (not in ``tools/list``: the model never sees it).
TOOL = "ctx_tree_route"
#: A rewritten command whose output has not come within this many seconds is forgotten.
PENDING_S = 3600.0
PENDING_MAX = 1000
#: A read whose file is at most this many bytes per token of the budget runs as it is (it
#: fits): no client is started for it.
SMALL_BYTES_PER_TOKEN = 2
#: Files read whole to estimate a range's tokens at most (larger ones are routed).
ESTIMATE_MAX_BYTES = 4 * 1024 * 1024
REASON = "ctx-tree answers it (docs/routing.md)"
#: The smallest answer budget (tokens): a smaller ``route.budget``/``runBudget`` counts as it.
MIN_BUDGET = 200
#: Seconds a host's call the hook sees holds the project index (``App.calls``): the command
#: left alone runs and the host takes its output meanwhile, unseen by ctx-tree.
HOST_CALL_S = 1.0
#: Seconds at most a routed command holds it, until its answer is out (``Channel``).
ROUTED_HOLD_S = 60.0


def client_path() -> str:
    """The client script (``wire/route_client.py``) beside the rules."""
    return os.path.join(os.path.dirname(os.path.abspath(route.__file__)), route.CLIENT_NAME)


def interpreter() -> str:
    """A real Python interpreter to run the client with: this process's own, symbolic links
    resolved (a version manager's shim or a virtual environment's launcher costs a start-up
    of its own)."""
    return os.path.realpath(sys.executable)


class Router:
    """The routing state of one server: the commands rewritten and waiting for their output
    (by token), the channel's socket (set once it listens), the host's command line rules."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.pending: dict[str, Routed] = {}
        self.socket_path: str | None = None
        self._cli_rules: list[tuple[str, str]] | None = None
        self._answered: dict[str, str] = {}

    # --- the decision ---------------------------------------------------------------------

    def decide(self, args: Mapping[str, Any]) -> str:
        """The PreToolUse hook's answer (JSON text; ``""``: leave the call alone) for the hook
        payload fields in ``args``: ``tool`` (the tool's name), ``input`` (its input, a JSON
        object or its text), ``cwd``, ``mode`` (the permission mode), ``session``, ``id`` (the
        tool call's id: the host may ask twice for one call, when two of the hook's ``if``
        conditions match it, and gets the same answer). Never raises: anything unexpected
        leaves the call alone (logged)."""
        call_id = str(args.get("id") or "")
        self._hold(call_id)
        if call_id and call_id in self._answered:
            return self._answered[call_id]
        try:
            out = self._decide(args)
        except Exception:
            log.exception("routing decision failed; the command runs as it is")
            out = None
        text = "" if out is None else json.dumps(out)
        if call_id:
            self._answered[call_id] = text
            while len(self._answered) > PENDING_MAX:
                del self._answered[next(iter(self._answered))]
        return text

    def _decide(self, args: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.socket_path is None or args.get("tool") != "Bash":
            return None
        tool_input = args.get("input")
        if isinstance(tool_input, str):
            tool_input = json.loads(tool_input) if tool_input.strip() else {}
        if not isinstance(tool_input, dict):
            return None
        command = tool_input.get("command")
        if not isinstance(command, str) or tool_input.get("run_in_background"):
            return None
        settings = self.app.config.data["route"]
        if not settings["enabled"] or _excluded(command, settings["exclude"]):
            return None
        cwd = args.get("cwd") if isinstance(args.get("cwd"), str) else str(self.app.root)
        cwd = cwd or str(self.app.root)
        try:
            shape = route.classify(command, cwd)
        except route.Skip:
            return None
        budget = max(
            MIN_BUDGET, int(settings["runBudget" if shape.kind == route.RUN else "budget"])
        )
        if not self._host_allows(command, shape, cwd, str(args.get("mode") or "default")):
            return None
        where = route.workdir(shape, cwd)
        if shape.kind == route.READ and self._fits(shape, where, budget):
            return None
        if shape.kind == route.GREP and _grep_fits(shape, where, budget):
            return None
        token = os.urandom(5).hex()
        client = [interpreter(), "-I", "-S", client_path(), shape.kind, str(budget)]
        rewritten = route.rewrite(command, shape, [*client, self.socket_path, token])
        if self._rules_say(rewritten):  # a rule on the client or on `set`: leave it
            return None
        self._forget_old()
        self.app.calls.hold(token, ROUTED_HOLD_S)  # released once its answer is out
        self.pending[token] = Routed(
            shape, command, where, str(args.get("session") or ""), time.monotonic()
        )
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": REASON,
                "updatedInput": {**tool_input, "command": rewritten},
            }
        }

    def _hold(self, call_id: str) -> None:
        """A host's call starts: the project index waits (:data:`HOST_CALL_S`)."""
        self.app.calls.hold("host:" + (call_id or os.urandom(5).hex()), HOST_CALL_S)

    def _host_allows(self, command: str, shape: route.Shape, cwd: str, mode: str) -> bool:
        """No deny or ask rule of the host matches, and the host would run it unasked."""
        from ctx_tree_mcp.wire import denylist

        permissions = _permissions()

        rules = self._rules()
        if permissions.check(command, rules) is not None:
            return False
        inside = route.paths_inside(shape, cwd, str(self.app.root))
        if shape.cd is not None and not inside:  # the host blocks a cd out of the project
            return False
        trusted = route.project_trusted(str(self.app.root))
        project = {
            str(self.app.root / ".claude" / n) for n in ("settings.json", "settings.local.json")
        }
        allow = [
            r.pattern
            for r in rules
            if r.decision == "allow" and (trusted or r.source not in project)
        ]
        simple = [" ".join(words) for words in denylist.simple_commands(command)]
        if shape.cd is not None:  # the host runs a cd inside the project unasked
            simple = simple[1:]
        allowed, _why = route.host_allows(shape, simple, mode, allow, permissions.matches, inside)
        return allowed

    def _rules_say(self, command: str) -> bool:
        return _permissions().check(command, self._rules()) is not None

    def _rules(self) -> list[Any]:
        """The host's ``Bash`` rules: its settings files, then its command line's
        ``--allowedTools``/``--disallowedTools`` (read once)."""
        permissions = _permissions()
        if self._cli_rules is None:
            argv = permissions.ancestor_argv(("claude", "cli.js")) or []
            self._cli_rules = route.cli_rules(argv)
        rules: list[Any] = permissions.load_rules(self.app.root)
        for decision, pattern in self._cli_rules:
            rules.append(permissions.Rule(decision, pattern, f"Bash({pattern})", "command line"))
        return rules

    def _fits(self, shape: route.Shape, cwd: str, budget: int) -> bool:
        """True when a read's output surely fits ``budget`` (it then runs as it is): a small
        file, or a range whose lines the estimator counts within it. A path ctx-tree does
        not read (secret, outside the project) also runs as it is."""
        from ctx_tree_mcp.answers.budget import estimate_tokens
        from ctx_tree_mcp.errors import ToolInputError

        path = os.path.realpath(os.path.join(cwd, shape.paths[0]))
        try:
            _resolved, st = self.app.policy.resolve_file(path)
        except ToolInputError:
            return True
        if st.st_size <= SMALL_BYTES_PER_TOKEN * budget:
            return True
        if st.st_size > ESTIMATE_MAX_BYTES:
            return False
        try:
            with open(path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").split("\n")
        except OSError:
            return True
        if lines and lines[-1] == "":
            lines.pop()
        if shape.last is not None:
            lines = lines[-shape.last :]
        elif shape.start is not None:
            lines = lines[shape.start - 1 : shape.end]
        text = "\n".join(lines)
        if shape.numbered:
            text = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, 1))
        return estimate_tokens(text) <= budget

    def _forget_old(self) -> None:
        now = time.monotonic()
        for token in [t for t, r in self.pending.items() if now - r.started > PENDING_S]:
            del self.pending[token]
        while len(self.pending) >= PENDING_MAX:
            del self.pending[next(iter(self.pending))]

    def decide_read(self, args: Mapping[str, Any]) -> str:
        """The hook's answer for a ``Read`` (JSON text, ``""``: leave it): a file over
        ``route.budget`` tokens read without ``offset``/``limit`` is read from line 1 to the
        last line of the top that ``ctx_tree_read``'s outline answer shows, and the rest of
        that answer (the outline, the end of the file, what is left out and the command that
        shows it) comes as the hook's ``additionalContext``. Uses the store: call it on the
        thread that owns this router's App. Never raises."""
        self._hold(str(args.get("id") or ""))
        try:
            out = self._decide_read(args)
        except Exception:
            log.exception("routing decision for Read failed; it runs as it is")
            return ""
        return "" if out is None else json.dumps(out)

    def _decide_read(self, args: Mapping[str, Any]) -> dict[str, Any] | None:
        from ctx_tree_mcp.answers.budget import estimate_tokens
        from ctx_tree_mcp.answers.surface import shell_surface
        from ctx_tree_mcp.engines.files.filecache import load
        from ctx_tree_mcp.errors import ToolInputError
        from ctx_tree_mcp.tools.read_outline import outline_answer
        from ctx_tree_mcp.tools.read_view import lines_of
        from ctx_tree_mcp.tools.registry import BY_NAME

        tool_input = args.get("input")
        if isinstance(tool_input, str):
            tool_input = json.loads(tool_input) if tool_input.strip() else {}
        if not isinstance(tool_input, dict):
            return None
        settings = self.app.config.data["route"]
        path = tool_input.get("file_path")
        if (
            not settings["enabled"]
            or not isinstance(path, str)
            or any(tool_input.get(k) is not None for k in ("offset", "limit", "pages"))
        ):
            return None
        budget = max(MIN_BUDGET, int(settings["budget"]))
        try:
            resolved, st = self.app.policy.resolve_file(path)
        except ToolInputError:
            return None
        if st.st_size <= SMALL_BYTES_PER_TOKEN * budget or st.st_size > ESTIMATE_MAX_BYTES:
            return None
        view = load(self.app, resolved, st)
        if view.root.truncated or not view.outline:
            return None
        lines = lines_of(view, 1, view.total_lines)
        numbered = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, 1))
        if estimate_tokens(numbered) <= budget:
            return None
        with shell_surface(BY_NAME):
            text = outline_answer(view, budget, numbered=True)
        top = re.search(r"(?m)^## lines 1-(\d+)\n", text)
        if top is None:
            return None
        end = re.search(r"(?m)^(## |-- ctx-tree)", text[top.end() :])
        rest = text[: top.start()] + (text[top.end() + end.start() :] if end else "")
        limit = int(top.group(1))
        context = f"ctx-tree: the Read shows lines 1-{limit}; the outline and the end:\n{rest}"
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "updatedInput": {**tool_input, "offset": 1, "limit": limit},
                "additionalContext": context,
            }
        }

    # --- the answer -----------------------------------------------------------------------

    def take(self, token: str) -> Routed | None:
        """The waiting command ``token`` names (once), or None."""
        return self.pending.pop(token, None)

    def answered(self, token: str) -> None:
        """The routed command ``token``'s answer is out: it no longer holds the index."""
        self.app.calls.release(token)


def _grep_fits(shape: route.Shape, cwd: str, budget: int) -> bool:
    """True when a grep surely prints no more than ``budget`` tokens' worth: it names only
    files (no directory, nothing searched by default), and their lines, each with its path
    and number, come to at most :data:`SMALL_BYTES_PER_TOKEN` bytes a token of it."""
    if not shape.paths:
        return False
    room = SMALL_BYTES_PER_TOKEN * budget
    total = 0
    for path in shape.paths:
        full = os.path.join(cwd, path)
        try:
            if not os.path.isfile(full) or os.path.getsize(full) > room:
                return False
            with open(full, "rb") as f:
                data = f.read()
        except OSError:
            return False
        total += len(data) + data.count(b"\n") * (len(path) + 8)
        if total > room:
            return False
    return True


def _permissions() -> Any:
    """The host's rules (``wire/permissions.py``: standard library, untyped for Python 3.8)."""
    from ctx_tree_mcp.wire import permissions

    return permissions


def _excluded(command: str, exclude: list[str]) -> bool:
    """True when the command's words start with an entry's words (``route.exclude``)."""
    words = command.split()
    for entry in exclude:
        want = entry.split()
        if want and words[: len(want)] == want:
            return True
    return False
