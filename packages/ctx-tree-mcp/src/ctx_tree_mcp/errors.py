"""The ``CtxTreeError`` tree: every exception ``ctx_tree_mcp`` raises of its own.

::

    Exception
    └── CtxTreeError
        ├── StartError                        the server cannot start (serve/)
        ├── ToolInputError (ValueError)       bad tool input: becomes an MCP tool error (isError)
        │   └── PathMissing                   the path given does not exist
        ├── NeedsBacktracking                 a pattern ripgrep refuses (engines/grep/ripgrep.py)
        ├── RipgrepMissing (RuntimeError)     no ``rg`` to run (engines/grep/ripgrep.py)
        ├── Binary (ValueError)               bytes that are no text (engines/files/textcodec.py)
        ├── MixedModels (ValueError)          vectors of another model (engines/search/retrieval.py)
        ├── SandboxRefused                    the host's sandbox cannot start (engines/shell/sandbox.py)
        ├── SettingsError (ValueError)        an unknown provider name (providers/settings.py)
        └── ReembedFailed (RuntimeError)      the provider failed midway (cli/reembed.py)

The builtin base in parentheses is kept for callers that catch it. The library packages have
roots of their own (``SchemaError``, ``StoreError``, ``ChunkError``, ``ComposeError``,
``WalkerError``); a provider's ``ProviderUnavailable`` is the walkers' (``WalkerError``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: An unbroken run of characters longer than this in an error message (an echoed argument: a
#: 100,000-character symbol, path or node id) is shortened, so a bad call costs the caller a
#: line of tokens, not the size of what it sent.
MAX_ECHO_CHARS = 200
_LONG_RUN = re.compile(r"\S{%d,}" % (MAX_ECHO_CHARS + 1))


def _shorten(match: re.Match[str]) -> str:
    run = match.group()
    return f"{run[:100]}…[{len(run) - 120:,} chars]…{run[-20:]}"


#: What to do about a configuration key ctx-tree cannot use ...
CONFIG_FIX = "fix or remove that key (docs/configuration.md)"
#: ... and about a configuration file it cannot load at all (not JSON, not an object).
CONFIG_FILE_FIX = (
    "fix the file (one JSON object, UTF-8) or delete it to use the defaults (docs/configuration.md)"
)


def config_fix(exc: Exception) -> str:
    """What to do about ``exc``, a ``ConfigError``: :data:`CONFIG_FILE_FIX` when the file
    itself is at fault, else :data:`CONFIG_FIX`."""
    return CONFIG_FILE_FIX if getattr(exc, "whole_file", False) else CONFIG_FIX


def config_error(exc: Exception) -> str:
    """The line that reports a configuration file that cannot be loaded, with its fix."""
    return f"configuration error: {exc}; {config_fix(exc)}"


def in_words(exc: BaseException) -> str:
    """What went wrong, as a user reads it, never an exception's class name for a fault of the
    machine: an OS error's own words and the file it names (``/x/store.db: Is a directory``),
    SQLite's message (``unable to open database file``). Any other exception is a bug of ours:
    ``internal error (KeyError: 'x')``, its class being what a bug report needs."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    import apsw

    if isinstance(exc, apsw.Error):
        return str(exc) or "SQLite failed without saying why"
    return f"internal error ({type(exc).__name__}: {exc})"


def number_flag(
    flag: str, example: int | float, span: str = "", *, whole: bool = True
) -> Callable[[str], int | float]:
    """An argparse ``type=`` for the numeric flag ``flag``: a bad value is refused with what
    to give instead (argparse names the flag first), e.g. ``argument --budget: 'abc' is not a
    whole number; give one such as --budget 4000 (100..50000)``. ``span`` is the allowed
    range as docs/tools.md writes it; the range itself is checked where the value is used."""
    import argparse

    kind, convert = ("whole number", int) if whole else ("number", float)

    def parse(text: str) -> int | float:
        try:
            return convert(text)
        except ValueError:
            hint = f" ({span})" if span else ""
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a {kind}; give one such as {flag} {example}{hint}"
            ) from None

    parse.__name__ = kind
    return parse


class CtxTreeError(Exception):
    """Base class of every error ``ctx_tree_mcp`` raises."""


class StartError(CtxTreeError):
    """The server cannot start; the message says why and what to fix."""


class ToolInputError(CtxTreeError, ValueError):
    """Bad tool input. ``str(err)`` names the argument and says what to do instead.

    Raised before any file read or store write, so nothing is lost. A long unbroken run in
    ``message`` (an echoed argument) is shortened to about 140 characters.
    """

    def __init__(self, argument: str, message: str) -> None:
        message = _LONG_RUN.sub(_shorten, message)
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


class PathMissing(ToolInputError):
    """The path given does not exist (a :class:`ToolInputError`; callers that care, e.g. to
    mark a deleted file's nodes stale, catch this type)."""
