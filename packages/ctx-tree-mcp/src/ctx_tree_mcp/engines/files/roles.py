"""What a file is to a project, by its path: source, or one of the kinds of file that answer a
query about the code less well (docs/search.md, "Source first").

Search (keyword and long queries) and the directory map weigh a file by its role's factor,
unless the query asks for that kind of file (it names one of the role's words: ``translation``,
``lockfile``, ``fixture`` …). Each rule is data in :data:`ROLES`: a path pattern, the query
words that ask for it, a factor. A file takes the first role whose pattern matches; none is
``source`` (factor 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class Role:
    """A kind of file: its ``name``, the path ``pattern`` (searched in the relative path,
    case-insensitive) that says a file is one, the query words that ask for it (``asks``,
    space-separated), and its score ``factor``."""

    name: str
    pattern: str
    asks: str
    factor: float


_TEST_DIR = r"(?:^|/)(?:tests?|testing|__tests__|spec|specs)/"
_TEST_FILE = (
    r"(?:^|/)(?:test_[^/]*|[^/]*_tests?\.\w+|[^/]*\.(?:test|spec)\.\w+|conftest\.py"
    r"|[^/]*Tests?\.(?:java|kt|cs|swift|php))$"
)

#: Roles in the order they are tried (the first that matches a path is its role).
ROLES: tuple[Role, ...] = (
    Role(
        "translation",
        r"\.(?:po|pot|mo|xliff|xlf)$|(?:^|/)(?:locales?|i18n|l10n|translations?|lang)/",
        "translation translations translate translated locale locales gettext i18n l10n "
        "msgid msgstr catalog catalogs language languages",
        0.1,
    ),
    Role(
        "lockfile",
        r"(?:^|/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|"
        r"poetry\.lock|Pipfile\.lock|Cargo\.lock|Gemfile\.lock|composer\.lock|go\.sum|"
        r"uv\.lock|pdm\.lock|[^/]*\.lock)$",
        "lock lockfile lockfiles pinned pin pins",
        0.1,
    ),
    Role(
        "vendored",
        r"(?:^|/)(?:vendor|vendored|_vendor|third[_-]party|node_modules|bower_components|"
        r"extern|externals?)/",
        "vendor vendored vendoring bundled",
        0.2,
    ),
    Role(
        "generated",
        r"\.min\.(?:js|css|mjs)$|\.(?:js|css)\.map$|_pb2(?:_grpc)?\.pyi?$|\.pb(?:\.gw)?\.go$|"
        r"\.pb\.(?:cc|h)$|(?:^|/)(?:generated|__generated__|minified(?:-js)?)/|"
        r"[._]generated\.\w+$|(?:^|/)(?:dist|build)/",
        "generated generate generator minified minify protobuf dist",
        0.2,
    ),
    Role(
        "fixture",
        # in a fixtures or data folder, or under a test folder without being a test module
        r"(?:^|/)(?:fixtures?|testdata|test[_-]data|__snapshots__|__fixtures__)/|"
        rf"{_TEST_DIR}(?:[^/]+/)*(?!test_|conftest\.py$|__init__\.py$|[^/]*_tests?\.\w+$|"
        r"[^/]*\.(?:test|spec)\.\w+$|[^/]*Tests?\.\w+$)[^/]+$",
        "fixture fixtures testdata snapshot snapshots roots",
        0.3,
    ),
    Role(
        "test",
        rf"{_TEST_DIR}|{_TEST_FILE}",
        "test tests testing pytest unittest spec specs failing fails",
        0.5,
    ),
    Role(
        "config",
        r"\.(?:ya?ml|toml|ini|cfg|conf|properties|editorconfig|env)$|(?:^|/)\.[^/]+$",
        "config configuration configure settings yaml toml ini ci workflow workflows dotfile",
        0.6,
    ),
    Role(
        "docs",
        r"(?:^|/)(?:docs?|documentation|examples?|samples?|benchmarks?)/|"
        r"\.(?:rst|md|markdown|txt|adoc|rdoc)$|(?:^|/)\.github/",
        "doc docs documentation documented readme example examples tutorial guide changelog",
        0.5,
    ),
)
SOURCE = Role("source", "", "", 1.0)
_WORD = re.compile(r"[a-z0-9]+")


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@cache
def role_of(relpath: str) -> Role:
    """The role of the file at ``relpath`` (``/``-separated, relative to the project)."""
    for role in ROLES:
        if _compiled(role.pattern).search(relpath):
            return role
    return SOURCE


def asked(query: str) -> frozenset[str]:
    """The roles ``query`` asks for: those one of whose words it holds (lower-cased words;
    a path the query names asks for its own role too)."""
    words = set(_WORD.findall(query.lower()))
    out = {r.name for r in ROLES if words.intersection(r.asks.split())}
    return frozenset(out)


def factor(relpath: str | None, wanted: Iterable[str] = ()) -> float:
    """The score factor of the file at ``relpath`` for a query asking for ``wanted`` roles:
    its role's factor, or 1 when the query asks for it (or the path is unknown)."""
    if not relpath:
        return 1.0
    role = role_of(relpath)
    return 1.0 if role.name in wanted else role.factor


def secondary(relpath: str) -> bool:
    """Whether the file is anything but source (a test, docs, a fixture …)."""
    return role_of(relpath) is not SOURCE
