"""The project index (docs/index.md): every tracked text file chunked into the store.

:func:`list_files` lists the project's files: ``git ls-files`` (tracked and untracked, the
ignored left out) in a git work tree, otherwise a walk with the root's ``.gitignore`` applied
(pathspec); the path denylist (``paths.py``) applies to both, and so do the caps of the
``index`` configuration (``maxFiles``, ``maxFileBytes``). :func:`index_project` stores them:

* incremental: a file whose live root has the same mtime and size is not opened; one whose
  bytes hash the same is not re-stored;
* the files are read, redacted and chunked by :func:`filecache.build_nodes` in worker
  processes (``index.workers``, spawned, never forked from a threaded server), and written
  by the caller's thread, many files per transaction (``Store.capture_files``), with the
  same status machine as a read (a changed file supersedes its older version; a file gone
  from the tree has its nodes marked stale);
* between batches it waits while ``should_yield()`` is true (a tool call is running).

:class:`IndexService` runs it in a thread of the server from start-up, then checks the tree
again on each batch of file changes (``watchfiles``; 50 ms debounce), or, without a watcher,
every ``index.pollMs``.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.engines.files.index_pool import QUIET_S, Outcome, WorkerPool, prepare_batch

if TYPE_CHECKING:
    from ctx_tree_schema import Config
    from ctx_tree_store import Store

    from ctx_tree_mcp.calls import CallsClock
    from ctx_tree_mcp.policy.paths import PathPolicy
    from ctx_tree_mcp.store_handle import StoreHandle

log = logging.getLogger(__name__)

#: Files per worker task and per write transaction.
BATCH_FILES = 48
#: Below this many files to (re)chunk no worker process is started.
POOL_THRESHOLD = 64
#: A write waits until no tool call has ended for :data:`QUIET_S` (seconds), but not longer
#: than this (seconds), so calls back to back do not starve the index.
QUIET_MAX_WAIT_S = 1.0
#: Files marked stale per transaction when they left the tree.
GONE_BATCH = 500
#: ``walker_state`` key of the files skipped for time: ``{rel: [mtime ms, size]}``.
SLOW_KEY = "index.slow"
#: ``walker_state`` key of the files found not to be text: ``{rel: [mtime ms, size]}``.
NOT_TEXT_KEY = "index.not_text"
#: ``walker_state`` key of the latest run's progress (:func:`_progress`).
PROGRESS_KEY = "index.progress"
#: Seconds between two writes of the progress while a run stores files.
PROGRESS_S = 2.0


@dataclass
class IndexState:
    """What the index did last, for ``stats``/``doctor``/the inspector: ``phase`` is one of
    ``off``, ``waiting``, ``listing``, ``indexing``, ``ready``, ``failed``; counts are files;
    times are epoch ms; ``capped`` is True when ``index.maxFiles`` cut the listing."""

    phase: str = "waiting"
    listed: int = 0
    todo: int = 0
    done: int = 0
    stored: int = 0
    unchanged: int = 0
    skipped: int = 0
    gone: int = 0
    capped: bool = False
    too_big: int = 0
    #: Git submodules not checked out (``git submodule update --init`` fills them): not indexed.
    submodules_empty: list[str] = field(default_factory=list)
    #: Files skipped for taking longer than ``index.fileTimeoutMs``: ``{rel: (mtime, size)}``,
    #: kept in ``walker_state`` (:data:`SLOW_KEY`) and not tried again until they change.
    slow: dict[str, tuple[int, int]] = field(default_factory=dict)
    started_ms: int = 0
    finished_ms: int = 0
    seconds: float = 0.0
    error: str = ""
    runs: int = 0
    watcher: str = ""
    #: ``{rel: (mtime ms, size)}`` of files found not to be text: not opened again unchanged.
    not_text: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    #: ``{rel: references}`` of a capped tree (:func:`reference_counts`), computed once.
    ranks: dict[str, int] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The state as plain JSON values (without :attr:`not_text`)."""
        out = asdict(self)
        out.pop("not_text", None)
        out.pop("ranks", None)
        return out


