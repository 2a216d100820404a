"""ctx-tree's vocabulary: node kinds, statuses, edge kinds, records, filters, config and DDL.

Everything public is listed in ``__all__``; other modules are private.
"""

from .config import DEFAULTS, Config, ConfigError, ConfigWarning, load_config, merge_config
from .ddl import MIGRATIONS, SCHEMA_VERSION, Migration
from .kinds import TRANSITIONS, EdgeKind, NodeKind, NodeStatus, can_transition
from .metadata import (
    FileChunkMeta,
    FileRootMeta,
    GrepMeta,
    MonitorMeta,
    NoteMeta,
    PromptMeta,
    SessionMeta,
    SummaryMeta,
    WebChunkMeta,
)
from .records import Edge, Filters, Node

__version__ = "0.1.0"

__all__ = [
    "DEFAULTS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "TRANSITIONS",
    "Config",
    "ConfigError",
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
    "SessionMeta",
    "SummaryMeta",
    "WebChunkMeta",
    "can_transition",
    "load_config",
    "merge_config",
]
