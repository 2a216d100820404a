"""``ctx_tree_read`` of a file over ``LARGE_FILE_BYTES`` by lines or without a selector: the
lines asked for (the file's head and end when none), read from disk without parsing or
storing the file (:mod:`ctx_tree_mcp.engines.files.largefile`; docs/tools.md, "Large
files"). Its cost follows the lines answered, not the file's size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctx_tree_mcp.answers.budget import MAX_CHARS_PER_TOKEN, estimate_tokens, tokens_for_chars
from ctx_tree_mcp.answers.render import Manifest, call, fitted_answer
from ctx_tree_mcp.answers.surface import argument_name
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.tools.read_view import TAIL_SHARE, Cut, gap_marker, not_shown

if TYPE_CHECKING:
    from ctx_tree_mcp.engines.files.largefile import Window
    from ctx_tree_mcp.policy.paths import ResolvedPath

_LINE_GOES_ON = " […line continues]\n"


def large_answer(
    resolved: ResolvedPath,
    first: int,
    last: int | None,
    budget: int,
    numbered: bool = True,
    *,
    whole_file: bool = False,
) -> tuple[str, int] | None:
    """The answer for lines ``first..last`` (``last`` None: to the end) of the large file
    ``resolved``, and the whole file's tokens (for the usage counters); None when the file is
    text in another encoding than UTF-8 (the caller reads it through the store).
    ``whole_file``: no selector was given (the note says what a selector would do).

    Raises :class:`ToolInputError` for a binary or unreadable file and a ``start_line`` past
    its end."""
    from ctx_tree_mcp.engines.files.largefile import NotPlainText, read_window
    from ctx_tree_mcp.engines.files.textcodec import Binary

    rel = resolved.relative
    try:
        window = read_window(resolved.absolute, first, last, MAX_CHARS_PER_TOKEN * (budget + 1))
    except NotPlainText:
        return None
    except Binary as exc:
        raise ToolInputError(
            "path", f"{rel!r} is binary, not text ({exc}); it is not read"
        ) from None
    except OSError as exc:
        raise ToolInputError("path", f"cannot read {rel!r}: {exc.strerror}") from None
    total = window.total_lines
    if first > max(total, 1):
        raise ToolInputError(
            "start_line", f"{first} is past the end of {rel} ({total:,} line{'s' * (total != 1)})"
        )
    tokens = tokens_for_chars(window.size) + 2 * total
    if not total:
        return "", tokens
    rows = _Rows(window, numbered)

    def manifest(cut: Cut) -> Manifest:
        m = Manifest(f"{rel} · {total:,} line{'s' * (total != 1)}, {tokens:,}t")
        if whole_file:
            pick = "/".join(argument_name("ctx_tree_read", a) for a in ("symbol", "query"))
            m.add("note", f"over 1 MB: lines from disk, no outline ({pick} parse it)")
        if cut.done and not cut.partial:
            m.complete = True
            return m
        m.add("truncated", not_shown(cut))
        plain = None if numbered else False
        line = cut.shown_to + 1
        if cut.partial:
            grep = call("ctx_tree_grep", pattern="…", path=rel)
            m.add("more", f"line {line} goes on: {grep} shows it around a match")
            if line < window.last:
                m.add(
                    "next",
                    call(
                        "ctx_tree_read",
                        path=rel,
                        start_line=line + 1,
                        end_line=window.last,
                        numbers=plain,
                    ),
                )
            return m
        end = cut.tail_from - 1 if cut.tail_from else window.last
        m.add("next", call("ctx_tree_read", path=rel, start_line=line, end_line=end, numbers=plain))
        return m

    return fitted_answer(budget, rows.body, manifest, tokens, "file", terse=True), tokens


class _Rows:
    """The window's lines as an answer prints them, fitted into a room of tokens."""

    def __init__(self, window: Window, numbered: bool) -> None:
        self.window = window
        self.numbered = numbered
        self.head = [self._row(window.first + i, t) for i, t in enumerate(window.head)]
        self.tail_first = window.last - len(window.tail) + 1
        self.tail = [self._row(self.tail_first + i, t) for i, t in enumerate(window.tail)]

    def _row(self, number: int, text: str) -> str:
        return f"{number}\t{text}\n" if self.numbered else f"{text}\n"

    def body(self, room: int) -> tuple[str, Cut]:
        """The lines within ``room`` tokens: all of them when they fit; else the last ones
        in up to 1/:data:`TAIL_SHARE` of the room, a gap line, and the first ones in the
        rest; else the first line cut by characters."""
        w = self.window
        whole = "".join(self.head)
        if (
            w.whole
            and len(whole) <= MAX_CHARS_PER_TOKEN * (room + 1)
            and estimate_tokens(whole) <= room
        ):
            return whole, Cut(w.first, w.last, w.last)
        # the range's last lines: the tail read apart, or the head's own end
        ends = self.tail if self.tail else (self.head if w.whole else [])
        ends_first = self.tail_first if self.tail else w.first
        tail_rows: list[str] = []
        used = 0
        if w.last > w.first:
            for row in reversed(ends):
                cost = estimate_tokens(row)
                if used + cost > room // TAIL_SHARE or len(tail_rows) + 1 >= w.last - w.first + 1:
                    break
                tail_rows.insert(0, row)
                used += cost
        tail_from = ends_first + len(ends) - len(tail_rows) if tail_rows else 0
        head_room = room - used - (estimate_tokens(gap_marker(w.last, w.last)) if tail_rows else 0)
        shown: list[str] = []
        taken = 0
        stop = tail_from or w.last + 1
        for i, row in enumerate(self.head):
            if w.first + i >= stop or (w.head_cut and i == len(self.head) - 1):
                break
            cost = estimate_tokens(row)
            if taken + cost > head_room:
                break
            shown.append(row)
            taken += cost
        shown_to = w.first + len(shown) - 1
        if not shown:  # not one whole line fits: the first one, cut by characters
            prefix = f"{w.first}\t" if self.numbered else ""
            text = prefix + w.head[0]
            fitted = _fit_chars(text, max(0, room - estimate_tokens(_LINE_GOES_ON)))
            if len(fitted) <= len(prefix):
                return "", Cut(w.first, w.last, w.first - 1)
            if len(fitted) == len(text) and not w.head_cut:
                return fitted + "\n", Cut(w.first, w.last, w.first)
            return fitted + _LINE_GOES_ON, Cut(
                w.first, w.last, w.first - 1, len(fitted) - len(prefix)
            )
        text = "".join(shown)
        if tail_rows and shown_to + 1 < tail_from:
            return text + gap_marker(shown_to + 1, tail_from - 1) + "".join(tail_rows), Cut(
                w.first, w.last, shown_to, tail_from=tail_from
            )
        if tail_rows:  # head and tail meet: every line is shown
            return text + "".join(tail_rows), Cut(w.first, w.last, w.last)
        return text, Cut(w.first, w.last, shown_to)


def _fit_chars(text: str, room: int) -> str:
    """The longest prefix of ``text`` (one line) whose estimate fits ``room`` tokens."""
    from ctx_tree_mcp.answers.budget import fit_lines

    fitted, _ = fit_lines(text[: MAX_CHARS_PER_TOKEN * (room + 1)], room)
    return fitted.rstrip("\n")
