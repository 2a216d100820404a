"""JSON for the hooks without importing :mod:`json`, which imports :mod:`re` and costs ~8 ms
of CPU per hook process (half of a hook's run): CPython's own C scanner and encoder
(``_json``), the same code ``json`` uses underneath. Any surprise (another interpreter, a
changed internal signature, invalid input) falls back to :mod:`json`, so results are always
``json``'s. Standard library only, Python 3.8+.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Decoding:
    """The attributes ``_json.make_scanner`` reads (those of ``json.JSONDecoder()``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = None  # NaN / Infinity: not callable, so json handles them
    memo = None


def loads(text: str) -> "Any":
    """``json.loads(text)``; raises ValueError for invalid JSON."""
    try:
        import _json

        scanner: Any = _json.make_scanner
        stripped = text.strip(" \t\n\r")
        value, end = scanner(_Decoding())(stripped, 0)
        if end == len(stripped):
            return value
    except Exception:
        pass
    import json

    return json.loads(text)


def dumps(value: object, ascii_only: bool = True) -> str:
    """``json.dumps(value, ensure_ascii=ascii_only)``."""
    try:
        import _json

        make_encoder: Any = _json.make_encoder
        quote = _json.encode_basestring_ascii if ascii_only else _json.encode_basestring
        encode = make_encoder(None, None, quote, None, ": ", ", ", False, False, True)
        return "".join(encode(value, 0))
    except Exception:
        import json

        return json.dumps(value, ensure_ascii=ascii_only)


def load_file(path: str) -> "dict[str, Any]":
    """The JSON object in the file at ``path``; {} when it cannot be read, is not JSON or holds
    something else than an object (a hook never fails on a file it reads)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = loads(fh.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
