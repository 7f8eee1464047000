"""The canonical term encoding (``core.fact.encode_term``) with fast paths for the terms a bulk
load is made of: IRIs, xsd:string, the integer types and doubles.

``encode_term`` parses a literal's value (``Literal.value``) and then dispatches on its Python
type; for these datatypes the value is read straight from the lexical form (the literal was
validated when it was made), and an ASCII string's hashing form (NFKC + casefold) is its
lower-case form.  Everything else goes to ``encode_term``.  A property test holds the two equal.
"""
from __future__ import annotations

import struct

from ..core.fact import encode_term, normalize_text
from ..core.terms import DOUBLE_TYPES, INTEGER_TYPES, IRI, XSD_STRING, Literal, Term

_LEN = struct.Struct("<I").pack
_INT = struct.Struct("<q").pack
_DOUBLE = struct.Struct("<d").pack
_EIGHT = b"\x08\x00\x00\x00"
_INT64 = range(-(2**63), 2**63)


def canon_of(t: Term) -> bytes:
    """``encode_term(t)``, faster for IRIs, strings, integers and doubles."""
    if t.__class__ is IRI:
        b = t.value.encode("utf-8")
        return b"\x01" + _LEN(len(b)) + b
    if t.__class__ is not Literal:
        return encode_term(t)
    dt = t.datatype
    if dt == XSD_STRING:
        s = t.lexical
        b = (s.lower() if s.isascii() else normalize_text(s)).encode("utf-8")
        return b"\x02" + _LEN(len(b)) + b
    if dt in INTEGER_TYPES:
        v = int(t.lexical.strip())  # as core.terms.literal_value reads it
        if v in _INT64:
            return b"\x03" + _EIGHT + _INT(v)
    elif dt in DOUBLE_TYPES:
        return b"\x04" + _EIGHT + _DOUBLE(float(t.lexical.strip()) + 0.0)
    return encode_term(t)
