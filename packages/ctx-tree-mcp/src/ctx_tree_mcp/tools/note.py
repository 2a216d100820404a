"""``ctx_tree_note``: keep a note (a finding, a decision) in the store under the session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.spec import Cli, Input, ToolSpec

if TYPE_CHECKING:
    from ctx_tree_schema import NoteMeta

    from ctx_tree_mcp.app import App

DESCRIPTION = "Save a note (finding, decision) for later recall; returns its node id."
MAX_NOTE_CHARS = 20_000


class Args(Input):
    """Arguments of ``ctx_tree_note``."""

    content: Annotated[str, Cli("the note", positional=True)]
    title: Annotated[str | None, Cli("short title, at most 200 characters (searchable)")] = None
    parent_id: Annotated[
        str | None, Cli("attach under this node instead of the current session", flag="--parent")
    ] = None


def note(app: App, content: str, title: str | None = None, parent_id: str | None = None) -> str:
    """Handle ``ctx_tree_note``; returns ``"note saved: node_id=<id>"``.

    Raises ``ToolInputError`` for empty or oversized content (> 20,000 characters) or an
    unknown ``parent_id``. Secrets in the note are redacted before insert.
    """
    from ctx_tree_schema import NodeKind
    from ctx_tree_store import new_id

    if not isinstance(content, str) or not content.strip():
        raise ToolInputError("content", "give the note's text")
    if len(content) > MAX_NOTE_CHARS:
        raise ToolInputError(
            "content", f"{len(content)} characters; keep a note under {MAX_NOTE_CHARS}"
        )
    if title is not None and (not isinstance(title, str) or len(title) > 200):
        raise ToolInputError("title", "expected a short string (at most 200 characters)")
    if parent_id is not None and app.store.get(parent_id) is None:
        raise ToolInputError(
            "parent_id", f"no node {parent_id!r}; leave it out to attach to the session"
        )
    app.stores.require_persistent("the note")
    nid = new_id()
    meta: NoteMeta = {
        "title": title or content.strip().splitlines()[0][:80],
        "session_id": app.session_key,
    }
    app.recorder.capture(
        NodeKind.NOTE,
        content,
        source_uri=f"note://{nid}",
        metadata=meta,
        parent_id=parent_id,
        pending=False,
        terms=title or "",
        node_id=nid,
    )
    return f"note saved: node_id={nid}\n"


SPEC = ToolSpec(
    name="ctx_tree_note",
    description=DESCRIPTION,
    args=Args,
    handler=note,
    example={
        "content": "Retry logic lives in App.run; backoff capped at 30 s",
        "title": "retry",
    },
    annotations={"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
    help="store a note",
)
