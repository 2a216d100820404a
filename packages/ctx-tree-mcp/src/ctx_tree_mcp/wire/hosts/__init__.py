"""One module per agent host whose hooks ctx-tree runs (docs/install.md, docs/capture.md).

Each module ``hosts/<host>.py`` says what that host's hooks are and can do:

- ``EVENTS``: ``{host event: (the hook's arguments, matcher or None)}``, what
  ``ctx-tree install`` writes into the host's configuration (and, for Claude Code, what
  ``plugin/hooks/hooks.json`` holds): the hook runs ``ctx_tree_hook.py <arguments>``;
- ``CONTEXT``: the host events whose answer can add text for the model;
- ``REWRITE``: how its pre-tool event can rewrite a tool call's input, where the new input
  goes in the answer ('' when it cannot), for the routing rules (``wire/route.py``);
- ``translate(event, payload)``: the host's payload as ctx-tree's hook events, each with a
  payload in Claude Code's field names (``[(hook event, payload)]``; [] for what is not
  mapped). Every field is untrusted: it never raises for a field's type, and passes on what
  it cannot read for the capture to note (``wire/payload.py``); the helpers the mappings
  share are below;
- ``answer(event, answers)``: the host's stdout for ctx-tree's answers to those events
  (``wire/answer.py``).

The hook loads a host's module by the name it is run with (``ctx_tree_hook.py HOST EVENT``;
Claude Code's with ``ctx_tree_hook.py EVENT``). Adding a host is a module here and a row in
``ctx-tree install``'s table (``cli/install.py``: its files). Standard library only, Python
3.8+ (loaded by the hooks).
"""

from ctx_tree_mcp.wire.payload import mapping, string, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Seconds a host gives one hook run before it stops waiting (Gemini CLI counts milliseconds).
HOOK_TIMEOUT_S = 10

#: The keys of the other hosts' tool results that hold their text, first found wins.
HOST_TEXT_KEYS = ("llmContent", "text_result_for_llm", "text", "content", "output", "result")
#: Argument names of the other hosts' tools -> Claude Code's.
ARG_NAMES = {
    "filePath": "file_path",
    "path": "file_path",
    "dir_path": "path",
    "include": "glob",
    "includePattern": "glob",
    "cmd": "command",
}


def host_text(value: object) -> str:
    """The text of another host's tool result (:data:`HOST_TEXT_KEYS`)."""
    return text_of(value, HOST_TEXT_KEYS)


def arguments(value: object, rename: "dict[str, str] | None" = None) -> "dict[str, Any]":
    """A tool's arguments with Claude Code's names (:data:`ARG_NAMES`); {} for no object."""
    out: dict[str, Any] = {}
    for key, item in mapping(value).items():
        out.setdefault((rename or ARG_NAMES).get(key, key), item)
    return out


def common_fields(payload: "dict[str, Any]", **extra: object) -> "dict[str, Any]":
    """The fields every event has, in Claude Code's names, taken from either spelling (the
    values as the host sent them: the capture checks their types)."""
    out = {
        "session_id": payload.get("session_id") or payload.get("sessionId") or "",
        "cwd": payload.get("cwd") or "",
        "transcript_path": payload.get("transcript_path") or payload.get("transcriptPath"),
    }
    out.update(extra)
    return out


def first_root(roots: object) -> str:
    """The first workspace root: a path string or an object holding one (``file://`` URIs
    made paths); '' when there is none."""
    first = roots[0] if isinstance(roots, list) and roots else ""
    if isinstance(first, dict):
        first = first.get("path") or first.get("uri") or ""
    first = string(first)
    return first[7:] if first.startswith("file://") else first
