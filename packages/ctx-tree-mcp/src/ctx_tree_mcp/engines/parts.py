"""The parts of ``App`` that more than one engine names (docs/architecture.md: engines never
take ``App``; each names the parts it uses, and ``App`` meets them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ctx_tree_schema import Config
    from ctx_tree_store import Store

    from ctx_tree_mcp.recorder import Recorder


class StoreParts(Protocol):
    """The caller's ``App`` as an engine that reads the store sees it: its store and its
    config."""

    @property
    def store(self) -> Store:
        """The project's store (``App.store``)."""

    @property
    def config(self) -> Config:
        """The merged configuration (``App.config``)."""


class SessionParts(StoreParts, Protocol):
    """What storing under the session uses of the caller's ``App``: its store, its config
    (``capture.*``) and its session's recorder."""

    @property
    def recorder(self) -> Recorder:
        """The session's recorder (``App.recorder``)."""
