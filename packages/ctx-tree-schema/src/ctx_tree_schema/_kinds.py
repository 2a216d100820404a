"""Node kinds, node statuses and edge kinds (docs/data-model.md)."""

from __future__ import annotations

from enum import StrEnum


class NodeKind(StrEnum):
    """What a node holds. The spine parent of each kind is given in docs/data-model.md."""

    SESSION = "session"
    FILE_CHUNK = "file_chunk"
    TOOL_OUTPUT = "tool_output"
    WEB_CHUNK = "web_chunk"
    PROMPT = "prompt"
    THINKING = "thinking"
    RESPONSE = "response"
    SUMMARY = "summary"
    NOTE = "note"
    OBSERVATION = "observation"


class NodeStatus(StrEnum):
    """Lifecycle of a node (docs/data-model.md status state machine)."""

    PENDING = "pending"
    LIVE = "live"
    STALE = "stale"
    SUPERSEDED = "superseded"
    PRUNED = "pruned"


class EdgeKind(StrEnum):
    """Lateral relationships kept in the ``edges`` table (docs/data-model.md)."""

    DERIVED_FROM = "derived_from"
    REFERENCES = "references"
    SUMMARIZES = "summarizes"
    SUPERSEDES = "supersedes"
    FOLLOWS = "follows"


#: Legal status transitions (docs/data-model.md): pending → live → stale → superseded → pruned,
#: with ``drop`` (row deletion) from pending handled by the store (``Store.drop``), plus what
#: the tools and walkers need: live → superseded (a newer read replaced it directly),
#: live/stale → pruned (the pruner), and stale → live (a re-read found the file unchanged).
#: Nothing leaves ``pruned``; ``pending`` leaves only by promotion to live or by drop.
TRANSITIONS: dict[NodeStatus, frozenset[NodeStatus]] = {
    NodeStatus.PENDING: frozenset({NodeStatus.LIVE}),
    NodeStatus.LIVE: frozenset({NodeStatus.STALE, NodeStatus.SUPERSEDED, NodeStatus.PRUNED}),
    NodeStatus.STALE: frozenset({NodeStatus.LIVE, NodeStatus.SUPERSEDED, NodeStatus.PRUNED}),
    NodeStatus.SUPERSEDED: frozenset({NodeStatus.PRUNED}),
    NodeStatus.PRUNED: frozenset(),
}


def can_transition(old: NodeStatus | str, new: NodeStatus | str) -> bool:
    """Return True when ``old → new`` is a legal status change (docs/data-model.md)."""
    return NodeStatus(new) in TRANSITIONS[NodeStatus(old)]