@dataclass(frozen=True)
class Listing:
    """The files :func:`list_files` found: ``files`` (POSIX paths relative to the root, at
    most ``maxFiles``), ``capped`` (more were there), ``too_big`` (left out by size)."""

    files: list[tuple[str, int, int]] = field(default_factory=list)  # (rel, mtime ms, size)
    capped: bool = False
    too_big: int = 0
    #: Git submodules (or nested repositories) that are not checked out: empty directories.
    submodules_empty: list[str] = field(default_factory=list)


def _git_files(root: Path) -> list[str] | None:
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    # an untracked nested repository is listed as "dir/"; a submodule as its directory
    return sorted(
        {p.rstrip("/") for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
    )


#: Nested git work trees (submodules of submodules) followed at most this deep.
SUBMODULE_DEPTH = 8


def _expand_repos(root: Path, names: list[str], depth: int = 0) -> tuple[list[str], list[str]]:
    """``(names, empty)``: ``names`` with each that is a directory holding ``.git`` (a
    checked-out submodule, or a repository nested in the tree) replaced by its own
    ``git ls-files`` (its own ignores applied), prefixed; the directories without ``.git``
    (submodules not checked out) in ``empty``. One ``lstat`` per directory entry only: git
    lists no other directory."""
    import stat as stat_

    out: list[str] = []
    empty: list[str] = []
    for rel in names:
        full = root / rel
        try:
            st = os.lstat(full)
        except OSError:
            out.append(rel)
            continue
        if not stat_.S_ISDIR(st.st_mode):
            out.append(rel)
            continue
        inner = _git_files(full) if depth < SUBMODULE_DEPTH and (full / ".git").exists() else None
        if inner is None:
            empty.append(rel)
            continue
        sub_names, sub_empty = _expand_repos(full, inner, depth + 1)
        out += (f"{rel}/{n}" for n in sub_names)
        empty += (f"{rel}/{n}" for n in sub_empty)
    return out, empty


def _walk_files(root: Path) -> list[str]:
    from pathspec import GitIgnoreSpec

    try:
        lines = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    spec = GitIgnoreSpec.from_lines([".git/", *lines])
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        dirnames[:] = sorted(d for d in dirnames if not spec.match_file(f"{rel_dir}{d}/"))
        found += (f"{rel_dir}{n}" for n in filenames if not spec.match_file(f"{rel_dir}{n}"))
    return sorted(found)


#: Directories whose files an agent rarely needs first: vendored, built, generated, fixtures,
#: test data and translations (matched on any directory of the path, lower-cased).
LOW_DIRS = frozenset(
    [
        "vendor",
        "vendors",
        "third_party",
        "thirdparty",
        "third-party",
        "3rdparty",
        "external",
        "extern",
        "node_modules",
        "bower_components",
        "dist",
        "build",
        "out",
        "target",
        "generated",
        "gen",
        "__generated__",
        "fixtures",
        "fixture",
        "testdata",
        "test_data",
        "test-data",
        "__snapshots__",
        "snapshots",
        "golden",
        "locale",
        "locales",
        "i18n",
        "l10n",
        "site-packages",
        ".yarn",
    ]
)
#: Name endings of the same kind: minified, source maps, locks, translations, snapshots, data.
LOW_SUFFIXES = (
    ".min.js",
    ".min.css",
    ".map",
    ".lock",
    ".po",
    ".pot",
    ".snap",
    ".csv",
    ".tsv",
    ".svg",
    "_pb2.py",
    ".pb.go",
    ".generated.ts",
    ".generated.cs",
    ".g.dart",
)
#: Name endings of files that are almost never text (tried last: they are skipped as binary).
BINARY_SUFFIXES = (
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".ico",
    ".bmp",
    ".webp",
    ".pdf",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".7z",
    ".jar",
    ".so",
    ".a",
    ".o",
    ".bin",
    ".exe",
    ".dll",
    ".dylib",
    ".class",
    ".pyc",
    ".wasm",
    ".mp3",
    ".mp4",
)
_STRUCTURE = frozenset({"markdown", "json", "yaml", "toml"})


def usefulness(rel: str) -> int:
    """How soon the index takes ``rel``, lower first (docs/index.md, "What is indexed"):
    0 source code (a language the chunker parses), 1 other text (docs, config, build
    files), 2 vendored, generated, fixture, test-data and translation files, 3 files named
    like binaries. From the path alone: no file is opened."""
    lower = rel.lower()
    directory, _, name = lower.rpartition("/")
    rank = _name_usefulness(name)
    if rank < 2 and directory and any(d in LOW_DIRS for d in directory.split("/")):
        return 2
    return rank


def _name_usefulness(name: str) -> int:
    """:func:`usefulness` from a lower-cased file name alone (cached by its last suffix)."""
    if name.endswith(BINARY_SUFFIXES):
        return 3
    if name.endswith(LOW_SUFFIXES):
        return 2
    dot = name.rfind(".")
    # a name without a suffix (Makefile, .bashrc) is its own key: the language's name table
    return _suffix_usefulness(name if dot <= 0 else "f" + name[dot:])


@functools.lru_cache(maxsize=1024)
def _suffix_usefulness(name: str) -> int:
    from ctx_tree_chunk import detect_language

    lang = detect_language(name)
    return 0 if lang is not None and lang not in _STRUCTURE else 1


#: Bytes read from the head of each file to rank files beyond ``index.maxFiles``.
RANK_HEAD_BYTES = 8192
_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from|import|#[ \t]*include|#[ \t]*import|use|require|@import|using)\b"
    rb"[^\n]*|\b(?:require|import)[ \t]*\([^\n)]*\)",
    re.M,
)
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _module_names(rel: str) -> set[str]:
    """The words other files use to name ``rel`` in an import: its stem, and its parent
    directory's name for a package file (``pkg/__init__.py``, ``pkg/index.js``, ``mod.rs``)."""
    parts = rel.split("/")
    stem = parts[-1].split(".", 1)[0]
    names = {stem} if stem else set()
    if stem in ("__init__", "index", "mod", "lib", "main") and len(parts) > 1:
        names.add(parts[-2])
    return names


