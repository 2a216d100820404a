"""Ground truth for the reference graph's accuracy: what jedi resolves each name use to.

    python bench/refgraph_truth.py REPO --sample 40 --out truth.json

Runs under any Python with ``jedi`` (PyPI; standard library otherwise, not ctx-tree's venv).
Picks ``--sample`` Python files of REPO (git-tracked, by a hash of their path, so the same
files each run), and for every name used in them (``ast``: each ``Name`` and ``Attribute`` read,
a call's callee included) asks jedi where it is defined (``Script.goto``, imports followed).
Writes, per use, ``[file, line, column, name, [[def file, def line, type], ...]]``; a
definition outside REPO (a library, a builtin) is kept with its file ``null``, so a use that
names no project code is known as such. ``bench/refgraph_accuracy.py`` compares the graph
with it.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path


def sample(repo: Path, n: int) -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True
    )
    names = listed.stdout.split()
    if listed.returncode or not names:  # not a repository: every .py file outside dot folders
        names = [
            str(p.relative_to(repo))
            for p in repo.rglob("*.py")
            if not any(part.startswith(".") for part in p.relative_to(repo).parts)
        ]
    names.sort(key=lambda p: hashlib.sha1(p.encode()).hexdigest())
    return sorted(names[:n])


def uses(tree: ast.AST) -> list[tuple[int, int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.append((node.lineno, node.col_offset, node.id))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and node.end_lineno is not None
            and node.end_col_offset is not None
        ):
            out.append((node.end_lineno, node.end_col_offset - len(node.attr), node.attr))
    return sorted(set(out))


def main() -> None:
    import jedi

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    repo = Path(args.repo).resolve()
    project = jedi.Project(path=str(repo))
    rows = []
    t0 = time.time()
    files = sample(repo, args.sample)
    for rel in files:
        path = repo / rel
        code = path.read_text("utf-8", "replace")
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        script = jedi.Script(code, path=str(path), project=project)
        lines = code.splitlines()
        for line, col, name in uses(tree):
            # ast columns are UTF-8 byte offsets, jedi's are characters
            text = lines[line - 1] if line <= len(lines) else ""
            col = len(text.encode("utf-8")[:col].decode("utf-8", "replace"))
            try:
                found = script.goto(line, col, follow_imports=True)
            except Exception:
                continue
            defs = []
            for d in found:
                mp = d.module_path
                inside = mp is not None and Path(mp).resolve().is_relative_to(repo)
                defs.append(
                    [str(Path(mp).resolve().relative_to(repo)) if inside else None, d.line, d.type]
                )
            rows.append([rel, line, col, name, defs])
        print(f"{rel}: {len(rows)} uses so far ({time.time() - t0:.0f} s)", file=sys.stderr)
    Path(args.out).write_text(json.dumps({"repo": str(repo), "files": files, "uses": rows}))


if __name__ == "__main__":
    main()
