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
import re
import stat
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.surface import tool_ref
from ctx_tree_mcp.errors import PathMissing, ToolInputError
from ctx_tree_mcp.policy.names import existing, shown

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

#: The secret-file denylist, each pattern with what such a file holds (gitignore syntax, lower
#: case; matched case-insensitively). Aligned with the file-name rules of maintained scanners:
#: gitleaks' path rule (``pkcs12-file``), the file signatures of gitrob and shhgit (key stores,
#: shell histories, tool credential files), and the credential files of the tools themselves
#: (docs/security.md#what-is-never-read says where each comes from).
DENYLIST_SOURCES: tuple[tuple[str, str], ...] = (
    # environment files
    (".env*", "dotenv files (.env, .env.local, .env.production)"),
    (".envrc", "direnv"),
    # keys and key stores
    ("**/.ssh/**", "SSH keys, known hosts, config"),
    ("**/.gnupg/**", "GnuPG keyrings"),
    ("**/id_rsa*", "SSH private keys"),
    ("**/id_dsa*", "SSH private keys"),
    ("**/id_ecdsa*", "SSH private keys"),
    ("**/id_ed25519*", "SSH private keys"),
    ("**/*.pem", "PEM keys and certificates"),
    ("**/*.key", "private keys"),
    ("**/*.ppk", "PuTTY private keys"),
    ("**/*.p8", "PKCS #8 private keys (App Store Connect AuthKey_*.p8)"),
    ("**/*.pfx", "PKCS #12 bundles (gitleaks pkcs12-file)"),
    ("**/*.p12", "PKCS #12 bundles (gitleaks pkcs12-file)"),
    ("**/*.pkcs12", "PKCS #12 bundles"),
    ("**/*.jks", "Java keystores"),
    ("**/*.keystore", "Java and Android keystores"),
    ("**/*.jceks", "Java keystores"),
    ("**/*.bks", "Bouncy Castle keystores"),
    ("**/*.kdbx", "KeePass databases"),
    ("**/*.kdb", "KeePass databases"),
    ("**/*.keychain", "macOS keychains"),
    ("**/*.keychain-db", "macOS keychains"),
    ("**/*.psafe3", "Password Safe databases"),
    ("**/master.key", "Rails master key"),
    # cloud and service credentials
    ("**/.aws/credentials", "AWS access keys"),
    ("**/.aws/config", "AWS profiles"),
    ("**/service-account*.json", "Google service-account keys"),
    ("**/credentials.json", "OAuth client secrets, service credentials"),
    ("**/application_default_credentials.json", "gcloud application credentials"),
    ("**/.config/gcloud/**", "gcloud tokens and credential databases"),
    ("**/.azure/**", "Azure CLI tokens"),
    ("**/.s3cfg", "s3cmd keys"),
    ("**/.boto", "boto keys"),
    ("**/.vault-token", "HashiCorp Vault token"),
    ("**/*.tfstate", "Terraform state (sensitive values in clear)"),
    ("**/*.tfstate.backup", "Terraform state"),
    ("**/terraform.tfvars", "Terraform variables"),
    ("**/.terraformrc", "Terraform Cloud token"),
    ("**/credentials.tfrc.json", "Terraform Cloud token"),
    ("**/.config/rclone/rclone.conf", "rclone remotes' keys"),
    # containers and clusters
    ("**/.docker/config.json", "Docker registry auths (base64 user:password)"),
    ("**/.dockercfg", "Docker registry auths"),
    ("**/.kube/config", "kubeconfig (client keys, tokens)"),
    ("**/kubeconfig", "kubeconfig"),
    ("**/*.kubeconfig", "kubeconfig"),
    # package registries and developer tools
    ("**/.npmrc", "npm auth tokens"),
    ("**/.pypirc", "PyPI passwords and tokens"),
    ("**/.gem/credentials", "RubyGems API key"),
    ("**/.cargo/credentials", "crates.io token"),
    ("**/.cargo/credentials.toml", "crates.io token"),
    ("**/.composer/auth.json", "Composer tokens"),
    ("**/.m2/settings-security.xml", "Maven master password"),
    ("**/.m2/settings.xml", "Maven server passwords"),
    ("**/.gradle/gradle.properties", "Gradle signing and repository passwords"),
    ("**/.git-credentials", "git credential store (a URL with its token a line)"),
    ("**/.config/git/credentials", "git credential store"),
    ("**/gh/hosts.yml", "GitHub CLI oauth_token"),
    ("**/.config/hub", "hub's GitHub token"),
    ("**/.netrc", "machine logins and passwords"),
    ("**/_netrc", "machine logins and passwords (Windows)"),
    ("**/.pgpass", "PostgreSQL passwords"),
    ("**/.my.cnf", "MySQL client password"),
    ("**/.mylogin.cnf", "MySQL login paths"),
    ("**/.htpasswd", "HTTP Basic password hashes"),
    ("**/proftpdpasswd", "ProFTPD passwords"),
    ("**/etc/shadow", "password hashes"),
    ("**/etc/gshadow", "group password hashes"),
    # histories: commands and queries typed with their secrets
    (
        "**/.*history",
        "shell and REPL histories (.bash_history, .zsh_history, .psql_history, .history)",
    ),
    ("**/.histfile", "zsh history"),
    ("**/fish_history", "fish history"),
    ("**/.lesshst", "less history"),
)
#: The patterns alone.
DENYLIST: tuple[str, ...] = tuple(pattern for pattern, _ in DENYLIST_SOURCES)


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A path inside the root: ``absolute`` (symlinks resolved, the name on disk) and
    ``relative`` (POSIX, to root, as shown: ``policy/names.py``)."""

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
    def _spec(self) -> _Union:
        from pathspec import GitIgnoreSpec

        # matched on lower-cased paths: case-insensitive file systems make ``.Env.Local`` the
        # same file as ``.env.local``
        return _Union(GitIgnoreSpec.from_lines(p.lower() for p in self.deny_patterns))

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
        # a name not UTF-8, as ctx-tree shows it (%XX), when no file is named as written
        joined = Path(existing(os.fspath(joined)))
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
        return ResolvedPath(real, shown(rel))

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


class _Union:
    """A gitignore spec of include patterns only (``!`` lines are dropped) matched as one
    regular expression: a path is denied when any pattern matches, which is what the spec
    answers, in one scan instead of one per pattern (the denylist has ~70)."""

    def __init__(self, spec: GitIgnoreSpec) -> None:
        head, tail = "^(?:.+/)?", "(?:(?P<ps_d>/)|$)"
        anywhere: list[str] = []  # ``**/NAME`` patterns share their head and tail
        others: list[str] = []
        for p in spec.patterns:
            if not p.include or p.regex is None:
                continue
            source = p.regex.pattern
            if source.startswith(head) and source.endswith(tail):
                anywhere.append(source[len(head) : -len(tail)])
            else:
                others.append("(?:" + source.replace("(?P<ps_d>", "(?:") + ")")
        if anywhere:
            others.append(f"(?:{head}(?:{'|'.join(anywhere)})(?:/|$))")
        self._regex = re.compile("|".join(others)) if others else None

    def match_file(self, path: str) -> bool:
        return self._regex is not None and self._regex.match(path) is not None


@lru_cache(maxsize=65536)
def holds_secret(path: str) -> bool:
    """True when the redactor would change ``path``: a file named after a token would keep
    the token in its node's source, metadata and grep lines. Cached: a grep asks for every
    file it matched, and the same files again at the next grep; most paths hold no trigger of
    a rule, found in one pass (``redaction.py``), and cost a few microseconds uncached."""
    from ctx_tree_mcp.policy.redaction import redact_text

    return redact_text(path) != path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
