"""File names as ctx-tree stores and shows them (docs/index.md, "File names").

A POSIX file name is bytes. Python holds a name that is not UTF-8 with each byte it cannot
decode as a lone surrogate (``surrogateescape``), which no UTF-8 text can hold: not the
store, not a JSON answer, not a terminal. So wherever ctx-tree stores or shows a name, such
a byte is written ``%XX`` (its hex, upper case): ``caf\\xe9.py`` is ``caf%E9.py``. A path
argument is taken as given when it names a file, and otherwise with each ``%XX`` of a byte
0x80-0xFF read back as that byte (``ctx_tree_read("src/caf%E9.py")`` reads the file). A name
that is UTF-8 is never changed.
"""

from __future__ import annotations

import os
import re

_SURROGATE = re.compile("[\udc80-\udcff]")
_HIGH_ESCAPE = re.compile("%([89A-Fa-f][0-9A-Fa-f])")


def shown(name: str) -> str:
    """``name`` (a path or a part of one, as ``os`` functions give it) with each undecodable
    byte as ``%XX``: valid UTF-8 text, the same as ``name`` when that is UTF-8 already."""
    if name.isascii() or not _SURROGATE.search(name):
        return name
    return _SURROGATE.sub(lambda m: f"%{ord(m.group()) - 0xDC00:02X}", name)


def on_disk(name: str) -> str:
    """The ``os`` form of a name :func:`shown` gave: each ``%XX`` of a byte 0x80-0xFF back to
    that byte, when the result is not UTF-8 text (so a literal ``%C3%A9`` stays as written);
    ``name`` itself when it holds no such escape. Pure: the caller tries ``name`` as given
    first when a file may be named with a literal ``%``."""
    if "%" not in name or not _HIGH_ESCAPE.search(name):
        return name
    raw = _HIGH_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), name)
    again = os.fsdecode(os.fsencode(raw))  # bytes that join into UTF-8 decode as text
    return name if not _SURROGATE.search(again) else again


def existing(name: str) -> str:
    """``name`` when a file system entry of that name exists, else :func:`on_disk` of it:
    the path to open for a name a user or the store gave (one ``lstat`` more at most)."""
    candidate = on_disk(name)
    if candidate == name or os.path.lexists(name):
        return name
    return candidate


def file_uri(absolute: os.PathLike[str] | str) -> str:
    """The ``file://`` source URI of an absolute path, its name as stored and shown
    (``policy/names.py``: a byte that is not UTF-8 as ``%XX``)."""
    return "file://" + shown(os.fspath(absolute))


def uri_path(uri: str) -> str:
    """The path to open for a ``file://`` URI :func:`file_uri` made (a ``%XX`` name back to
    its bytes when no file is named as written)."""
    return existing(uri.removeprefix("file://"))
