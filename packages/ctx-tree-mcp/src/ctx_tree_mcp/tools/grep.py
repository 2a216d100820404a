"""``ctx_tree_grep``: ripgrep over the project, full output stored, a budgeted slice returned.

The answer gives totals, then matches grouped by file (``path`` then ``line:text``; context
lines as ``line-text``), files with the most matches first. The full output (``path:line:text``
lines, redacted) is stored as a ``tool_output`` node under the session with source
``grep://<sha256 of the normalised arguments>``; ``ctx_tree_get`` pages it.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from ..budget import check_budget, check_int, estimate_tokens
from ..errors import ToolInputError
from ..redact import redact_text
from ..render import Manifest, call, finish

if TYPE_CHECKING:
    from ..app import App
    from ..ripgrep import GrepResult, Line

DESCRIPTION = (
    "ripgrep regex search (.gitignore respected) within budget_tokens; matches grouped by file, "
    "most first. Full output is stored; the manifest gives the ctx_tree_get call for the rest."
)
MANIFEST_RESERVE = 90


def _fmt(line: Line) -> str:
    return f"{line.number}{':' if line.is_match else '-'}{line.text}"


async def grep(
    app: App,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    ignore_case: bool = False,
    fixed_strings: bool = False,
    context_lines: int = 0,
    budget_tokens: int = 2000,
) -> str:
    """Handle ``ctx_tree_grep``; returns the answer text.

    Raises ``ToolInputError`` for an empty or invalid pattern, a bad glob, a refused path,
    out-of-range ``context_lines`` (0..10) or budget.
    """
    from ..ripgrep import build_args, run_rg

    budget = check_budget(budget_tokens)
    context_lines = check_int(context_lines, "context_lines", 0, 10)
    if not isinstance(pattern, str) or not pattern:
        raise ToolInputError("pattern", "give a regex (or fixed_strings=true for a literal)")
    if "\x00" in pattern:
        raise ToolInputError("pattern", "contains a NUL byte")
    if glob is not None and (not isinstance(glob, str) or "\x00" in glob or not glob.strip()):
        raise ToolInputError("glob", "give a file glob such as '*.py', or leave it out")
    target = app.policy.resolve(path or ".")
    if not target.absolute.exists():
        raise ToolInputError("path", f"{path!r} does not exist under the project root")
    deny = app.policy.deny_patterns
    args = build_args(
        pattern,
        target.relative,
        glob=glob,
        ignore_case=bool(ignore_case),
        fixed_strings=bool(fixed_strings),
        context_lines=context_lines,
        deny_globs=deny,
    )
    cfg = app.config.get("grep")
    result = await run_rg(
        args, app.root, timeout_s=cfg["timeoutMs"] / 1000, max_matches=cfg["maxMatches"]
    )
    # Filter after rg too: a denylisted file must never show (e.g. reached via a symlink).
    for rel in [p for p in result.files if app.policy.is_denied(p)]:
        result.match_count -= sum(1 for ln in result.files.pop(rel) if ln.is_match)
    key = json.dumps(
        [pattern, target.relative, glob, bool(ignore_case), bool(fixed_strings), context_lines]
    )
    uri = "grep://" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    order = sorted(result.files, key=lambda p: (-sum(ln.is_match for ln in result.files[p]), p))
    per_file = {
        p: redact_text("".join(f"{p}:{_fmt(ln)}\n" for ln in result.files[p])) for p in order
    }
    full = "".join(per_file[p] for p in order)
    from ctx_tree_schema import NodeKind

    meta = {
        "tool": "ctx_tree_grep",
        "pattern": pattern,
        "path": target.relative,
        "file_glob": glob,
        "ignore_case": bool(ignore_case),
        "fixed_strings": bool(fixed_strings),
        "context_lines": context_lines,
        "match_count": result.match_count,
        "file_count": len(order),
        "cwd": str(app.root),
        "timed_out": result.timed_out,
        "capped": result.capped,
    }
    node_id = app.capture(NodeKind.TOOL_OUTPUT, full, source_uri=uri, metadata=meta, terms=pattern)
    text = _render(app, result, order, node_id, per_file, budget)
    app.store.bump(
        tokens_served=estimate_tokens(text), tokens_source=estimate_tokens(full), greps=1
    )
    return text


def _render(
    app: App,
    result: GrepResult,
    order: list[str],
    node_id: str,
    per_file: dict[str, str],
    budget: int,
) -> str:
    full_tokens = estimate_tokens("".join(per_file.values()))
    total_m, total_f = result.match_count, len(order)
    head = f"{total_m} match{'es' if total_m != 1 else ''} in {total_f} file{'s' if total_f != 1 else ''}"
    flags = []
    if result.timed_out:
        flags.append(
            f"stopped at the {app.config.get('grep', 'timeoutMs')} ms timeout (grep.timeoutMs)"
        )
    if result.capped:
        flags.append(f"stopped at {app.config.get('grep', 'maxMatches')} matches (grep.maxMatches)")
    if result.error:
        flags.append(f"rg: {result.error}")
    manifest = Manifest(f"{head} · node {node_id}")
    for f in flags:
        manifest.add("note", f)
    if not order:
        return finish("", manifest, budget, 0, "full output")
    room = budget - MANIFEST_RESERVE - 20
    blocks: list[str] = []
    shown_files = 0
    shown_matches = 0
    partial: str | None = None
    for p in order:
        lines = result.files[p]
        block_lines = [redact_text(_fmt(ln)) for ln in lines]
        block = p + "\n" + "\n".join(block_lines) + "\n"
        if total_f == 1 and total_m == 1 and not any(not ln.is_match for ln in lines):
            block = f"{p}:{block_lines[0]}\n"  # one hit: rg -n shape, nothing to manage
        cost = estimate_tokens(block)
        if cost <= room:
            blocks.append(block)
            room -= cost
            shown_files += 1
            shown_matches += sum(ln.is_match for ln in lines)
            continue
        # Partial file: as many lines as fit, then stop listing matches.
        kept = [p]
        used = estimate_tokens(p + "\n")
        for text, ln in zip(block_lines, lines, strict=True):
            c = estimate_tokens(text + "\n")
            if used + c > room:
                break
            kept.append(text)
            used += c
            shown_matches += ln.is_match
        if len(kept) > 1:
            blocks.append("\n".join(kept) + "\n")
            room -= used
            partial = p
        break
    rest = order[shown_files + (1 if partial else 0) :]
    if rest:
        names = []
        cost = 0
        for p in rest:
            entry = f"{p} ({sum(ln.is_match for ln in result.files[p])})"
            cost += estimate_tokens(entry + ", ")
            if cost > max(room, 0):
                break
            names.append(entry)
        more = len(rest) - len(names)
        manifest.add("other files", ", ".join(names) + (f" (+{more} more)" if more else ""))
    if shown_matches < total_m or partial or rest:
        offset = sum(len(per_file[p]) for p in order[:shown_files])
        manifest.add(
            "shown",
            f"{shown_matches} of {total_m} matches in {shown_files + (1 if partial else 0)} of {total_f} files",
        )
        manifest.add(
            "next",
            call("ctx_tree_get", node_id=node_id, offset=offset) + " or narrow with path=/glob=",
        )
    return finish("".join(blocks), manifest, budget, full_tokens, "full output")
