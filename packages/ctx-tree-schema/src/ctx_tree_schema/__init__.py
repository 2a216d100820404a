"""ctx-tree's vocabulary: node kinds, statuses, edge kinds, records, filters, config and DDL.

Everything public is listed in ``__all__``; other modules are private.
"""

from ._config import (
    DEFAULTS,
    MINIMUMS,
    Config,
    ConfigData,
    ConfigError,
    ConfigValue,
    ConfigWarning,
    load_config,
    merge_config,
)
from ._ddl import FTS_TOKENIZE, MIGRATIONS, OUTSIDE_FILE_TREES, SCHEMA_VERSION, Migration
from ._errors import SchemaError
from ._kinds import TRANSITIONS, EdgeKind, NodeKind, NodeStatus, can_transition
from ._metadata import (
    FileChunkMeta,
    FileRootMeta,
    GrepMeta,
    MonitorMeta,
    NoteMeta,
    PromptMeta,
    ResponseMeta,
    SessionMeta,
    SummaryMeta,
    WebChunkMeta,
)
from ._records import Edge, Filters, Node

__all__ = [
    "DEFAULTS",
    "FTS_TOKENIZE",
    "MIGRATIONS",
    "MINIMUMS",
    "OUTSIDE_FILE_TREES",
    "SCHEMA_VERSION",
    "TRANSITIONS",
    "Config",
    "ConfigData",
    "ConfigError",
    "ConfigValue",
    "ConfigWarning",
    "Edge",
    "EdgeKind",
    "FileChunkMeta",
    "FileRootMeta",
    "Filters",
    "GrepMeta",
    "Migration",
    "MonitorMeta",
    "Node",
    "NodeKind",
    "NodeStatus",
    "NoteMeta",
    "PromptMeta",
    "ResponseMeta",
    "SchemaError",
    "SessionMeta",
    "SummaryMeta",
    "WebChunkMeta",
    "__version__",
    "can_transition",
    "load_config",
    "merge_config",
]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata: ``pyproject.toml`` is the one source."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import version

    return version("ctx-tree-schema")
