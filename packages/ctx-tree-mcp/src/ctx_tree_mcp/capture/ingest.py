"""Spool → store: the events the plugin's hooks captured become nodes (docs/capture.md).

Each event is claimed (renamed into ``cur/``), checked again (path policy for reads and greps,
the command denylist of ``ctx_tree_bash`` for Bash), redacted again, stored in one transaction under its Claude Code
session node as ``pending`` (the filter walker promotes it), and its file deleted. An answer
``follows`` its prompt and is ``derived_from`` the outputs captured in its turn; a prompt
``follows`` the previous answer. A Read is
stored through ``ctx_tree_read``'s own file cache, so an unchanged file creates nothing and a
later ``ctx_tree_read`` is a cache hit.

Failures: a busy store (another writer past the busy timeout) gives the event back for the next
run; any other error drops that event with one log line, so one bad event or a full, read-only
or unopenable store never wedges the queue.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp import ending
from ctx_tree_mcp.app import spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_mcp.wire.denylist import refusal
from ctx_tree_mcp.wire.events import KINDS

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ctx_tree_schema import (
        Config,
        GrepMeta,
        Node,
        PromptMeta,
        ResponseMeta,
        SummaryMeta,
        WebChunkMeta,
    )
    from ctx_tree_store import Store

    from ctx_tree_mcp.app import App

log = logging.getLogger(__name__)

#: The capture walker's name in the coordinator (its lease is ``walker:capture``).
WALKER = "capture"
#: Which config switch (``capture.<key>``) governs each event kind (the event table's).
SWITCH = {kind.name: kind.switch for kind in KINDS}
_GREP_LINE = re.compile(r"^(.+?)[:-]\d+[:-]")
#: A grep output line without a line number: ``path:text``.
_GREP_PATH = re.compile(r"^([^:\n]+):")


@dataclass(slots=True)
class IngestReport:
    """What one ingest run did, counted in events."""

    stored: int = 0  # created nodes
    unchanged: int = 0  # the same content was already stored
    skipped: int = 0  # refused (secret or outside path, refused command, switched off, binary)
    dropped: int = 0  # unreadable event or store error (logged)
    busy: bool = False  # the store was busy: the rest waits for the next run
    stopped: bool = False
    unwritable: bool = False  # the store file cannot be written: every event waits

    def summary(self) -> str:
        """One line: how many events were stored, unchanged, skipped and dropped."""
        if self.unwritable:
            return "the store cannot be written: spooled events wait for it"
        if not (self.stored or self.unchanged or self.skipped or self.dropped or self.busy):
            return "nothing spooled"
        text = (
            f"{self.stored} stored, {self.unchanged} unchanged, {self.skipped} skipped, "
            f"{self.dropped} dropped"
        )
        return (
            text
            + (" — store busy, the rest waits" if self.busy else "")
            + (" — stopped early" if self.stopped else "")
        )


def _always() -> bool:
    return True


def ingest(
    app: App, *, keep_going: Callable[[], bool] = _always, limit: int = 2000
) -> IngestReport:
    """Ingest up to ``limit`` spooled events of ``app.root``, oldest first; returns the report.

    Writes ``state.json`` (counts for the SessionStart note) when anything was stored, or
    events were spooled and none exists yet; a project without hooks gets no spool directory. Never raises for an event's content; store errors other than busy are logged
    per event.
    """
    from ctx_tree_store import StoreFull, ctx_tree_home, is_busy

    home = app.home or ctx_tree_home()
    base = spool_dir(home, app.root)
    report = IngestReport()
    if not app.store.persistent and app.stores.not_storing is not None:
        report.unwritable = True  # an in-memory stand-in (App.store): stored, they would be lost
        return report
    spool.secure(base)
    spool.requeue_stale(base)
    names = spool.waiting(base)[:limit]
    sessions: set[str] = set()
    if names:
        spool.record_root(base, app.root)
    for name in names:
        if not keep_going() or ending.stopping():
            report.stopped = True
            break
        claimed = spool.claim(base, name)
        if claimed is None:
            continue
        event = spool.read_event(claimed)
        if event is None:
            log.warning("capture: spool file %s is not a readable event; deleted", name)
            report.dropped += 1
            spool.done(claimed)
            continue
        sessions.add(str(event.get("session_id") or "hooks"))
        try:
            outcome = ingest_event(app, event)
        except Exception as exc:  # one bad event never wedges the queue
            if is_busy(exc) or isinstance(exc, StoreFull):  # kept for a later run, not dropped
                spool.release(base, claimed)
                report.busy = True
                break
            log.warning(
                "capture: %s event dropped: %s: %s", event.get("kind"), type(exc).__name__, exc
            )
            report.dropped += 1
        else:
            setattr(report, outcome, getattr(report, outcome) + 1)
        spool.done(claimed)
    if report.stored or (names and not (base / "state.json").exists()):
        with contextlib.suppress(Exception):
            _write_state(app, base)
    if report.stored or report.unchanged:  # the resume digest the SessionStart hook injects
        # (resume.py); a read of an indexed file is 'unchanged' yet adds to the files read
        from ctx_tree_mcp.capture.resume import write_digest

        for key in sorted(sessions):
            with contextlib.suppress(Exception):
                write_digest(app.store, base, key)
    return report


def _spool_base(app: App) -> Path:
    from ctx_tree_store import ctx_tree_home

    return spool_dir(app.home or ctx_tree_home(), app.root)


def _write_state(app: App, base: Path) -> None:
    store = app.store
    counts: dict[str, int] = {}
    for (kind, status), (n, _chars) in store.counts().items():
        if status in ("live", "pending", "stale"):
            counts[kind] = counts.get(kind, 0) + n
    counts["file"] = store.file_root_count()
    counts.pop("file_chunk", None)
    newest = store.recent(limit=1)
    spool.write_state(base, counts, newest[0].created_at if newest else None)


# --- one event ----------------------------------------------------------------------------


def ingest_event(app: App, event: dict[str, Any]) -> str:
    """Store one spool event; returns ``"stored"``, ``"unchanged"`` or ``"skipped"``."""
    kind = event.get("kind")
    switch = SWITCH.get(str(kind))
    if switch is None or not app.config.get("capture", switch):
        return "skipped"
    session_app = app.with_session(str(event.get("session_id") or "hooks"))
    handler = _HANDLERS[str(kind)]
    return handler(session_app, event)


def _text(event: dict[str, Any], key: str = "text") -> str:
    value = event.get(key)
    return value if isinstance(value, str) else ""


def _title(text: str) -> str:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first[:80]


def _hash(*parts: object) -> str:
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()[:16]


def _store(
    app: App,
    kind: str,
    text: str,
    *,
    source_uri: str,
    metadata: Mapping[str, object],
    terms: str = "",
    event: Mapping[str, object] | None = None,
) -> tuple[str, str]:
    """Capture ``text`` (redacted and cut by :meth:`App.capture`); returns (outcome, node id).
    An ``event`` the hook cut at ``capture.maxBytes`` (its ``original_bytes``, UTF-8 bytes of
    the whole) is stored ``truncated=1`` with that size (docs/capture.md)."""
    from ctx_tree_schema import NodeKind

    from ctx_tree_mcp.wire.redact import redact_text

    text = redact_text(text)  # as App.capture will: the dedup check sees the stored form
    source_uri = redact_text(source_uri)
    before = app.store.find_live(source_uri, text)
    whole = _original_bytes(event)
    node_id = app.recorder.capture(
        NodeKind(kind),
        text,
        source_uri=source_uri,
        metadata=metadata,
        terms=terms,
        redacted=True,
        original_bytes=whole,
    )
    return ("unchanged" if before == node_id else "stored"), node_id


def _original_bytes(event: Mapping[str, object] | None) -> int | None:
    """The UTF-8 size of the whole text the hook cut (``original_bytes``, else an older
    hook's ``original_chars``), or None when it was not cut."""
    if event is None:
        return None
    for key in ("original_bytes", "original_chars"):
        value = event.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _latest(app: App, kind: str) -> Node | None:
    from ctx_tree_schema import Filters

    nodes = app.store.recent(
        limit=1, filters=Filters(session_id=app.recorder.session_node_id()), kind=kind
    )
    return nodes[0] if nodes else None


def _prompt(app: App, event: dict[str, Any]) -> str:
    from ctx_tree_schema import EdgeKind

    text = _text(event)
    if not text.strip():
        return "skipped"
    key = app.session_key
    pid = str(event.get("prompt_id") or event.get("at") or "")
    uri = f"prompt://{key}/{pid}"
    existing = app.store.latest_by_source(uri)
    previous = _latest(app, "prompt")
    answer = _latest(app, "response")
    turn = int(previous.metadata.get("turn_index", 0)) + 1 if previous is not None else 1
    if existing is not None:
        turn = int(existing.metadata.get("turn_index", turn))
    meta: PromptMeta = {
        "session_id": key,
        "title": _title(text),
        "cwd": event.get("cwd"),
        "turn_index": turn,
        "prompt_id": pid,
    }
    outcome, node_id = _store(
        app, "prompt", text, source_uri=uri, metadata=meta, terms=_title(text), event=event
    )
    if outcome == "stored" and answer is not None and answer.id != node_id:
        app.store.add_edges([(node_id, answer.id, EdgeKind.FOLLOWS)])
    return outcome


def _response(app: App, event: dict[str, Any]) -> str:
    from ctx_tree_schema import EdgeKind

    text = _text(event)
    if not text.strip():
        return "skipped"
    session = str(event.get("session_id") or "")
    if event.get("env_refused") is True or spool.take_refused(_spool_base(app), session):
        # the turn ran a refused command (marked by the hook, or by _bash below): the answer
        # may quote what it printed
        from ctx_tree_mcp.wire.redact import redact_environment

        text = redact_environment(text)
    key = app.session_key
    pid = str(event.get("prompt_id") or "")
    prompt = app.store.latest_by_source(f"prompt://{key}/{pid}") if pid else None
    meta: ResponseMeta = {
        "session_id": key,
        "title": _title(text),
        "turn_index": prompt.metadata.get("turn_index") if prompt is not None else None,
        "prompt_id": pid,
    }
    uri = f"response://{key}/{pid or event.get('at')}"
    outcome, node_id = _store(app, "response", text, source_uri=uri, metadata=meta, event=event)
    if outcome == "stored" and prompt is not None:
        edges = [(node_id, prompt.id, EdgeKind.FOLLOWS)]
        edges += [(node_id, used, EdgeKind.DERIVED_FROM) for used in _used_in_turn(app, prompt)]
        app.store.add_edges(edges)
    return outcome


#: Kinds an answer is ``derived_from`` when they were captured in its turn.
TURN_KINDS = ("tool_output", "web_chunk", "summary")


def _used_in_turn(app: App, prompt: Any, limit: int = 50) -> list[str]:
    """Ids of the outputs captured under the session since ``prompt`` (its turn's tool calls),
    newest first, at most ``limit``; compose then reaches them from the prompt or the answer."""
    from ctx_tree_schema import Filters, NodeKind

    kinds = tuple(NodeKind(k) for k in TURN_KINDS)
    filters = Filters(
        session_id=app.recorder.session_node_id(), since=prompt.created_at, kind=kinds
    )
    return [n.id for n in app.store.recent(limit=limit, filters=filters)]


def _read(app: App, event: dict[str, Any]) -> str:
    from ctx_tree_mcp.engines.files.filecache import load
    from ctx_tree_mcp.errors import ToolInputError

    path = _text(event, "path")
    try:
        resolved, st = app.policy.resolve_file(path)
        view = load(app, resolved, st)
    except ToolInputError as exc:  # secret, outside the root, gone, binary: nothing stored
        log.debug("capture: read of %r not stored: %s", path, exc)
        return "skipped"
    return "unchanged" if view.cached else "stored"


def _denied(app: App, path: str, base: Path) -> bool:
    """True when ``path`` (as a tool printed it: absolute or relative to ``base``) is a
    denylisted secret file, inside the project or not."""
    full = Path(os.path.normpath(base / path))
    try:
        rel = full.relative_to(app.root).as_posix()
    except ValueError:
        rel = full.as_posix().lstrip("/")
    return app.policy.is_denied(rel)


def _without_denied_lines(app: App, text: str, base: Path, files_only: bool) -> str:
    """Grep/Glob output minus the lines that come from denylisted files."""
    verdicts: dict[str, bool] = {}
    kept = []
    for line in text.splitlines():
        if files_only:
            path = line
        else:
            m = _GREP_LINE.match(line)
            path = m.group(1) if m else line.split(":", 1)[0]
        if path not in verdicts:
            verdicts[path] = _denied(app, path, base)
        if not verdicts[path]:
            kept.append(line)
    return "\n".join(kept)


def _without_key_lines(app: App, text: str, base: Path) -> str:
    """Grep output with each line that lies inside a PEM private key block of its file
    replaced: a grep shows a block's body lines without the ``BEGIN`` line, so redaction
    cannot tell them from other base64 (the rule ``ctx_tree_grep`` applies: :mod:`ctx_tree_mcp.policy.keylines`).
    A line is judged by its text against the file's block lines, with or without a line
    number before it (a context line without one is ``path-text``, of a file whose matches
    are shown too); only files whose shown lines look like a key's are read."""
    from ctx_tree_mcp.errors import ToolInputError
    from ctx_tree_mcp.policy.keylines import (
        KEY_LINE_MARK,
        KeyBlocks,
        key_blocks,
        might_hold_key,
        read_start,
    )

    rows = text.split("\n")
    shown = {m.group(1) for row in rows if (m := _GREP_LINE.match(row) or _GREP_PATH.match(row))}

    def split(line: str) -> tuple[str, int] | None:
        """``(path, where its text starts)`` of an output line, or None."""
        m = _GREP_LINE.match(line) or _GREP_PATH.match(line)
        if m is not None:
            return m.group(1), m.end()
        dash = line.find("-")
        while dash > 0:  # an unnumbered context line: ``path-text``
            if line[:dash] in shown:
                return line[:dash], dash + 1
            dash = line.find("-", dash + 1)
        return None

    blocks: dict[str, KeyBlocks] = {}
    out = []
    for line in rows:
        found = split(line)
        if found is None or not might_hold_key(line[found[1] :]):
            out.append(line)
            continue
        path, start = found
        if path not in blocks:
            try:
                resolved, _st = app.policy.resolve_file(str(base / path))
                data = read_start(resolved.absolute).decode("utf-8", "replace")
            except (ToolInputError, OSError):
                data = ""
            blocks[path] = key_blocks(data)
        if blocks[path].holds(line[start:]):
            line = line[:start] + KEY_LINE_MARK
        out.append(line)
    return "\n".join(out)


def _grep(app: App, event: dict[str, Any]) -> str:
    tool = str(event.get("tool") or "Grep")
    cwd = Path(str(event.get("cwd") or app.root))
    target = _text(event, "path")
    base = Path(os.path.normpath(cwd / target)) if target else cwd
    if target and _denied(app, target, cwd):
        return "skipped"
    mode = _text(event, "output_mode") or ("files_with_matches" if tool == "Grep" else "files")
    files_only = tool == "Glob" or mode == "files_with_matches"
    search_base = base if base.is_dir() else base.parent
    text = _without_denied_lines(app, _text(event), search_base, files_only)
    if not files_only:
        text = _without_key_lines(app, text, search_base)
    if not text.strip():
        return "skipped"
    pattern = _text(event, "pattern")
    meta: GrepMeta = {
        "tool": tool,
        "pattern": pattern,
        "path": target or ".",
        "file_glob": event.get("glob"),
        "type": event.get("type"),
        "output_mode": mode,
        "match_count": _whole_lines(event, text),
        "cwd": str(cwd),
        "session_id": app.session_key,
    }
    uri = f"{tool.lower()}://{_hash(tool, pattern, target, event.get('glob'), mode, cwd)}"
    return _store(
        app, "tool_output", text, source_uri=uri, metadata=meta, terms=pattern, event=event
    )[0]


def _whole_lines(event: Mapping[str, object], text: str) -> int:
    """Lines (matches) of the whole output: the hook's count when it cut it, else the text's."""
    whole = event.get("original_lines")
    if isinstance(whole, int) and not isinstance(whole, bool) and whole > 0:
        return whole
    return text.count("\n") + 1


def _bash(app: App, event: dict[str, Any]) -> str:

    from ctx_tree_mcp.engines.shell.record import command_uri, record_output
    from ctx_tree_mcp.policy.secretfiles import secret_file_read

    command = _text(event, "command")
    cwd = Path(str(event.get("cwd") or app.root))
    from ctx_tree_mcp.wire.routed import is_routed

    if is_routed(command):  # an older hook spooled it; its answer stored it (docs/routing.md)
        return "skipped"
    if (
        refusal(command, app.config.data["bash"]["deny"])
        # it printed a secret file: its output is not kept, redacted or not
        or secret_file_read(command, app.policy, cwd) is not None
    ):
        # the session's next answer may quote the output: it is redacted strictly
        spool.mark_refused(_spool_base(app), str(event.get("session_id") or ""))
        return "skipped"
    from ctx_tree_mcp.engines.shell.terminal import screen_text

    text = _text(event)
    if not app.config.data["capture"]["rawTerminal"]:
        text = screen_text(text)  # as the terminal showed it, like ctx_tree_bash's
    if not text.strip():
        return "skipped"
    where = str(event.get("cwd") or app.root)
    before = app.store.latest_by_source(command_uri(command, where))
    recorded = record_output(
        app,
        text,
        command=command,
        cwd=where,
        source="hook:Bash",
        exit_code=event.get("exit_code"),
        duration_ms=event.get("duration_ms"),
        original_bytes=_original_bytes(event),
        metadata={"interrupted": bool(event.get("interrupted")), "session_id": app.session_key},
    )
    # the same output of the same command already stored live: its id comes back
    return "unchanged" if before is not None and before.id == recorded.node_id else "stored"


def _web(app: App, event: dict[str, Any]) -> str:
    from ctx_tree_store import now_ms

    url = _text(event, "url")
    text = _text(event)
    if not text.strip() or not url:
        return "skipped"
    title = _text(event, "title")[:200] or url
    meta: WebChunkMeta = {
        "tool": event.get("tool"),
        "url": url,
        "title": title,
        "fetched_at": event.get("at") or now_ms(),
        "session_id": app.session_key,
    }
    return _store(app, "web_chunk", text, source_uri=url, metadata=meta, terms=title, event=event)[
        0
    ]


def _agent(app: App, event: dict[str, Any]) -> str:
    text = _text(event)
    if not text.strip():
        return "skipped"
    title = _text(event, "title")[:200] or _title(text)
    meta: SummaryMeta = {
        "title": title,
        "subagent_type": event.get("subagent_type"),
        "session_id": app.session_key,
    }
    uri = f"agent://{event.get('tool_use_id') or _hash(title, text)}"
    return _store(app, "summary", text, source_uri=uri, metadata=meta, terms=title, event=event)[0]


#: One handler per kind of the event table (``wire/events.py``: ``KINDS``).
_HANDLERS = {
    "prompt": _prompt,
    "response": _response,
    "read": _read,
    "grep": _grep,
    "bash": _bash,
    "web": _web,
    "agent": _agent,
}


# --- the walker ---------------------------------------------------------------------------


def capture_walker(root: Path, home: Path | None = None) -> Callable[..., IngestReport]:
    """The coordinator function (``store, config, *, now_ms, keep_going`` → report) that
    ingests ``root``'s spool on the walker thread's own store connection."""
    recorded: list[bool] = []

    def run(
        store: Store, config: Config, *, now_ms: int, keep_going: Callable[[], bool]
    ) -> IngestReport:
        from ctx_tree_mcp.app import App

        if not recorded:
            from ctx_tree_store import ctx_tree_home

            # once per server: spools of deleted worktrees and long-idle projects go
            with contextlib.suppress(OSError):
                for gone in spool.sweep_spools(
                    home or ctx_tree_home(), keep=spool_dir(home or ctx_tree_home(), root)
                ):
                    log.info(
                        "capture: swept the spool of %s (%d events waiting, idle)",
                        gone.project or gone.path.name,
                        gone.waiting,
                    )
            recorded.append(True)
        return ingest(App.over(root, store, config, home), keep_going=keep_going)

    return run
