"""A host's hook payload read as untrusted input (docs/capture.md, "Payloads of any shape").

Any field of any host's payload may be missing or of another type than the host documents, and
any string may hold half of a UTF-16 surrogate pair (a tool output cut inside an emoji). A
:class:`Reader` reads a payload field by field: each read returns the value when it has the
type asked for; a field of another type is noted (its path and type, never its content) and
the read gives the default, so the rest of the event is kept and the hook logs one line naming
what it could not keep. Every string a reader returns is :func:`clean`.

Standard library only, Python 3.8+ (loaded by the hooks).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ctx-tree's hook events, and Claude Code's name for each: the shape every payload is read in
#: and every answer is first given in (``hookEventName``; ``events.HOOK_EVENTS``).
CLAUDE_NAMES = {
    "session-start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "pre-tool": "PreToolUse",
    "post-tool": "PostToolUse",
    "post-tool-failure": "PostToolUseFailure",
    "stop": "Stop",
}
#: The keys of a Claude Code tool response that hold its text, first found wins.
TEXT_KEYS = ("text", "content", "result", "output")


def clean(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (half of a pair, or an undecodable byte
    carried as one) replaced by U+FFFD, and a pair sent as its two halves joined into its
    character: what a store can hold. The text itself when it has none (the usual case)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def text_of(value: object, keys: "tuple[str, ...]" = TEXT_KEYS) -> str:
    """Text out of a tool response: a string, a list of text blocks, or an object holding one
    under the first of ``keys`` it has; '' for anything else. Not cleaned."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(v, keys) for v in value) if t)
    if isinstance(value, dict):
        for key in keys:
            if key in value:
                return text_of(value[key], keys)
    return ""


def mapping(value: object) -> "dict[str, Any]":
    """``value`` when it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}


def string(value: object) -> str:
    """``value`` when it is a string, else ''."""
    return value if isinstance(value, str) else ""


_MISSING = object()


class Reader:
    """Typed reads of one payload by dotted path (``"tool_input.file_path"``); what had another
    type is in :attr:`problems`, as ``"path (type)"``."""

    __slots__ = ("data", "problems")

    def __init__(self, data: object) -> None:
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}
        self.problems: list[str] = []

    def get(self, path: str) -> "Any":
        """The raw value at ``path``, or None when it is missing (a step that is not an object
        is noted)."""
        value: Any = self.data
        done = ""
        for key in path.split("."):
            if not isinstance(value, dict):
                if value is not None:
                    self.note(done, value, "an object")
                return None
            value = value.get(key, _MISSING)
            if value is _MISSING:
                return None
            done = done + "." + key if done else key
        return value

    def note(self, path: str, value: object, wanted: str) -> None:
        """Remember that ``path`` held ``value``, which is not ``wanted``."""
        entry = "%s (%s, not %s)" % (path, type(value).__name__, wanted)
        if entry not in self.problems:
            self.problems.append(entry)

    def string(self, path: str) -> "str | None":
        """The string at ``path``; None when it is missing or of another type (noted)."""
        value = self.get(path)
        if isinstance(value, str):
            return clean(value)
        if value is not None:
            self.note(path, value, "a string")
        return None

    def text(self, path: str) -> str:
        """The string at ``path``, '' when there is none."""
        value = self.string(path)
        return "" if value is None else value

    def ident(self, path: str) -> str:
        """An identifier (session, prompt, tool call): a string, or a number written out; ''
        for anything else (noted)."""
        value = self.get(path)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.text(path)

    def number(self, path: str) -> "int | None":
        """A whole number at ``path`` (a float is rounded); None for anything else (noted)."""
        value = self.get(path)
        if isinstance(value, bool) or value is None:
            if value is not None:
                self.note(path, value, "a number")
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value == value and abs(value) < 2**63:
            return int(value)
        self.note(path, value, "a number")
        return None

    def mapping(self, path: str) -> "dict[str, Any]":
        """The object at ``path``, {} when there is none (another type is noted)."""
        value = self.get(path)
        if isinstance(value, dict):
            return value
        if value is not None:
            self.note(path, value, "an object")
        return {}

    def content(self, path: str, keys: "tuple[str, ...]" = TEXT_KEYS) -> str:
        """The text of a tool response at ``path`` (:func:`text_of`); a number or a boolean
        there, or an object or a list holding no text, is noted."""
        value = self.get(path)
        if value is not None and not isinstance(value, (str, list, dict)):
            self.note(path, value, "text")
            return ""
        text = text_of(value, keys)
        if not text and value:  # an object or a list holding no text
            self.note(path, value, "text")
        return clean(text)
