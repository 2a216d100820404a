"""The process's one piece of state: the project root, its config, its store and its session.

Handlers take an :class:`App` as their first argument; the MCP adapter and the CLI each build
one. Its store is held by a :class:`~ctx_tree_mcp.store_handle.StoreHandle` (``App.stores``),
which opens it lazily on first use, so start-up does not pay for it.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tree_mcp.caches import BacklogCache, ViewCache
from ctx_tree_mcp.calls import CallsClock
from ctx_tree_mcp.recorder import Recorder
from ctx_tree_mcp.store_handle import StoreHandle
from ctx_tree_mcp.wire import spool as wire_spool
from ctx_tree_mcp.wire.spool import PROJECT_VARIABLES as PROJECT_VARIABLES
from ctx_tree_mcp.wire.spool import root_key as root_key

if TYPE_CHECKING:
    from ctx_tree_schema import Config, Node
    from ctx_tree_store import NodeRow, Store

    from ctx_tree_mcp.policy.paths import PathPolicy
    from ctx_tree_mcp.providers.embedder import HttpEmbedder
    from ctx_tree_mcp.providers.local import Model2VecEmbedder

log = logging.getLogger(__name__)


def fault_message(exc: BaseException) -> str | None:
    """The one-line message for a store fault the user can act on (disk full, store deleted,
    unwritable, locked by another process past the busy timeout, written by a newer ctx-tree,
    damaged), or None for any other exception."""
    from ctx_tree_store import SchemaVersionError, StoreFull, StoreGone, StoreUnwritable, is_busy

    if isinstance(exc, StoreFull | StoreGone | StoreUnwritable | SchemaVersionError):
        return str(exc)
    if is_busy(exc):
        return (
            "the store is locked by another process (its write lock was held past the busy "
            "timeout: a long `ctx-tree reembed` or `walk`, or a program with store.db open); "
            "nothing of this call was saved; try it again in a moment"
        )
    import apsw

    if isinstance(exc, apsw.NotADBError | apsw.CorruptError):
        return (
            f"the store is damaged ({exc}); `ctx-tree doctor` names it and `ctx-tree forget` "
            "in the project deletes it (the next call starts a new, empty one)"
        )
    return None


def server_session_key() -> str:
    """The session key of a server process: ``$CLAUDE_CODE_SESSION_ID``, which Claude Code
    (2.1.154+) gives the MCP servers it starts and its hooks see as ``session_id``, so the hooks'
    captures and the server's tool calls share one session node (docs/capture.md); else a
    fresh ULID."""
    return os.environ.get("CLAUDE_CODE_SESSION_ID") or _fresh_session_key()


def _fresh_session_key() -> str:
    from ctx_tree_store import new_id

    return new_id()


def project_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The project root: ``explicit``, else the host's project variable, else the cwd, never
    ctx-tree's own plugin directory (:func:`ctx_tree_mcp.wire.spool.project_root`, the rule
    the hooks follow too)."""
    return Path(wire_spool.project_root(explicit))


def spool_dir(home: Path, root: os.PathLike[str] | str) -> Path:
    """``<home>/spool/<root key>``, the capture spool of a project root (it may not exist;
    its layout: ``wire/spool.py``)."""
    return Path(wire_spool.spool_dir(home, root))


#: Tool calls between writes of the usage counters (see :meth:`App.count`).
COUNTER_FLUSH_CALLS = 25


@dataclass
class UsageCounters:
    """Usage counters per tool: ``tokens_served`` and ``tokens_source`` (tokens, by the
    estimator of docs/tools.md), ``reads`` and ``greps`` (calls), kept in memory until
    :meth:`take` hands them over for one write (``Store.record_usage``). Thread-safe: a stop
    on a signal takes them from its own thread while a call adds."""

    #: Calls after which :meth:`add` says the counters are due to be written.
    flush_every: int = COUNTER_FLUSH_CALLS
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    _calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, tool: str, **usage: int) -> bool:
        """Add one call's ``usage`` to ``tool``'s counters; True when they are due."""
        with self._lock:
            for name, value in usage.items():
                key = (tool, name)
                self._counts[key] = self._counts.get(key, 0) + int(value)
            self._calls += 1
            return self._calls >= self.flush_every

    def take(self) -> dict[tuple[str, str], int]:
        """``{(tool, counter): value}`` added since the last take, and start again from 0."""
        with self._lock:
            counts, self._counts, self._calls = self._counts, {}, 0
        return counts


