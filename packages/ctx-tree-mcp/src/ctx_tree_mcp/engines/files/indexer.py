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

import contextlib
import hashlib
import logging
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
#: A write waits until no tool call has ended for this long (seconds) ...
QUIET_S = 0.05
#: ... but not longer than this (seconds), so calls back to back do not starve the index.
QUIET_MAX_WAIT_S = 1.0


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
    return sorted({p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p})


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

    cfg = config.data["index"]
    cap = cfg["maxFiles"]
    names = _git_files(root)
    if names is None:
        names = _walk_files(root)
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
    if len(found) <= cap:
        return Listing(found, False, too_big)
    keep = set(touched)
    if ranks is None:
        ranks = {}
    if not ranks:
        ranks.update(reference_counts(root, [f[0] for f in found]))
    order = {rel: i for i, (rel, _m, _s) in enumerate(found)}
    chosen = sorted(
        found,
        key=lambda f: (f[0] not in keep, -ranks.get(f[0], 0), order[f[0]]),
    )[:cap]
    chosen.sort(key=lambda f: order[f[0]])  # shallow paths first, as uncapped
    return Listing(chosen, True, too_big)


def _prepare_batch(
    root: str, items: list[tuple[str, int, str]], max_bytes: int
) -> list[tuple[str, str, Any, Any]]:
    """Worker side: per ``(rel, mtime ms, known sha256)``, ``(status, rel, root, chunks)``
    where status is ``new`` (nodes built), ``same`` (the known hash) or ``skip`` (unreadable,
    binary or not UTF-8). Runs in a worker process or the caller's thread."""
    from ctx_tree_chunk import ChunkError

    from ctx_tree_mcp.engines.files.filecache import build_nodes

    out: list[tuple[str, str, Any, Any]] = []
    for rel, mtime_ms, known in items:
        _pause_for_calls()
        absolute = os.path.join(root, rel)
        try:
            with open(absolute, "rb") as fh:
                data = fh.read()
        except OSError:
            out.append(("skip", rel, None, None))
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest == known:
            out.append(("same", rel, None, None))
            continue
        try:
            node, chunks, _outline = build_nodes(absolute, rel, data, digest, mtime_ms, max_bytes)
        except ChunkError:
            out.append(("skip", rel, None, None))
            continue
        out.append(("new", rel, node, chunks))
    return out


#: Niceness added to the index's worker processes: tool calls of the server go first.
WORKER_NICE = 10
#: How often a worker checks that the process that started it still runs (seconds).
WORKER_PARENT_POLL_S = 0.25


#: In a worker process: the shared clock of tool calls (``inf`` while one runs, else the
#: ``time.monotonic()`` the last one ended; workers pause until :data:`QUIET_S` after it),
#: set by :func:`_worker_init`.
_calls_until: Any = None
#: Longest pause of a worker before one file (seconds): calls back to back do not starve it.
WORKER_MAX_PAUSE_S = 0.25


def _pause_for_calls() -> None:
    """Worker side, before each file: wait while the server's tool calls run (at most
    :data:`WORKER_MAX_PAUSE_S`). The two cores a machine may have are the server's first."""
    if _calls_until is None:
        return
    start = now = time.monotonic()
    while now < _calls_until.value + QUIET_S and now - start < WORKER_MAX_PAUSE_S:
        time.sleep(0.005)
        now = time.monotonic()