def reference_counts(root: Path, names: list[str]) -> dict[str, int]:
    """``{rel: how many import lines of the other files name it}``: each file's head
    (:data:`RANK_HEAD_BYTES`) is scanned once for import-like lines (``import``, ``from``,
    ``#include``, ``use``, ``require(...)``, ...), whose words are counted against every file's
    :func:`_module_names`. Cheap (one bounded read per file, no parse); files that cannot be
    read count nothing. Ranks the files kept beyond ``index.maxFiles`` (docs/index.md)."""
    words: dict[bytes, int] = {}
    for rel in names:
        try:
            with open(root / rel, "rb") as fh:
                head = fh.read(RANK_HEAD_BYTES)
        except OSError:
            continue
        if b"\0" in head:
            continue
        for line in _IMPORT_LINE.finditer(head):
            for w in set(_WORD.findall(line.group(0))):
                words[w] = words.get(w, 0) + 1
    return {rel: sum(words.get(n.encode(), 0) for n in _module_names(rel)) for rel in names}


def list_files(
    root: Path,
    policy: PathPolicy,
    config: Config,
    *,
    touched: Iterable[str] = (),
    ranks: dict[str, int] | None = None,
) -> Listing:
    """The files to index under ``root``: regular files (no symlinks), not denylisted, at
    most ``index.maxFileBytes`` each and ``index.maxFiles`` in all.

    Beyond ``index.maxFiles`` (docs/index.md): the files in ``touched`` (relative paths the
    store already holds: what the agent read) are kept first, then the most referenced
    (:func:`reference_counts`; ``ranks`` is a cache of it, filled when empty), shallow paths
    first among equals; the listing says ``capped``."""
    import stat as stat_

    from ctx_tree_mcp.policy.names import shown

    cfg = config.data["index"]
    cap = cfg["maxFiles"]
    names = _git_files(root)
    empty: list[str] = []
    if names is None:
        names = _walk_files(root)
    else:
        names, empty = _expand_repos(root, names)
    names.sort(key=lambda p: (p.count("/"), p))
    found: list[tuple[str, int, int]] = []
    too_big = 0
    for rel in names:
        if policy.is_denied(rel):
            continue
        try:
            st = os.lstat(root / rel)
        except OSError:
            continue
        if not stat_.S_ISREG(st.st_mode):
            continue
        if st.st_size > cfg["maxFileBytes"]:
            too_big += 1
            continue
        found.append((rel, st.st_mtime_ns // 1_000_000, st.st_size))
    # most useful first (the order the index stores them in), shallow paths first among equals
    found.sort(key=lambda f: usefulness(f[0]))  # stable: depth and name order kept
    if len(found) <= cap:
        return Listing(found, False, too_big, empty)
    keep = set(touched)  # as shown (policy/names.py), as the store holds them
    if ranks is None:
        ranks = {}
    if not ranks:
        ranks.update(reference_counts(root, [f[0] for f in found]))
    order = {rel: i for i, (rel, _m, _s) in enumerate(found)}
    chosen = sorted(
        found,
        key=lambda f: (
            shown(f[0]) not in keep,
            usefulness(f[0]),
            -ranks.get(f[0], 0),
            order[f[0]],
        ),
    )[:cap]
    chosen.sort(key=lambda f: order[f[0]])  # in the listing's order, as uncapped
    return Listing(chosen, True, too_big, empty)


def _workers(config: Config) -> int:
    wanted = config.data["index"]["workers"]
    return wanted if wanted > 0 else max(1, min(4, os.cpu_count() or 1))


def index_project(
    store: Store,
    root: Path,
    policy: PathPolicy,
    config: Config,
    *,
    state: IndexState | None = None,
    progress: Callable[[IndexState], None] | None = None,
    should_yield: Callable[[], bool] | None = None,
    idle_for: Callable[[], float] | None = None,
    stop: threading.Event | None = None,
    workers: int | None = None,
    calls_clock: Any = None,
) -> IndexState:
    """Bring the index of ``root`` up to date in ``store``; returns the (updated) ``state``.

    ``progress`` is called after each batch; ``should_yield`` is polled before each write
    (the server's tool calls go first: it waits while True); ``idle_for`` (seconds since the
    last tool call ended) makes a write also wait for a quiet spell of :data:`QUIET_S`, at
    most :data:`QUIET_MAX_WAIT_S`; ``stop`` ends the run between batches. ``calls_clock``
    (a shared ``multiprocessing`` double: ``inf`` while a tool call runs, else the
    ``time.monotonic()`` the last one ended, kept by the caller; the server's ``run_tool``)
    tells the worker processes when to pause; without it this thread keeps one from
    ``should_yield``/``idle_for``, checking every 10 ms while a batch is out. Raises the
    store's faults (``StoreFull``, ``StoreGone``, ...); a file that cannot be read or is
    not text is skipped and counted.
    """
    from ctx_tree_store import now_ms

    from ctx_tree_mcp.policy.names import file_uri, shown, uri_path

    state = state or IndexState()
    stop = stop or threading.Event()
    t0 = time.perf_counter()
    state.phase, state.started_ms, state.error = "listing", int(time.time() * 1000), ""
    state.done = state.stored = state.unchanged = state.skipped = state.gone = 0
    root = Path(root).resolve()
    prefix = file_uri(root) + "/"
    known = store.file_versions(prefix)
    touched = [uri[len(prefix) :] for uri in known]
    listing = list_files(root, policy, config, touched=touched, ranks=state.ranks)
    state.listed, state.capped, state.too_big = len(listing.files), listing.capped, listing.too_big
    state.submodules_empty = listing.submodules_empty
    stats_of = {rel: (mtime_ms, size) for rel, mtime_ms, size in listing.files}
    slow = _kept_files(store, SLOW_KEY)
    state.slow = {rel: v for rel, v in slow.items() if rel in stats_of}
    kept_before = (dict(slow), dict(state.not_text))
    if not state.not_text:  # a new process (the CLI): what an earlier run found
        state.not_text = _kept_files(store, NOT_TEXT_KEY)
        kept_before = (kept_before[0], dict(state.not_text))
    todo: list[tuple[str, int, str]] = []
    listed_uris = set()
    for rel, mtime_ms, size in listing.files:
        uri = prefix + shown(rel)
        listed_uris.add(uri)
        version = known.get(uri)
        if version is not None and version[0] == mtime_ms and version[1] == size:
            state.unchanged += 1
            continue
        if state.not_text.get(rel) == (mtime_ms, size) or slow.get(rel) == (mtime_ms, size):
            state.skipped += 1
            continue
        todo.append((rel, mtime_ms, version[2] if version else ""))
    state.todo = len(todo)
    state.phase = "indexing"
    shown_at = [0.0]

    def publish(force: bool = False) -> None:
        """Keep the run's progress in the store (:func:`not_indexed` reads it in any
        process): at the start, every :data:`PROGRESS_S` and at the end."""
        now = time.monotonic()
        if force or now - shown_at[0] >= PROGRESS_S:
            shown_at[0] = now
            store.set_walker_state(PROGRESS_KEY, json.dumps(_progress(state)))

    if todo:
        publish(force=True)
    if progress:
        progress(state)

    def write(outcomes: Iterable[Outcome]) -> None:
        rows = []
        for o in outcomes:
            if o.status == "new":
                rows.append(o.rows)
            elif o.status == "same":
                state.unchanged += 1
            else:
                state.skipped += 1
                if o.reason == "slow":
                    state.slow[o.rel] = stats_of.get(o.rel, (0, 0))
                    log.warning("index: %s skipped, over index.fileTimeoutMs", o.rel)
                else:
                    state.not_text[o.rel] = stats_of.get(o.rel, (0, 0))
            state.done += 1
        _wait_for_quiet(should_yield, idle_for, stop)
        if rows:
            created = store.capture_file_rows(rows, now_ms())
            state.stored += sum(1 for _id, new in created if new)
            state.unchanged += sum(1 for _id, new in created if not new)
        if progress:
            progress(state)
        publish()

    batches = [todo[i : i + BATCH_FILES] for i in range(0, len(todo), BATCH_FILES)]
    max_bytes = config.data["capture"]["maxFileBytes"]  # a read stores the same nodes
    n_workers = workers if workers is not None else _workers(config)
    if len(todo) < POOL_THRESHOLD or n_workers <= 1:
        for batch in batches:
            if stop.is_set():
                break
            write(prepare_batch(str(root), batch, max_bytes))
    else:
        import multiprocessing

        polled = calls_clock is None and (should_yield is not None or idle_for is not None)
        calls_until = (
            multiprocessing.get_context("spawn").Value("d", 0.0, lock=False)
            if calls_clock is None
            else calls_clock
        )

        def tick() -> None:
            """Without a ``calls_clock``, tell the workers when tool calls run."""
            if polled and _calls_running(should_yield, idle_for):
                calls_until.value = time.monotonic()

        pool = WorkerPool(
            n_workers,
            str(root),
            max_bytes,
            config.data["index"]["fileTimeoutMs"] / 1000,
            calls_until,
            tick,
        )
        # a stop signal exits the process without waiting for this thread: it kills the
        # workers first (ending.py), so none outlives the server
        from ctx_tree_mcp import ending

        unregister = ending.on_stop(pool.kill, order=ending.LAST)
        failed = True
        try:
            for outcomes in pool.run(batches, stop):
                write(outcomes)
            failed = False
        finally:
            # a stop (or an error) does not wait for the batches queued: the workers end now
            pool.close(now=stop.is_set() or failed)
            unregister()
    if kept_before[0] != state.slow:
        store.set_walker_state(SLOW_KEY, json.dumps(state.slow))
    if kept_before[1] != state.not_text:
        state.not_text = {rel: v for rel, v in state.not_text.items() if rel in stats_of}
        store.set_walker_state(NOT_TEXT_KEY, json.dumps(state.not_text))
    # files stored before and now gone from the tree (or no longer a file: a directory now):
    # stale, as a read of them would do
    if not stop.is_set():
        gone = [u for u in known.keys() - listed_uris if not os.path.isfile(uri_path(u))]
        for i in range(0, len(gone), GONE_BATCH):
            state.gone += store.stale_files(gone[i : i + GONE_BATCH], now_ms())
    state.seconds = round(time.perf_counter() - t0, 3)
    if not stop.is_set():
        state.phase = "ready"
    if todo or left_out(state) != json.loads(store.walker_state(PROGRESS_KEY) or "{}").get(
        "left_out"
    ):
        publish(force=True)
    state.finished_ms = int(time.time() * 1000)
    state.runs += 1
    state.phase = "ready" if not stop.is_set() else state.phase
    if progress:
        progress(state)
    return state


def _progress(state: IndexState) -> dict[str, Any]:
    """The run as :data:`PROGRESS_KEY` keeps it: phase, files done of those to do, when it
    started and was last written (epoch ms), and what it leaves out (:func:`left_out`)."""
    return {
        "phase": state.phase,
        "done": state.done,
        "todo": state.todo,
        "listed": state.listed,
        "started_ms": state.started_ms,
        "at_ms": int(time.time() * 1000),
        "left_out": left_out(state),
    }


def _kept_files(store: Store, key: str) -> dict[str, tuple[int, int]]:
    """The files a run skipped and kept under ``key`` (:data:`SLOW_KEY`,
    :data:`NOT_TEXT_KEY`), ``{rel: (mtime ms, size)}``: not opened again unchanged."""
    try:
        raw = json.loads(store.walker_state(key) or "{}")
        return {str(k): (int(v[0]), int(v[1])) for k, v in raw.items()}
    except (ValueError, TypeError, IndexError, AttributeError):
        return {}


def _calls_running(
    should_yield: Callable[[], bool] | None, idle_for: Callable[[], float] | None
) -> bool:
    """True while a tool call runs or ended less than :data:`QUIET_S` ago."""
    if should_yield is not None and should_yield():
        return True
    return idle_for is not None and idle_for() < QUIET_S


def _wait_for_quiet(
    should_yield: Callable[[], bool] | None,
    idle_for: Callable[[], float] | None,
    stop: threading.Event,
) -> None:
    """Before a write: wait while ``should_yield()`` (a tool call runs), then until
    ``idle_for()`` reaches :data:`QUIET_S` or :data:`QUIET_MAX_WAIT_S` has passed."""
    deadline = time.monotonic() + QUIET_MAX_WAIT_S
    while not stop.is_set():
        if should_yield is not None and should_yield():
            time.sleep(0.005)
        elif idle_for is not None and time.monotonic() < deadline:
            quiet = idle_for()
            if quiet >= QUIET_S:
                return
            time.sleep(min(QUIET_S - quiet, 0.02))
        else:
            return


def summary(state: IndexState) -> str:
    """One line: ``700 files listed: 700 stored, 0 unchanged, 0 skipped, 0 gone (8.3 s)``,
    plus ``capped at index.maxFiles`` when the listing was cut."""
    line = (
        f"{state.listed} file{'s' if state.listed != 1 else ''} listed: {state.stored} stored, {state.unchanged} unchanged, "
        f"{state.skipped - len(state.slow)} skipped (binary or unreadable), {state.gone} gone ({state.seconds:.1f} s)"
    )
    return line + "".join(f"; {part}" for part in left_out(state))


def _some(names: Iterable[str]) -> str:
    names = sorted(names)
    return ", ".join(names[:3]) + (f", … {len(names) - 3} more" if len(names) > 3 else "")


def left_out(state: IndexState) -> list[str]:
    """What the run did not index and why, a phrase each (empty when it indexed every
    listed file): said by the run's summary, and so by ``stats``, ``doctor``, the map and a
    short search (docs/index.md, "Limits")."""
    parts = []
    if slow := state.slow:
        parts.append(
            f"{len(slow)} over index.fileTimeoutMs not indexed ({_some(slow)}): tried again "
            "when changed"
        )
    if state.too_big:
        parts.append(f"{state.too_big} larger than index.maxFileBytes left out")
    if state.capped:
        parts.append("capped at index.maxFiles, the most useful kept (the rest is read on demand)")
    if empty := state.submodules_empty:
        parts.append(
            f"{len(empty)} submodule{'s' if len(empty) != 1 else ''} not checked out "
            f"({_some(empty)}): not indexed until `git submodule update --init`"
        )
    return parts


def record(store: Store, state: IndexState) -> None:
    """Keep the run in ``walker_runs`` as walker ``index`` (``stats``, ``doctor`` and the
    inspector show it); a run that changed nothing is not recorded."""
    if state.runs > 1 and not (state.stored or state.gone):
        return
    changes = {
        k: int(v)
        for k, v in state.as_dict().items()
        if k in ("listed", "stored", "unchanged", "skipped", "gone", "too_big", "capped")
    }
    changes["ms"] = int(state.seconds * 1000)
    changes["submodules_empty"] = len(state.submodules_empty)
    store.record_walker_run("index", state.started_ms, state.finished_ms, summary(state), changes)


def last_run(store: Store) -> Any | None:
    """The newest recorded ``index`` run (``ctx_tree_store.WalkerRun``), or None."""
    from ctx_tree_store import browse

    return next((r for r in browse.walker_runs(store, 2000) if r.walker == "index"), None)


#: A run whose progress was not written for this long (ms) ended mid-way (a process killed).
STALLED_MS = 5 * 60_000


def not_indexed(store: Store) -> str:
    """What the project index has not stored, said by a short search answer and by the map
    (docs/index.md, "Limits"): before any run, what fills it; while a run stores files, how
    far it is; after a run that left files out, which and why; else ''."""
    try:
        raw = store.walker_state(PROGRESS_KEY)
        progress = json.loads(raw) if raw else None
        ran = progress is not None or last_run(store) is not None
    except Exception:  # an unreadable store: the answer says what it can without this
        return ""
    if not ran:
        return (
            "the project index has not run on this store yet, so only what was read, grepped "
            "or noted is here: `ctx-tree index` stores every tracked file now (the MCP server "
            "also indexes in the background when it starts, unless index.enabled is false)"
        )
    if not isinstance(progress, dict):
        return ""
    done, todo = int(progress.get("done", 0)), int(progress.get("todo", 0))
    if progress.get("phase") == "indexing":
        if int(time.time() * 1000) - int(progress.get("at_ms", 0)) < STALLED_MS:
            return (
                f"the project index is running: {done:,} of {todo:,} files stored or checked so "
                "far, the rest is not searched yet (`ctx_tree_grep` searches the files now)"
            )
        return (
            f"the last index run ended after {done:,} of {todo:,} files: `ctx-tree index` "
            "stores the rest"
        )
    parts = progress.get("left_out") or []
    return "not indexed: " + "; ".join(str(p) for p in parts) if parts else ""


def status_lines(store: Store, root: Path, config: Config) -> list[str]:
    """What ``stats`` and ``doctor`` say of the index: switch, files live, last run."""
    from ctx_tree_mcp.policy.names import file_uri

    cfg = config.data["index"]
    live = len(store.file_versions(file_uri(Path(root).resolve()) + "/"))
    head = (
        f"index: {'on' if cfg['enabled'] else 'off (index.enabled false)'}; {live:,} "
        f"file{'s' if live != 1 else ''} live "
        f"(caps: {cfg['maxFiles']:,} files, {cfg['maxFileBytes']:,} bytes a file)"
    )
    run = last_run(store)
    if run is None:
        return [head, "index: never run (the server indexes at start; `ctx-tree index` now)"]
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.finished_at / 1000))
    return [head, f"index: last run {when}: {run.summary}"]


