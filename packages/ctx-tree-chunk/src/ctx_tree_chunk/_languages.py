"""Language names, file-extension and shebang maps (pure data, no imports of grammars)."""

from __future__ import annotations

import os
import re

# Languages parsed with tree-sitter: name -> grammar name in tree-sitter-language-pack.
# Each needs a definitions query in ``queries/<name>.scm`` (or an entry in QUERY_OF).  Adding a language means
# adding an entry here and a query file; the chunker itself is language-agnostic.
TREE_SITTER_LANGUAGES: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rust": "rust",
    "java": "java",
    "c": "c",
    "cpp": "cpp",
    "csharp": "csharp",
    "ruby": "ruby",
    "php": "php",
    "kotlin": "kotlin",
    "swift": "swift",
    "bash": "bash",
}

# Languages whose definitions query is another language's file (same node types).
QUERY_OF: dict[str, str] = {"tsx": "typescript"}


def query_file(language: str) -> str:
    """File name under ``queries/`` holding ``language``'s definitions query."""
    return f"{QUERY_OF.get(language, language)}.scm"


def references_file(language: str) -> str:
    """Path under ``queries/`` of ``language``'s references query (it may not exist: then the
    language has no references)."""
    return f"references/{QUERY_OF.get(language, language)}.scm"


# Single-file components: markup whose <script> blocks are parsed (see ``_sfc.py``).
SFC_LANGUAGES: tuple[str, ...] = ("vue", "svelte")

# Files whose chunks tile a rendering of them (see ``_notebook.py``).
RENDERED_LANGUAGES: tuple[str, ...] = ("ipynb",)

# Languages chunked by structure without a grammar (see ``_structure.py``).
STRUCTURE_LANGUAGES: tuple[str, ...] = ("markdown", "json", "yaml", "toml")

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".sh": "bash",
    ".bash": "bash",
    ".vue": "vue",
    ".svelte": "svelte",
    ".ipynb": "ipynb",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".jsonc": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
}

FILENAMES: dict[str, str] = {
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    ".bashrc": "bash",
    ".bash_profile": "bash",
    ".profile": "bash",
    "Pipfile": "toml",
}

# Interpreter basename (version digits stripped) -> language.
INTERPRETERS: dict[str, str] = {
    "python": "python",
    "pypy": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ts-node": "typescript",
    "tsx": "typescript",
    "bun": "javascript",
    "bash": "bash",
    "sh": "bash",
    "dash": "bash",
    "ksh": "bash",
    "ruby": "ruby",
    "php": "php",
    "swift": "swift",
}

_VERSION_SUFFIX = re.compile(r"[\d.]+$")


def detect_language(path: str | None, data: bytes | None = None) -> str | None:
    """Guess the language of a file from its name, then from a ``#!`` line in ``data``.

    Args:
        path: file path or name (only the name is used; it need not exist), or ``None``.
        data: the file's bytes, or ``None``; only its first line is looked at.

    Returns:
        A language name from :func:`ctx_tree_chunk.supported_languages`, or ``None``
        when neither the name nor a shebang identifies one (chunked as plain text).
    """
    if path:
        name = os.path.basename(os.fspath(path))
        if name in FILENAMES:
            return FILENAMES[name]
        ext = os.path.splitext(name)[1].lower()
        if ext in EXTENSIONS:
            return EXTENSIONS[ext]
    if data and data.startswith(b"#!"):
        return _shebang_language(data[: data.find(b"\n") if b"\n" in data[:256] else 256])
    return None


def _shebang_language(line: bytes) -> str | None:
    words = line[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    prog = os.path.basename(words[0])
    if prog == "env":
        args = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not args:
            return None
        prog = os.path.basename(args[0])
    prog = _VERSION_SUFFIX.sub("", prog) or prog
    return INTERPRETERS.get(prog)