def _worker_init(parent: int, calls_until: Any = None) -> None:
    """Worker start-up: lower its priority (:data:`WORKER_NICE`), keep ``calls_until`` (a
    shared double, see :func:`_pause_for_calls`), and end the worker when ``parent`` (the
    server, or ``ctx-tree index``) is gone, even killed outright, so no worker outlives the
    process that started it (docs/index.md). Standard library only."""
    global _calls_until
    _calls_until = calls_until
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)

    def watch() -> None:
        while True:
            time.sleep(WORKER_PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="ctx-tree-index-parent", daemon=True).start()


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
    from ctx_tree_mcp.engines.files.filecache import file_uri

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
    todo: list[tuple[str, int, str]] = []
    stats_of = {rel: (mtime_ms, size) for rel, mtime_ms, size in listing.files}
    listed_uris = set()
    for rel, mtime_ms, size in listing.files:
        uri = prefix + rel
        listed_uris.add(uri)
        version = known.get(uri)
        if version is not None and version[0] == mtime_ms and version[1] == size:
            state.unchanged += 1
            continue
        if state.not_text.get(rel) == (mtime_ms, size):
            state.skipped += 1
            continue
        todo.append((rel, mtime_ms, version[2] if version else ""))
    state.todo = len(todo)
    state.phase = "indexing"
    if progress:
        progress(state)

    def write(results: Iterable[tuple[str, str, Any, Any]]) -> None:
        trees = []
        for status, rel, node, chunks in results:
            if status == "new":
                trees.append((node, chunks))
            elif status == "same":
                state.unchanged += 1
            else:
                state.skipped += 1
                state.not_text[rel] = stats_of.get(rel, (0, 0))
            state.done += 1
        _wait_for_quiet(should_yield, idle_for, stop)
        if trees:
            created = store.capture_files(trees)
            state.stored += sum(1 for _id, new in created if new)
            state.unchanged += sum(1 for _id, new in created if not new)
        if progress:
            progress(state)

    batches = [todo[i : i + BATCH_FILES] for i in range(0, len(todo), BATCH_FILES)]
    max_bytes = config.data["capture"]["maxFileBytes"]  # a read stores the same nodes
    n_workers = workers if workers is not None else _workers(config)
    if len(todo) < POOL_THRESHOLD or n_workers <= 1:
        for batch in batches:
            if stop.is_set():
                break
            write(_prepare_batch(str(root), batch, max_bytes))
    else:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        polled = calls_clock is None and (should_yield is not None or idle_for is not None)
        calls_until = ctx.Value("d", 0.0, lock=False) if calls_clock is None else calls_clock
        pool = ProcessPoolExecutor(
            max_workers=n_workers,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(os.getpid(), calls_until),
        )

        def result(fut: Future[list[tuple[str, str, Any, Any]]]) -> Any:
            """The batch's result; meanwhile (no ``calls_clock``) tells the workers when tool
            calls run."""
            while polled:
                if _calls_running(should_yield, idle_for):
                    calls_until.value = time.monotonic()
                with contextlib.suppress(FutureTimeout):
                    return fut.result(timeout=0.01)
            return fut.result()

        # a stop signal exits the process without waiting for this thread: it kills the
        # workers first (ending.py), so none outlives the server
        from ctx_tree_mcp import ending

        unregister = ending.on_stop(lambda: _kill_workers(pool), order=ending.LAST)
        failed = True
        try:
            pending: list[Future[list[tuple[str, str, Any, Any]]]] = [
                pool.submit(_prepare_batch, str(root), b, max_bytes) for b in batches
            ]
            for fut in pending:  # in order: a batch's writes follow the listing
                if stop.is_set():
                    break
                write(result(fut))
            failed = False
        finally:
            # a stop (or an error) does not wait for the batches queued: the workers end now
            stopping = stop.is_set() or failed
            pool.shutdown(wait=not stopping, cancel_futures=True)
            if stopping:
                _end_workers(pool)
            unregister()
    # files stored before and now gone from the tree: stale, as a read of them would do
    if not stop.is_set():
        for uri in known.keys() - listed_uris:
            if not os.path.exists(uri[len("file://") :]):
                state.gone += 1 if store.stale_file(uri) else 0
    state.seconds = round(time.perf_counter() - t0, 3)
    state.finished_ms = int(time.time() * 1000)
    state.runs += 1
    state.phase = "ready" if not stop.is_set() else state.phase
    if progress:
        progress(state)
    return state


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


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """SIGKILL the pool's worker processes and do not wait (the process is about to exit:
    ``ending.py``; they hold nothing durable, and init reaps them)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            proc.kill()


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """SIGTERM the pool's worker processes and reap them (up to 2 s each, then SIGKILL)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(2)
            if proc.is_alive():
                proc.kill()
                proc.join(1)


def summary(state: IndexState) -> str:
    """One line: ``700 files listed: 700 stored, 0 unchanged, 0 skipped, 0 gone (8.3 s)``,
    plus ``capped at index.maxFiles`` when the listing was cut."""
    line = (
        f"{state.listed} file{'s' if state.listed != 1 else ''} listed: {state.stored} stored, {state.unchanged} unchanged, "
        f"{state.skipped} skipped (binary or unreadable), {state.gone} gone ({state.seconds:.1f} s)"
    )
    if state.too_big:
        line += f"; {state.too_big} larger than index.maxFileBytes left out"
    if state.capped:
        line += "; capped at index.maxFiles (the rest is read on demand)"
    return line


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
    store.record_walker_run("index", state.started_ms, state.finished_ms, summary(state), changes)


def last_run(store: Store) -> Any | None:
    """The newest recorded ``index`` run (``ctx_tree_store.WalkerRun``), or None."""
    from ctx_tree_store import browse

    return next((r for r in browse.walker_runs(store, 2000) if r.walker == "index"), None)


def not_indexed(store: Store) -> str:
    """'' once the project index has run on ``store``; before, what fills it (said by a short
    search answer and a map built from the few files read so far, docs/index.md)."""
    try:
        if last_run(store) is not None:
            return ""
    except Exception:  # an unreadable store: the answer says what it can without this
        return ""
    return (
        "the project index has not run on this store yet, so only what was read, grepped or "
        "noted is here: `ctx-tree index` stores every tracked file now (the MCP server also "
        "indexes in the background when it starts, unless index.enabled is false)"
    )


def status_lines(store: Store, root: Path, config: Config) -> list[str]:
    """What ``stats`` and ``doctor`` say of the index: switch, files live, last run."""
    from ctx_tree_mcp.engines.files.filecache import file_uri

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