class IndexService:
    """The server's index thread: a first full run from start-up, then a re-check on every
    change the watcher sees (or every ``index.pollMs``), of the project at ``root`` under
    ``policy`` and ``config``. Its own store connection, on the file ``stores`` names; waits
    while a tool call runs (``calls``, the App's :class:`~ctx_tree_mcp.calls.CallsClock`,
    which it gives the shared double its workers pause by); :meth:`stop` ends it between
    batches."""

    def __init__(
        self,
        stores: StoreHandle,
        root: Path,
        policy: PathPolicy,
        config: Config,
        calls: CallsClock,
    ) -> None:
        self.stores = stores
        self.root = root
        self.policy = policy
        self.config = config
        self.calls = calls
        self.state = IndexState()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (a daemon: it never keeps the process alive)."""
        from ctx_tree_mcp import ending

        # on a stop signal: no new batch (its write would hold up the counters' write)
        ending.on_stop(self._stop.set, order=10)
        self._thread = threading.Thread(target=self._main, name="ctx-tree-index", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to stop and wait up to ``timeout`` seconds; never raises."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _main(self) -> None:
        from ctx_tree_store import Store

        config = self.config
        try:
            store = Store.open(self.stores.path)
        except Exception as exc:  # the server runs on without an index
            self.state.phase, self.state.error = "failed", str(exc)
            log.warning("index not started: %s", exc)
            return
        try:
            poll = config.data["index"]["pollMs"] / 1000
            changes = self._watch(self.root)
            import multiprocessing

            clock = multiprocessing.get_context("spawn").Value("d", 0.0, lock=False)
            self.calls.shared = clock  # run_tool keeps it: the workers pause with no poll here
            while not self._stop.is_set():
                try:
                    index_project(
                        store,
                        self.root,
                        self.policy,
                        config,
                        state=self.state,
                        should_yield=self.calls.busy,
                        idle_for=self.calls.idle_for,
                        stop=self._stop,
                        calls_clock=clock,
                    )
                    if not self._stop.is_set():
                        record(store, self.state)
                except Exception as exc:
                    self.state.phase, self.state.error = "failed", str(exc)
                    log.warning("index run failed: %s", exc)
                if changes is not None:  # the next batch of file changes (or a stop)
                    if next(changes, None) is None:
                        break
                elif poll <= 0 or self._stop.wait(poll):
                    break
        finally:
            store.close()

    def _watch(self, root: Path) -> Any:
        """An iterator yielding once per batch of changes under ``root`` (``watchfiles``,
        50 ms debounce; changes under ``.git/`` ignored), ending at :meth:`stop`; None when
        watchfiles is unavailable or cannot watch (then ``index.pollMs`` polling)."""
        try:
            import watchfiles
        except ImportError:
            return None

        def outside_git(_change: Any, path: str) -> bool:
            return "/.git/" not in path and not path.endswith("/.git")

        try:
            watcher = watchfiles.watch(
                root,
                watch_filter=outside_git,
                debounce=50,
                step=20,
                stop_event=self._stop,
                yield_on_timeout=False,
                raise_interrupt=False,
            )
        except Exception as exc:
            log.info("no file watcher (%s); polling every index.pollMs", exc)
            return None
        self.state.watcher = "watchfiles"
        return watcher
