"""JSON for the hooks without importing :mod:`json`, which imports :mod:`re` and costs ~8 ms
of CPU per hook process (half of a hook's run): CPython's own C scanner and encoder
(``_json``), the same code ``json`` uses underneath. Any surprise (another interpreter, a
changed internal signature, invalid input) falls back to :mod:`json`, so results are always
``json``'s. Standard library only, Python 3.8+.
"""


class _Decoding:
    """The attributes ``_json.make_scanner`` reads (those of ``json.JSONDecoder()``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = None  # NaN / Infinity: not callable, so json handles them
    memo = None


def loads(text):
    """``json.loads(text)``; raises ValueError for invalid JSON."""
    try:
        import _json

        stripped = text.strip(" \t\n\r")
        value, end = _json.make_scanner(_Decoding())(stripped, 0)
        if end == len(stripped):
            return value
    except Exception:
        pass
    import json

    return json.loads(text)


def dumps(value, ascii_only=True):
    """``json.dumps(value, ensure_ascii=ascii_only)``."""
    try:
        import _json

        quote = _json.encode_basestring_ascii if ascii_only else _json.encode_basestring
        encode = _json.make_encoder(None, None, quote, None, ": ", ", ", False, False, True)
        return "".join(encode(value, 0))
    except Exception:
        import json

        return json.dumps(value, ensure_ascii=ascii_only)
