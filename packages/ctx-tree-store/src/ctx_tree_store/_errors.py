"""The store's exceptions: one root, :class:`StoreError`, for every error the store raises."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of the store's errors."""


class NodeNotFound(StoreError, KeyError):
    """A node id that is not in the store. ``args[0]`` is the id."""

    def __str__(self) -> str:
        return f"no node with id {self.args[0]!r}"


class IllegalTransition(StoreError, ValueError):
    """A status change the docs/data-model.md state machine does not allow; nothing was changed."""


class SchemaVersionError(StoreError, RuntimeError):
    """The store was written by a newer ctx-tree than this one (its ``user_version`` is higher).

    ``found`` is the file's schema version, ``supported`` this code's
    (:data:`ctx_tree_schema.SCHEMA_VERSION`).
    """

    def __init__(self, where: str, found: int, supported: int) -> None:
        super().__init__(
            f"{where}: store schema version {found} is newer than this ctx-tree supports "
            f"({supported}); upgrade ctx-tree or point CTX_TREE_HOME elsewhere"
        )
        self.found = found
        self.supported = supported