@dataclass
class App:
    """Root, config, store and session of one server or CLI process."""

    root: Path
    home: Path | None = None
    #: Open the store read-only (the inspector): nothing is created, migrated or written.
    readonly: bool = False
    #: The usage counters not written yet (:class:`UsageCounters`; :meth:`count`).
    usage: UsageCounters = field(default_factory=UsageCounters, init=False)
    #: The tool calls running now and when the last ended (:class:`CallsClock`, marked by
    #: ``run_tool``): the project index writes between them.
    calls: CallsClock = field(default_factory=CallsClock, init=False)
    #: The vector backlog counts semantic search's note gives (:class:`BacklogCache`).
    backlogs: BacklogCache = field(default_factory=BacklogCache, init=False)
    #: The file views served last (:class:`ViewCache`), shared by :meth:`with_session`.
    views: ViewCache = field(default_factory=ViewCache, init=False)
    #: The project's store as this process holds it (:class:`StoreHandle`: lazy open, the
    #: in-memory stand-in and its retries), shared by :meth:`with_session`; it clears
    #: :attr:`views` whenever the store is swapped.
    stores: StoreHandle = field(init=False)

    #: The session key: the session's name, kept in its ``session://<key>`` node and in the
    #: ``session_id`` metadata of what is captured under it (docs/data-model.md). The server
    #: passes Claude Code's ``CLAUDE_CODE_SESSION_ID`` when it has one (the hooks' session,
    #: docs/capture.md); the CLI passes ``"cli"`` so its calls share one session node; the
    #: default is a fresh ULID per process.
    session_key: str = field(default_factory=_fresh_session_key)
    #: False for an App over a store someone else opened (:meth:`over`, :meth:`with_session`):
    #: :meth:`close` then leaves the store open.
    owns_store: bool = True

    def __post_init__(self) -> None:
        self.stores = StoreHandle(
            self.root, self.home, readonly=self.readonly, on_swap=self.views.clear
        )

    @classmethod
    def over(cls, root: Path, store: Store, config: Config, home: Path | None = None) -> App:
        """An App on an already open ``store`` and loaded ``config`` (the capture walker's
        thread, which owns its own connection)."""
        app = cls(Path(root), home, owns_store=False)
        app.stores.use(store)
        app.__dict__["config"] = config
        return app

    def with_session(self, session_key: str) -> App:
        """A sibling sharing this App's store handle (:attr:`stores`, not owned: its
        :meth:`close` leaves the store open), config, path policy and file views, whose
        captures hang under the session node of ``session_key``."""
        other = type(self)(self.root, self.home, session_key=session_key, owns_store=False)
        for name in ("config", "policy"):
            if name in self.__dict__:
                other.__dict__[name] = self.__dict__[name]
        other.views = self.views
        other.stores = self.stores
        return other

    @cached_property
    def recorder(self) -> Recorder:
        """What this App's session stores (:class:`~ctx_tree_mcp.recorder.Recorder`): its
        session node and the outputs captured under it, through :attr:`stores`, cut at
        ``capture.maxBytes`` of :attr:`config`."""
        return Recorder(
            self.stores,
            self.root,
            self.session_key,
            max_bytes=lambda: self.config.data["capture"]["maxBytes"],
        )

    @cached_property
    def config(self) -> Config:
        """Merged configuration (docs/configuration.md). Raises ``ConfigError`` for a malformed file."""
        from ctx_tree_schema import load_config
        from ctx_tree_store import ctx_tree_home

        return load_config(self.home or ctx_tree_home(), self.root)

    @cached_property
    def policy(self) -> PathPolicy:
        """The path policy of the project root (docs/security.md)."""
        from ctx_tree_mcp.policy.paths import PathPolicy

        return PathPolicy(self.root)

    @property
    def store_file(self) -> Path:
        """The store file of this project under the ctx-tree home (``stores.path``)."""
        return self.stores.path

    @property
    def store(self) -> Store:
        """The project's store (``stores.store``, :class:`StoreHandle`): opened and migrated
        on first use; read-only when :attr:`readonly` (raises ``FileNotFoundError`` when there
        is none yet); a private in-memory stand-in while the file cannot be written or is
        damaged (``stores.not_storing`` says why)."""
        return self.stores.store

    @cached_property
    def _embedder(self) -> tuple[HttpEmbedder | Model2VecEmbedder | None, str | None]:
        from ctx_tree_walkers import ProviderUnavailable

        from ctx_tree_mcp.providers import SettingsError, embedder_from_config

        try:
            return embedder_from_config(self.config), None
        except (SettingsError, ProviderUnavailable) as exc:
            return None, f"embedding provider not usable ({exc}): keyword results"

    def embedder(self) -> tuple[HttpEmbedder | Model2VecEmbedder | None, str | None]:
        """``(provider, None)``; ``(None, None)`` when none is configured; ``(None, reason)``
        when the configured one cannot be built (unknown name, model not loadable)."""
        return self._embedder

    @cached_property
    def _summarizer(self) -> Any:
        from ctx_tree_mcp.providers import summarizer_from_config

        return summarizer_from_config(self.config)

    def walker_providers(self) -> dict[str, Any]:
        """The walkers' providers, as ``ctx_tree_walkers.Coordinator`` and ``run_once`` take
        them: ``{"embedder": …, "summarizer": …}``, each None when off or not buildable (the
        ``embedding``, ``dedupe`` and ``summarizer`` walkers then report ``off``). Built
        once per App from its config (``docs/walkers.md``), closed by :meth:`close`. Raises
        nothing but a config file's ``ConfigError``."""
        return {"embedder": self.embedder()[0], "summarizer": self._summarizer}

    def hidden(self, node: Node | NodeRow | None) -> bool:
        """True when ``node`` comes from a file that is now on the denylist (e.g. a path added
        to ``.ctx-tree/path.deny`` after it was read): such nodes are never shown."""
        rel = node.metadata.get("relpath") if node is not None else None
        return isinstance(rel, str) and bool(rel) and self.policy.is_denied(rel)

    def count(self, tool: str, **usage: int) -> None:
        """Add to the usage counters of ``tool`` (``tokens_served``, ``tokens_source``,
        ``reads``, ``greps``), kept in memory and written to the store every
        :data:`COUNTER_FLUSH_CALLS` calls and at :meth:`close` (totals, and per UTC day and
        tool for the inspector): a cached read then does no write transaction of its own. A
        crash loses at most that many calls' worth of statistics, nothing else; so does a
        store fault while writing them (a full disk, a lock held too long): logged, never
        raised, so the call's answer stands."""
        if self.usage.add(tool, **usage):
            self._flush_counters_or_log()

    def _flush_counters_or_log(self) -> None:
        """:meth:`flush_counters`, a store fault (``StoreError``, a lock held too long) logged
        instead of raised: only statistics are lost, the call's answer stands."""
        from ctx_tree_store import StoreError, is_busy

        try:
            self.flush_counters()
        except Exception as exc:
            if not (isinstance(exc, StoreError) or is_busy(exc)):
                raise
            log.warning("usage counters not written: %s", exc)

    def flush_counters(self) -> None:
        """Write the in-memory usage counters to the store (one transaction). Thread-safe: the
        stop on a signal calls it from its own thread (``ending.py``); counters taken by one
        call are written by that call only. On a store error they are lost (it propagates)."""
        usage = self.usage.take()
        if usage and self.stores.opened:
            self.store.record_usage(usage)

    def close(self) -> None:
        """Write the usage counters and close the store. A store fault here (disk full, store
        deleted) loses only those statistics: it is logged, never raised, so the answer the
        process already computed still stands."""
        embedder = self.__dict__.get("_embedder", (None, None))[0]
        for provider in (embedder, self.__dict__.get("_summarizer")):
            if provider is not None and hasattr(provider, "close"):
                provider.close()
        if self.stores.opened:
            self._flush_counters_or_log()
            if self.owns_store:
                self.stores.close()
