"""The host's own permission rules, applied to a ``ctx_tree_bash`` command before it runs.

Claude Code keeps ``Bash(...)`` rules in ``permissions.deny``, ``permissions.ask`` and
``permissions.allow`` of its settings files, read in its own precedence (managed, the
``--settings`` of the running ``claude``, local, project, user: :func:`settings_files`). A
command line is split into simple commands as the host splits it (at ``&&``, ``||``, ``;``,
``|``, ``&``, newlines, subshells and substitutions; quotes respected), and each one is held
against the rules in the host's order: **deny, then ask, then allow**; the first match decides
and a broad deny has no exceptions. A deny anywhere in the line refuses the whole line; an ask
anywhere asks. ``allow`` never overrides an ask or a deny, so it changes nothing here: a
command no rule covers runs as before.

Rule forms (as the host reads them): ``Bash`` and ``Bash(*)`` match every command;
``Bash(npm run test:*)`` matches ``npm run test`` and what follows it after a space (a prefix
ending in punctuation, ``curl http://x/:*``, goes on at once);
``Bash(git * main)`` matches with ``*`` standing for any text, and a single trailing `` *``
is optional (``Bash(ls *)`` matches ``ls`` and ``ls -la`` but not ``lsof``); anything else
matches the simple command exactly. Leading ``NAME=value`` assignments and wrappers (``sudo``,
``timeout 5``, ``nice``, ``nohup``, ``env X=1``, ``xargs``) are looked through, and so are
``sh -c '…'`` and ``eval`` strings, so a wrapper does not hide a denied command, and a program
named by its path is also matched by its base name (``/usr/bin/curl`` against ``curl:*``). Words are
compared as the shell splits them, joined by single spaces. See ``docs/security.md``.

Standard library only, Python 3.8+: the hook imports it (docs/capture.md).
"""

from __future__ import annotations

import json
import os
import re
import sys

