"""Path policy (``docs/security.md``): resolve a tool's ``path`` inside the root, or refuse it.

Refused, before any file is opened and before any store write: paths that resolve outside the
root (``..``, absolute paths elsewhere, symlinks pointing out), paths matching the secret-file
denylist or ``<root>/.ctx-tree/path.deny`` (gitignore syntax, matched with pathspec, in any
letter case: ``.ENV`` and ``ID_RSA`` are ``.env`` and ``id_rsa`` on macOS and Windows), paths
whose file or directory names hold what the redactor takes for a secret (both checked on the
path as given and on the symlink-resolved path), and, for reads, anything that is not a
regular file (directories, FIFOs, devices, sockets).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from .errors import PathMissing, ToolInputError
from .surface import tool_ref

#: The secret-file denylist (gitignore syntax, lower case; matched case-insensitively).
DENYLIST: tuple[str, ...] = (
    ".env*",
    ".envrc",
    "**/.ssh/**",
    "**/.aws/credentials",
    "**/.aws/config",
    "**/.gnupg/**",
    "**/.npmrc",
    "**/.pypirc",
    "**/.netrc",
    "**/id_rsa*",
    "**/id_ed25519*",
    "**/*.pem",
    "**/*.key",
    "**/*.pfx",
    "**/*.p12",
    "**/service-account*.json",
    "**/credentials.json",
)


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A path inside the root: ``absolute`` (symlinks resolved) and ``relative`` (POSIX, to root)."""

    absolute: Path
    relative: str


class PathPolicy:
    """The root and its denylist. ``root`` must be an existing directory."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    @cached_property
    def deny_patterns(self) -> tuple[str, ...]:
        """The denylist plus the lines of ``<root>/.ctx-tree/path.deny`` (extends, never replaces)."""
        extra: list[str] = []
        deny_file = self.root / ".ctx-tree" / "path.deny"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            extra = [
                line.strip()
                for line in deny_file.read_text(encoding="utf-8").splitlines()
                if line.strip()
                and not line.lstrip().startswith("#")
                and not line.lstrip().startswith("!")
            ]
        return DENYLIST + tuple(extra)

    @cached_property
    def _spec(self):
        from pathspec import GitIgnoreSpec

        # matched on lower-cased paths: case-insensitive file systems make ``.Env.Local`` the
        # same file as ``.env.local``
        return GitIgnoreSpec.from_lines(p.lower() for p in self.deny_patterns)

    def is_denied(self, relative: str) -> bool:
        """True when ``relative`` (POSIX, relative to root) matches the denylist, lies inside
        a directory that does (e.g. anything under ``.ssh/``), or holds what the redactor takes
        for a secret (:func:`holds_secret`). Gitignore semantics: ``.env*`` matches at any depth. Directory verdicts are cached (a grep checks thousands of paths
        under few directories). Case-insensitive."""
        rel = relative.strip("/").lower()
        if not rel or rel == ".":
            return False
        directory, _, _name = rel.rpartition("/")
        return (
            (bool(directory) and self._denied_dir(directory))
            or self._spec.match_file(rel)
            or holds_secret(relative)
        )

    def _denied_dir(self, directory: str) -> bool:
        cache = self._dir_cache
        # up to the nearest directory with a verdict, then down again (a loop, not recursion:
        # a path may be thousands of directories deep)
        todo = []
        while directory and directory not in cache:
            todo.append(directory)
            directory = directory.rpartition("/")[0]
        denied = bool(directory) and cache[directory]
        for d in reversed(todo):
            denied = cache[d] = denied or self._spec.match_file(d + "/")
        return denied

    @cached_property
    def _dir_cache(self) -> dict[str, bool]:
        return {}

    def resolve(self, path: str, argument: str = "path") -> ResolvedPath:
        """Resolve a tool's path argument (relative to root, or absolute inside it).

        Raises :class:`ToolInputError` naming ``argument`` for an empty path, a NUL byte, a path
        outside the root (also via symlinks), or a denylisted path (as given or as resolved).
        """
        if not isinstance(path, str) or not path.strip():
            raise ToolInputError(argument, "give a file path relative to the project root")
        if "\x00" in path:
            raise ToolInputError(argument, "contains a NUL byte; give a plain file path")
        given = Path(path).expanduser()
        joined = given if given.is_absolute() else self.root / given
        lexical = Path(os.path.normpath(joined))
        if not _inside(lexical, self.root):
            raise ToolInputError(
                argument, f"{path!r} is outside the project root {self.root}; give a path inside it"
            )
        lexical_rel = lexical.relative_to(self.root).as_posix()
        if holds_secret(lexical_rel):
            raise ToolInputError(
                argument,
                f"{path!r} looks like a secret (a token in a file or directory name) and would be "
                "stored with it (docs/security.md); such a file is never read: rename it to read it",
            )
        if self.is_denied(lexical_rel):
            raise ToolInputError(
                argument,
                f"{path!r} matches the secret-file denylist (docs/security.md); it is never read",
            )
        try:
            real = lexical.resolve(strict=False)
        except (OSError, RuntimeError):
            raise ToolInputError(argument, f"{path!r} cannot be resolved (symlink loop?)") from None
        if not _inside(real, self.root):
            raise ToolInputError(
                argument, f"{path!r} resolves outside the project root; give a path inside it"
            )
        rel = real.relative_to(self.root).as_posix() if real != self.root else "."
        if self.is_denied(rel):
            raise ToolInputError(
                argument,
                f"{path!r} points at a denylisted secret file (docs/security.md); it is never read",
            )
        return ResolvedPath(real, rel)

    def resolve_file(
        self, path: str, argument: str = "path"
    ) -> tuple[ResolvedPath, os.stat_result]:
        """:meth:`resolve`, then require an existing regular file. Returns it and its ``stat``.

        Raises :class:`ToolInputError` for a missing path, a directory, a FIFO, a device or a socket.
        """
        resolved = self.resolve(path, argument)
        try:
            st = os.stat(resolved.absolute)
        except FileNotFoundError:
            raise PathMissing(
                argument, f"{path!r} does not exist; check the path (relative to {self.root})"
            ) from None
        except OSError as exc:
            raise ToolInputError(argument, f"{path!r} cannot be read: {exc.strerror}") from None
        if stat.S_ISDIR(st.st_mode):
            raise ToolInputError(
                argument,
                f"{path!r} is a directory; use {tool_ref('ctx_tree_grep')} to search it, or give a file",
            )
        if not stat.S_ISREG(st.st_mode):
            raise ToolInputError(
                argument, f"{path!r} is not a regular file (FIFO, device or socket); it is not read"
            )
        return resolved, st


@lru_cache(maxsize=65536)
def holds_secret(path: str) -> bool:
    """True when the redactor would change ``path``: a file named after a token would keep
    the token in its node's source, metadata and grep lines. Cached: a grep asks for every
    file it matched, and the same files again at the next grep (about 20 us a path uncached)."""
    from .redact import redact_text

    return redact_text(path) != path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
