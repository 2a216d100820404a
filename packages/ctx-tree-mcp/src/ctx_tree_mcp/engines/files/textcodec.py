"""Text files in other encodings than UTF-8 (docs/tools.md, "Encodings").

:func:`to_utf8` turns the bytes of a file into UTF-8 text bytes, or says they are binary:

1. valid UTF-8 (the usual case) is returned as it is;
2. a byte-order mark names the encoding (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE); the mark is
   dropped from the text;
3. UTF-16 without a mark: most odd (LE) or even (BE) bytes are NUL and the rest decodes;
4. a NUL byte anywhere else, or many control bytes, means binary (never read);
5. otherwise charset-normalizer names the encoding (Latin-1, cp1252, Shift-JIS …); when it
   finds none, Latin-1, which decodes any byte.

Line ends are kept, so line numbers are those of the file.
"""

from __future__ import annotations

import codecs

from ctx_tree_mcp.errors import CtxTreeError

#: Byte-order marks, longest first (UTF-32 LE starts with UTF-16 LE's mark).
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: Bytes looked at by the UTF-16 and binary heuristics and by charset-normalizer.
SAMPLE = 64 * 1024
#: Control bytes (other than tab, line ends, form feed, escape) above this share: binary.
CONTROL_SHARE = 0.05
_CONTROLS = frozenset(set(range(0, 9)) | {11, 14, 15, *range(16, 27), *range(28, 32), 127})


class Binary(CtxTreeError, ValueError):
    """The bytes are not text in any encoding ctx-tree reads."""


def _decode(data: bytes, encoding: str, *, final: bool) -> str:
    """``data`` decoded; an incomplete character at the end of a head (``final=False``) is left
    out. Raises ``UnicodeDecodeError``."""
    return codecs.getincrementaldecoder(encoding)().decode(data, final=final)


def to_utf8(data: bytes, *, complete: bool = True) -> tuple[bytes, str | None]:
    """``(utf8_bytes, encoding)``: ``encoding`` is None for UTF-8 without a mark (``data``
    returned as it is), else the name the text was decoded from (``"utf-16-le"``,
    ``"latin-1"``, ``"cp1252"`` …). ``complete=False`` says ``data`` is the head of a longer
    file: a character cut at its end is left out. Raises :class:`Binary`."""
    sample = data[:SAMPLE]
    try:
        _decode(data, "utf-8", final=complete)
        utf8 = not data.startswith(codecs.BOM_UTF8)
    except UnicodeDecodeError:
        utf8 = False
    if utf8 and b"\x00" not in sample:
        return data, None
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                text = _decode(data[len(bom) :], encoding, final=complete)
            except UnicodeDecodeError:
                raise Binary(f"not valid {encoding} after its byte-order mark") from None
            return text.encode("utf-8", "surrogatepass"), encoding
    utf16 = _utf16_guess(sample)
    if utf16 is not None:
        try:
            return _decode(data, utf16, final=complete).encode("utf-8", "surrogatepass"), utf16
        except UnicodeDecodeError:
            pass
    if utf8:
        return data, None  # UTF-8 with NUL bytes: the chunker refuses it as binary
    if b"\x00" in sample:
        raise Binary("NUL bytes")
    if sample and sum(b in _CONTROLS for b in sample) > CONTROL_SHARE * len(sample):
        raise Binary("control bytes")
    encoding = _detected(sample) or "latin-1"
    try:
        text = _decode(data, encoding, final=complete)
    except (UnicodeDecodeError, LookupError):
        encoding, text = "latin-1", data.decode("latin-1")
    return text.encode("utf-8", "surrogatepass"), encoding


def _utf16_guess(sample: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when most high bytes of the sample's code units are NUL
    (text of Latin script in UTF-16 without a byte-order mark), else None."""
    units = len(sample) // 2
    if units < 2:
        return None
    odd = sample[1::2].count(0)
    even = sample[0::2].count(0)
    if odd >= 0.6 * units and even <= 0.05 * units:
        return "utf-16-le"
    if even >= 0.6 * units and odd <= 0.05 * units:
        return "utf-16-be"
    return None


#: Western encodings preferred when charset-normalizer rates them as well as its best guess: a
#: short French or German text reads as well in cp1250 (Polish) by its measures.
WESTERN = ("cp1252", "latin_1", "iso8859_15")


def _detected(sample: bytes) -> str | None:
    """The encoding charset-normalizer finds for ``sample`` (a Western one on a tie), or None."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(sample))
    if not matches:
        return None
    best = matches[0]
    for match in matches:
        if (
            match.encoding in WESTERN
            and match.chaos <= best.chaos + 0.01
            and match.coherence >= best.coherence - 0.01
        ):
            return str(match.encoding)
    return str(best.encoding)