from ctx_tree_mcp.wire.denylist import (
    SHELLS,
    shell_script,
    simple_commands,
    strip_prefix,
    unwrap_once,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

__all__ = ["Rule", "Verdict", "check", "load_rules", "matches", "settings_files"]

#: Managed settings of Claude Code per platform (it also reads a ``managed-settings.d/``
#: drop-in directory beside the file).
MANAGED = {
    "linux": "/etc/claude-code/managed-settings.json",
    "darwin": "/Library/Application Support/ClaudeCode/managed-settings.json",
    "win32": "C:\\Program Files\\ClaudeCode\\managed-settings.json",
}
DECISIONS = ("deny", "ask", "allow")
_MAX_DEPTH = 4
_MAX_ANCESTORS = 8


class Rule:
    """One ``Bash`` rule: ``decision`` (deny, ask or allow), ``pattern`` (the text inside
    ``Bash(...)``; ``*`` for a bare ``Bash``), ``text`` (the rule as written) and ``source``
    (the settings file it came from, or ``--settings``)."""

    __slots__ = ("decision", "pattern", "source", "text")

    def __init__(self, decision: str, pattern: str, text: str, source: str) -> None:
        self.decision, self.pattern, self.text, self.source = decision, pattern, text, source

    def __repr__(self) -> str:
        return "Rule(%s %s from %s)" % (self.decision, self.text, self.source)


class Verdict:
    """What the host's rules say of a command line: ``decision`` is ``"deny"`` or ``"ask"``
    (a matching allow, or no rule, gives no verdict at all), ``rule`` the first rule that
    decided, ``command`` the simple command it matched."""

    __slots__ = ("command", "decision", "rule")

    def __init__(self, decision: str, rule: Rule, command: str) -> None:
        self.decision, self.rule, self.command = decision, rule, command

    def sentence(self) -> str:
        """``` `git push origin` matches ask rule Bash(git push:*) in /p/.claude/settings.json ```."""
        return "`%s` matches %s rule %s in %s" % (
            self.command,
            self.decision,
            self.rule.text,
            self.rule.source,
        )


# --- where the rules are --------------------------------------------------------------------


def settings_files(
    root: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    managed: str | None = None,
) -> list[tuple[str, str]]:
    """Claude Code's settings files for project ``root``, highest precedence first, as
    ``(scope, path_or_json)`` pairs: ``managed`` (the platform's managed-settings file, then
    its ``managed-settings.d/*.json`` in name order), ``flag`` (the ``--settings`` of a
    ``claude`` process among this process's ancestors, Linux only: a path or inline JSON),
    ``local`` (``.claude/settings.local.json``), ``project`` (``.claude/settings.json``) and
    ``user`` (``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``). Files
    that do not exist are listed too; :func:`load_rules` skips them. ``managed`` overrides the
    platform's managed path (tests)."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    out: list[tuple[str, str]] = []
    managed = managed or MANAGED.get(platform)
    if managed:
        out.append(("managed", managed))
        drop_in = os.path.join(os.path.dirname(managed), "managed-settings.d")
        try:
            names = sorted(n for n in os.listdir(drop_in) if n.endswith(".json"))
        except OSError:
            names = []
        out.extend(("managed", os.path.join(drop_in, n)) for n in names)
    flag = _flag_settings() if platform.startswith("linux") else None
    if flag:
        out.append(("flag", flag))
    where = os.fspath(root)
    out.append(("local", os.path.join(where, ".claude", "settings.local.json")))
    out.append(("project", os.path.join(where, ".claude", "settings.json")))
    config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        os.path.expanduser(env.get("HOME") or "~"), ".claude"
    )
    out.append(("user", os.path.join(config_dir, "settings.json")))
    return out


def ancestor_argv(names: Sequence[str]) -> list[str] | None:
    """The argv of the nearest ancestor of this process whose program (one of its first three
    words, by base name) is in ``names``, or None. Linux only: reads ``/proc/<pid>/stat`` and
    ``cmdline``; any failure is None."""
    pid = os.getpid()
    for _ in range(_MAX_ANCESTORS):
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                stat = f.read().decode("utf-8", "replace")
            pid = int(stat.rsplit(")", 1)[1].split()[1])
            if pid <= 1:
                return None
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().decode("utf-8", "surrogateescape").split("\0")
        except (OSError, ValueError, IndexError):
            return None
        if any(os.path.basename(a) in names for a in argv[:3]):
            return argv
    return None


def _flag_settings() -> str | None:
    """The ``--settings`` value of the nearest ``claude`` ancestor (it started this server or
    the hook), or None."""
    argv = ancestor_argv(("claude", "cli.js"))
    if argv is None or (
        not any(os.path.basename(a) == "claude" for a in argv[:3])
        and not any(a.endswith("/claude-code/cli.js") for a in argv[:3])
    ):
        return None
    for i, arg in enumerate(argv):
        if arg == "--settings" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--settings="):
            return arg.split("=", 1)[1]
    return None


def load_rules(
    root: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    managed: str | None = None,
) -> list[Rule]:
    """Every ``Bash`` rule of the settings files (:func:`settings_files`), in precedence order.

    Returns a list of :class:`Rule`. A missing, unreadable or malformed file, and a rule for
    another tool, are skipped, as the host skips them. Relative ``--settings`` paths are not
    resolved (the host's working directory is unknown) and count as missing."""
    rules: list[Rule] = []
    for scope, where in settings_files(root, env, platform, managed):
        data = read_settings(scope, where)
        permissions = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(permissions, dict):
            continue
        source = "--settings" if scope == "flag" else where
        for decision in DECISIONS:
            entries = permissions.get(decision)
            if not isinstance(entries, list):
                continue
            for entry in entries:
                pattern = _bash_pattern(entry)
                if pattern is not None:
                    rules.append(Rule(decision, pattern, entry, source))
    return rules


def read_settings(scope: str, where: str) -> Any:
    """The JSON of one settings file (``where``: its path; for ``flag``, maybe the JSON
    itself), or None when it cannot be read or parsed."""
    text = where
    if not (scope == "flag" and where.lstrip().startswith("{")):
        if not os.path.isabs(where):
            return None
        try:
            with open(where, "rb") as f:
                text = f.read(1 << 20).decode("utf-8", "replace")
        except OSError:
            return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _bash_pattern(entry: object) -> str | None:
    """The pattern of a ``Bash`` / ``Bash(...)`` rule; None for other tools."""
    if not isinstance(entry, str):
        return None
    entry = entry.strip()
    if entry == "Bash":
        return "*"
    if entry.startswith("Bash(") and entry.endswith(")"):
        inner = entry[5:-1].strip()
        return inner or "*"
    return None


# --- matching -------------------------------------------------------------------------------


def matches(pattern: str, command: str) -> bool:
    """Whether the rule pattern (the text inside ``Bash(...)``) matches the simple command
    ``command`` (its words joined by single spaces), with the host's semantics (module doc)."""
    pattern = " ".join(pattern.split())
    if pattern in ("*", ""):
        return True
    if pattern.endswith(":*"):
        prefix = pattern[:-2].rstrip()
        if not command.startswith(prefix):
            return False
        rest = command[len(prefix) :]
        # a word boundary: `npm run test:*` is not `npm run testing`; `http://x/:*` goes on
        return not rest or rest[0] == " " or not (prefix[-1:].isalnum() or prefix[-1:] == "_")
    if "*" in pattern:
        parts = pattern.split("*")
        regex = ".*".join(re.escape(p) for p in parts)
        if pattern.count("*") == 1 and pattern.endswith(" *"):
            regex = re.escape(pattern[:-2]) + "(?: .*)?"
        return re.fullmatch(regex, command, re.DOTALL) is not None
    return command == pattern


def _forms(words: Sequence[str], depth: int) -> Iterator[str]:
    """Each simple command a word list runs, as text: itself, then what its wrappers run
    (``sudo rm -rf x`` gives ``sudo rm -rf x`` and ``rm -rf x``), then the simple commands of
    a ``sh -c`` or ``eval`` string."""
    current = strip_prefix(words)
    while current:
        yield " ".join(current)
        name = os.path.basename(current[0])
        if name != current[0]:  # `/usr/bin/curl x` is held against `Bash(curl:*)` too
            yield " ".join([name, *current[1:]])
        if name in SHELLS or name == "eval":
            script = " ".join(current[1:]) if name == "eval" else shell_script(current[1:])
            if script is not None and depth < _MAX_DEPTH:
                for inner in simple_commands(script):
                    yield from _forms(inner, depth + 1)
            return
        unwrapped = unwrap_once(current)
        if not unwrapped:
            return
        current = unwrapped


def check(command: str, rules: Sequence[Rule]) -> Verdict | None:
    """The verdict of ``rules`` (:func:`load_rules`) on the command line ``command``: a
    :class:`Verdict` for a deny or an ask, None when no deny or ask rule matches (the
    command runs as it would without rules). A deny rule that matches any simple command wins
    over every ask."""
    if not rules:
        return None
    forms = [form for words in simple_commands(command) for form in _forms(words, 0)]
    for decision in ("deny", "ask"):
        for rule in rules:
            if rule.decision != decision:
                continue
            for form in forms:
                if matches(rule.pattern, form):
                    return Verdict(decision, rule, form)
    return None


def ticket_name(command: str) -> str:
    """The file name of the hook's record that the host asked the user about ``command`` (the
    hex sha256 of its UTF-8 bytes): the server runs an asked command only when it finds one."""
    import hashlib

    return hashlib.sha256(command.encode("utf-8", "surrogateescape")).hexdigest()
