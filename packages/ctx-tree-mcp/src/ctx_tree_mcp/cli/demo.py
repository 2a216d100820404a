"""``ctx-tree demo [PATH]``: ctx-tree on a real tree, against what native tools would return.

Reads the largest source files of PATH by symbol and by query, greps for a definition and
searches the store, then prints a table: tokens a native whole-file Read (``cat -n``, capped
at 2,000 lines) or plain ``rg -n`` would have returned, tokens ctx-tree returned, and the
share kept. Runs in a temporary store (``CTX_TREE_HOME`` is left untouched) unless ``--keep``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ctx_tree_mcp.app import App

SOURCE_SUFFIXES = {
    ".py",
    ".ts",
    ".tsx",
    ".js",
    ".go",
    ".rs",
    ".java",
    ".c",
    ".cc",
    ".cpp",
    ".h",
    ".rb",
    ".php",
    ".kt",
    ".swift",
    ".cs",
}


def _native_read_tokens(path: Path) -> int:
    from ctx_tree_mcp.answers.budget import estimate_tokens

    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[:2000]
    return estimate_tokens("".join(f"{n:6d}\t{line[:2000]}\n" for n, line in enumerate(lines, 1)))


def _rg_tokens(pattern: str, root: Path) -> int:
    from ctx_tree_mcp.answers.budget import estimate_tokens
    from ctx_tree_mcp.engines.grep.ripgrep import find_rg

    out = subprocess.run(
        [find_rg(), "-n", "--no-heading", "--", pattern],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return estimate_tokens(out.stdout)


#: Path parts of code a project ships but did not write: not what the demo reads by symbol.
VENDORED = frozenset({"vendor", "vendored", "third_party", "node_modules"})


def _largest_sources(root: Path, count: int) -> list[Path]:
    """The ``count`` largest source files under ``root`` (ripgrep's listing, so ignored files
    are skipped), leaving out tests, vendored code and minified files (``*.min.js``)."""
    from ctx_tree_mcp.engines.grep.ripgrep import find_rg

    listing = subprocess.run(
        [find_rg(), "--files"], cwd=root, capture_output=True, text=True, check=False
    ).stdout
    files = [
        root / p
        for p in listing.splitlines()
        if Path(p).suffix in SOURCE_SUFFIXES
        and "test" not in p.lower()
        and ".min." not in Path(p).name
        and not VENDORED & set(Path(p).parts)
    ]
    files = [f for f in files if f.is_file() and f.stat().st_size < 400_000]
    return sorted(files, key=lambda f: f.stat().st_size, reverse=True)[:count]


class _Row(NamedTuple):
    """One line of the demo's table: what was asked, of what, what a native tool would have
    cost (tokens; None when there is no native equivalent) and what ctx-tree answered."""

    action: str
    target: str
    native: int | None
    returned: int


def _returned(text: str) -> int:
    from ctx_tree_mcp.answers.budget import estimate_tokens

    return estimate_tokens(text)


def demo(path: str = ".", *, files: int = 4, root: str | None = None, keep: bool = False) -> str:
    """Run the demo on ``path``; returns the report (a table plus a summary line)."""
    from tabulate import tabulate

    from ctx_tree_mcp.app import App
    from ctx_tree_mcp.errors import ToolInputError
    from ctx_tree_mcp.tools.grep import grep
    from ctx_tree_mcp.tools.read import read
    from ctx_tree_mcp.tools.search import search
    from ctx_tree_mcp.tools.spec import answer_text

    tree = Path(root or path).expanduser().resolve()
    if not tree.is_dir():
        raise ToolInputError(
            "path", f"{path!r} is not a directory; give a project's directory (default: the cwd)"
        )
    with tempfile.TemporaryDirectory(prefix="ctx-tree-demo-") as tmp:
        app = App(tree, home=None if keep else Path(tmp))
        rows: list[_Row] = []
        started = time.perf_counter()
        sources = _largest_sources(tree, files)
        if not sources:
            raise ToolInputError("path", f"no source files under {tree}")
        chosen_symbol = None
        for src in sources:
            rel = src.relative_to(tree).as_posix()
            native = _native_read_tokens(src)
            outline_text = read(app, rel, budget_tokens=2000)
            view_outline = [
                e for e in _outline(app, src) if e[1] in ("function", "method") and e[4] - e[2] >= 8
            ]
            rows.append(_Row("read (outline)", rel, native, _returned(outline_text)))
            if view_outline:
                name, _kind, _start, _def, _end = view_outline[len(view_outline) // 2]
                chosen_symbol = chosen_symbol or name.split(".")[-1]
                text = read(app, rel, symbol=name, budget_tokens=2000)
                rows.append(_Row(f"read symbol={name}", rel, native, _returned(text)))
                words = " ".join(name.replace(".", " ").replace("_", " ").split()[-2:])
                text = read(app, rel, query=words, budget_tokens=1500)
                rows.append(_Row(f"read query={words!r}", rel, native, _returned(text)))
        if chosen_symbol:
            pattern = rf"\b{chosen_symbol}\b"
            text = answer_text(asyncio.run(grep(app, pattern, ".", budget_tokens=2000)))
            rows.append(_Row(f"grep {pattern}", ".", _rg_tokens(pattern, tree), _returned(text)))
            text = search(app, chosen_symbol.replace("_", " "), limit=5)
            top = next((ln for ln in text.splitlines() if ln.startswith("1. ")), "1. (no hit)")
            hit = top[3:].split(" node_id=")[0]  # where the best hit points, as the listing says
            rows.append(_Row(f"search {chosen_symbol!r}", _head(hit, 44), None, _returned(text)))
        broad = r"def |func |fn |function "
        text = answer_text(asyncio.run(grep(app, broad, ".", budget_tokens=2000)))
        rows.append(_Row(f"grep {broad!r} (broad)", ".", _rg_tokens(broad, tree), _returned(text)))
        elapsed = time.perf_counter() - started
        app.close()
    table_rows: list[list[object]] = []
    native_total = returned_total = 0
    for row in rows:
        kept = f"{row.returned * 100 / row.native:.1f}%" if row.native else "-"
        if row.native is not None:
            native_total += row.native
            returned_total += row.returned
        shown = "-" if row.native is None else row.native
        table_rows.append([row.action[:48], _tail(row.target, 44), shown, row.returned, kept])
    table = tabulate(
        table_rows, headers=["action", "target", "native tokens", "ctx-tree tokens", "kept"]
    )
    summary = (
        f"\n{len(rows)} calls on {tree} in {elapsed:.2f}s: ctx-tree returned {returned_total:,} tokens "
        f"where native Read/rg would have returned {native_total:,} "
        f"({returned_total * 100 / max(native_total, 1):.1f}%); the full outputs went to "
        f"{'the store' if keep else 'a temporary store (--keep uses the real one)'} for recall.\n"
    )
    return table + "\n" + summary


def _head(text: str, width: int) -> str:
    """``text`` cut to its first ``width`` characters, marked with a trailing ellipsis."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _tail(text: str, width: int) -> str:
    """``text`` cut to its last ``width`` characters, marked with a leading ellipsis."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _outline(app: App, src: Path) -> list[tuple[str, str, int, int, int]]:
    """``(name, kind, start, def line, end)`` of each symbol of the stored file ``src``."""
    from ctx_tree_mcp.policy.names import file_uri

    root = app.store.latest_by_source(file_uri(src.resolve()))
    symbols = root.metadata.get("symbols", []) if root else []
    return [(str(n), str(k), int(a), int(d), int(e)) for n, k, a, d, e in symbols]


if __name__ == "__main__":  # pragma: no cover
    print(demo(sys.argv[1] if len(sys.argv) > 1 else os.getcwd()))
