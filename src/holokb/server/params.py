"""Reading request parameters strictly: the query string / urlencoded form parser and AsOf parameters.

Starlette (like ``urllib.parse.parse_qsl``) passes malformed percent-escapes through as text and
replaces bytes that are not UTF-8; a SPARQL endpoint must instead answer 400, so that a query is
never run in a form the client did not send.  The parser here rejects both, with a position.

>>> parse_form(b"query=ASK%20%7B%7D&default-graph-uri=http%3A%2F%2Fex.org%2Fg")
(('query', 'ASK {}'), ('default-graph-uri', 'http://ex.org/g'))
"""
from __future__ import annotations

import re

from ..core import MAX_TIME, MIN_TIME, AsOf, HolokbError, parse_instant
from .errors import BadRequest

_PCT = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def _decode(part: bytes, where: int, what: str) -> str:
    bad = _PCT.search(part)
    if bad is not None:
        raise BadRequest(f"malformed percent-encoding in the {what} at byte {where + bad.start()}: "
                         f"'%' must be followed by two hex digits", code="bad-percent-encoding")
    raw = part.replace(b"+", b" ")
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        j = raw.find(b"%", i)
        if j < 0:
            out += raw[i:]
            break
        out += raw[i:j]
        out.append(int(raw[j + 1:j + 3], 16))
        i = j + 3
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadRequest(f"the {what} is not UTF-8 after percent-decoding (byte {e.start} of a value "
                         f"starting at byte {where})", code="not-utf8") from None


def parse_form(data: bytes, *, what: str = "query string") -> tuple[tuple[str, str], ...]:
    """Name/value pairs of an ``application/x-www-form-urlencoded`` string, in order, repeats kept.

    Raises :class:`BadRequest` on a malformed escape or text that is not UTF-8.
    """
    out: list[tuple[str, str]] = []
    pos = 0
    for field in data.split(b"&"):
        if field:
            name, eq, value = field.partition(b"=")
            out.append((_decode(name, pos, what), _decode(value, pos + len(name) + len(eq), what)))
        pos += len(field) + 1
    return tuple(out)


def single(pairs: tuple[tuple[str, str], ...], name: str, *, required: bool = False) -> str | None:
    """The one value of ``name`` (400 if it repeats, or if it is missing and ``required``)."""
    values = [v for k, v in pairs if k == name]
    if len(values) > 1:
        raise BadRequest(f"parameter {name!r} given {len(values)} times; give it once", code="repeated-parameter")
    if not values:
        if required:
            raise BadRequest(f"parameter {name!r} is required", code="missing-parameter")
        return None
    return values[0]


def every(pairs: tuple[tuple[str, str], ...], name: str) -> tuple[str, ...]:
    """All values of a repeatable parameter, in request order."""
    return tuple(v for k, v in pairs if k == name)


def as_of_of(as_of: str | None, valid: str | None) -> AsOf:
    """``as-of`` (system time, and valid time unless ``valid`` is given) and ``valid``; default latest.

    >>> as_of_of("2026-01-01", None) == AsOf.at(parse_instant("2026-01-01"))
    True
    """
    try:
        s = parse_instant(as_of) if as_of else MAX_TIME
        v = parse_instant(valid) if valid else s
    except HolokbError as e:
        raise BadRequest(f"{e.message}; write times as 2026-01-01, 2026-01-01T10:00Z, unix ms or latest",
                         code="bad-time") from None
    if not (MIN_TIME <= s <= MAX_TIME and MIN_TIME <= v <= MAX_TIME):
        raise BadRequest("a time is outside the signed 64-bit millisecond range", code="bad-time")
    return AsOf(s, v)
