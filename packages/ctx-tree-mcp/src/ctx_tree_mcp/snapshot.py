"""``ctx-tree-snapshot``: rebuild what is generated from the tool registry.

    uv run ctx-tree-snapshot            # from the repository root

Rewrites the argument tables and example calls of ``docs/tools.md`` from the registry (the
prose around them is kept; a tool with no section gets a stub to fill in). Tests fail, with
this command in the message, when either is stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tools.spec import ToolSpec

REBUILD = "uv run ctx-tree-snapshot"
_TABLE_HEAD = "| argument | type | default | range | meaning |\n|---|---|---|---|---|\n"


def docs_table(spec: ToolSpec) -> str:
    """The markdown argument table of one tool."""
    import json

    from .tools.spec import range_text, type_name

    schema = spec.input_schema()
    required = set(schema.get("required", []))
    rows = []
    for name, prop in schema["properties"].items():
        if name in required:
            default = "required"
        elif "default" in prop:
            default = json.dumps(prop["default"])
        else:
            default = "—"
        meaning = spec.cli_of(name).help.replace("|", "\\|")
        rows.append(
            f"| `{name}` | {type_name(prop)} | {default} | {range_text(prop)} | {meaning} |\n"
        )
    return _TABLE_HEAD + "".join(rows)


def docs_example(spec: ToolSpec) -> str:
    from .surface import call

    return f"```text\n{call(spec.name, **spec.example)}\n```\n"


def rewrite_docs(text: str) -> str:
    """``docs/tools.md`` with every tool's example call and argument table regenerated."""
    from .tools.registry import TOOLS

    parts = re.split(r"^(## \S+\n)", text, flags=re.M)
    head, sections = parts[0], dict(zip(parts[1::2], parts[2::2], strict=True))
    out = [head]
    names = {f"## {t.name}\n": t for t in TOOLS}
    for title, body in sections.items():
        spec = names.get(title)
        if spec is not None:
            body = re.sub(
                r"```text\n.*?\n```\n", lambda _, s=spec: docs_example(s), body, count=1, flags=re.S
            )
            body = re.sub(
                r"^\| argument \|.*?(?=^[^|]|\Z)",
                lambda _, s=spec: docs_table(s),
                body,
                count=1,
                flags=re.S | re.M,
            )
        out += [title, body]
    for title, spec in names.items():
        if title not in sections:
            out += [
                "\n" if not out[-1].endswith("\n\n") else "",
                title,
                f"\n{docs_example(spec)}\n{spec.description}\n\n{docs_table(spec)}",
            ]
    return "".join(out)


def main(argv: list[str] | None = None) -> None:
    """Console script ``ctx-tree-snapshot``: rewrite ``docs/tools.md`` (``--docs PATH``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="ctx-tree-snapshot", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--docs", default="docs/tools.md", help="docs page to rewrite (default: docs/tools.md)"
    )
    args = parser.parse_args(argv)
    docs = Path(args.docs)
    if docs.is_file():
        old = docs.read_text(encoding="utf-8")
        new = rewrite_docs(old)
        if new != old:
            docs.write_text(new, encoding="utf-8")
        print(f"{docs}: {'rewritten' if new != old else 'up to date'}")
    else:
        print(f"{docs}: not found (run from the repository root, or pass --docs)", file=sys.stderr)


if __name__ == "__main__":
    main()
