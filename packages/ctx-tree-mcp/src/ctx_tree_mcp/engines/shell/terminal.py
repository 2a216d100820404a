"""Command output as a terminal would show it: the one cleaner for every stored command output.

Both ``ctx_tree_bash`` (``engines/shell/run.py``) and captured native Bash output
(``capture/ingest.py``) pass through :func:`screen_text` before anything is stored
(docs/tools.md#ctx_tree_bash). A small line-terminal model, unbounded in height and width
(no wrapping, so nothing is reflowed):

* text overwrites the line at the cursor; ``\\n`` moves to the start of the next line;
  ``\\r\\n`` is one line end; a lone ``\\r`` goes back to the line's start; backspace steps
  back: a progress bar redrawn with ``\\r`` keeps its last frame;
* CSI cursor moves (``A`` up, ``B`` down, ``C`` right, ``D`` left, ``E``/``F`` next/previous
  line, ``G`` column) and erases (``K`` in line, ``J`` 0 below the cursor) act on that model:
  a display redrawn with cursor-up and erase-line (docker pull, npm, cargo, pip) keeps its
  last frame; ``ESC 7``/``ESC 8`` and ``CSI s``/``CSI u`` save and restore the cursor;
* every other sequence is removed: SGR colours, OSC titles and hyperlinks (BEL or ST ended),
  charset designations (``ESC ( B``), keypad modes, DCS/APC strings; a clear screen is
  ignored (what scrolled by stays);
* BEL is dropped; other C0 controls become U+FFFD (binary output shows as such).

A terminal emulator (pyte) was weighed: it wraps at a fixed width and keeps a fixed screen
with per-cell objects, in pure Python, too slow for 200 KB of output per command.
"""

from __future__ import annotations

import re

__all__ = ["screen_text"]

#: One token: a sequence, a line end, a control, or a run of plain text.
_TOKEN = re.compile(
    r"(?P<csi>\x1b\[(?P<params>[0-?]*)[ -/]*(?P<final>[@-~]))"
    r"|(?P<osc>\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?)"
    r"|(?P<str>\x1b[P^_X][^\x1b]*(?:\x1b\\)?)"
    r"|(?P<esc>\x1b(?:[ -/]+[0-~]|[0-~])?)"
    r"|(?P<nl>\r?\n)"
    r"|(?P<cr>\r)"
    r"|(?P<bs>\x08)"
    r"|(?P<ctl>[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f])"
    r"|(?P<text>[^\x00-\x08\x0a-\x1f\x7f]+)"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPECIAL = re.compile(r"[\x1b\r\x08]")


def _count(params: str, default: int = 1) -> int:
    first = params.split(";", 1)[0]
    return int(first) if first.isdigit() and int(first) > 0 else default


def screen_text(text: str) -> str:
    """``text`` as a terminal shows it once it has all been printed (see the module doc).
    Plain text without ESC, CR or backspace comes back unchanged but for C0 controls
    (U+FFFD) and BEL (dropped)."""
    if not _SPECIAL.search(text):
        return _CONTROL.sub(_control, text) if _CONTROL.search(text) else text
    lines: list[str] = [""]
    row = col = 0
    saved = (0, 0)
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "text" or kind == "ctl":
            run = m.group() if kind == "text" else _control(m)
            if not run:
                continue
            line = lines[row]
            if col > len(line):
                line += " " * (col - len(line))
            lines[row] = line[:col] + run + line[col + len(run) :]
            col += len(run)
        elif kind == "nl":
            row += 1
            col = 0
            if row == len(lines):
                lines.append("")
        elif kind == "cr":
            col = 0
        elif kind == "bs":
            col = max(0, col - 1)
        elif kind == "csi":
            final, params = m.group("final"), m.group("params")
            if final == "A" or final == "F":
                row = max(0, row - _count(params))
                col = 0 if final == "F" else col
            elif final == "B" or final == "E":
                row += _count(params)
                lines.extend("" for _ in range(row + 1 - len(lines)))
                col = 0 if final == "E" else col
            elif final == "C":
                col += _count(params)
            elif final == "D":
                col = max(0, col - _count(params))
            elif final == "G":
                col = _count(params) - 1
            elif final == "K":
                mode = _count(params, 0)
                line = lines[row]
                if mode == 0:
                    lines[row] = line[:col]
                elif mode == 1:
                    lines[row] = " " * min(col + 1, len(line)) + line[col + 1 :]
                elif mode == 2:
                    lines[row] = ""
            elif final == "J" and _count(params, 0) == 0:
                lines[row] = lines[row][:col]
                del lines[row + 1 :]
            elif final == "s":
                saved = (row, col)
            elif final == "u":
                row, col = saved
        elif kind == "esc":
            seq = m.group()
            if seq == "\x1b7":
                saved = (row, col)
            elif seq == "\x1b8":
                row, col = saved
    return "\n".join(lines)


def _control(m: re.Match[str]) -> str:
    """BEL is dropped; any other C0 control shows as U+FFFD."""
    return "".join("" if c == "\x07" else "\ufffd" for c in m.group())
