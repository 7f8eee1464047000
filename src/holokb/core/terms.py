"""Terms: IRIs and typed literals, and their canonical values.

Literals keep the lexical form they arrived with (stored values keep their form); the
*value* (``Literal.value``) is what identity hashing and comparisons use, so
``"01"^^xsd:integer`` and ``"1"^^xsd:integer`` are the same term for the KB.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from typing import Union

from .errors import InvalidValueError
from .time import Duration, parse_date_ms, parse_datetime_ms, parse_duration

from .vocab import (  # noqa: F401 - the namespaces live in .vocab (no imports); re-exported here
    HK, OWL, RDF, RDF_LANGSTRING, RDF_TYPE, RDFS, SKOLEM_PREFIX, XSD, XSD_BOOLEAN, XSD_DATE, XSD_DATETIME,
    XSD_DECIMAL, XSD_DOUBLE, XSD_DURATION, XSD_INTEGER, XSD_STRING,
)

#: xsd integer subtypes that are read as integers (their lexical form is kept).
INTEGER_TYPES = frozenset(
    XSD + n
    for n in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
        "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt",
        "unsignedShort", "unsignedByte",
    )
)
DOUBLE_TYPES = frozenset({XSD_DOUBLE, XSD + "float"})

_IRI_BAD = re.compile(r'[\x00-\x20<>"{}|^`\\]')


@dataclass(frozen=True, slots=True, order=True)
class IRI:
    """An absolute IRI.  ``IRI("http://example.org/Alice")``."""

    value: str

    def __post_init__(self) -> None:
        if not self.value or _IRI_BAD.search(self.value):
            raise InvalidValueError(f"not a valid IRI: {self.value!r}")

    def __str__(self) -> str:
        return self.value

    @property
    def is_skolem(self) -> bool:
        """True for IRIs minted for blank nodes."""
        return self.value.startswith(SKOLEM_PREFIX)


Value = Union[str, int, float, bool, Decimal, Duration, "DateValue", "DateTimeValue", tuple]


@dataclass(frozen=True, slots=True, order=True)
class DateTimeValue:
    """An xsd:dateTime as unix milliseconds (UTC; a missing timezone is read as UTC)."""

    ms: int


@dataclass(frozen=True, slots=True, order=True)
class DateValue:
    """An xsd:date as unix milliseconds of its midnight UTC."""

    ms: int


@dataclass(frozen=True, slots=True)
class Literal:
    """A typed literal: lexical form, datatype IRI and (for rdf:langString) a language tag.

    >>> Literal.of(42).value
    42
    >>> Literal("PT15M", XSD_DURATION).value
    Duration(months=0, ms=900000)
    """

    lexical: str
    datatype: str = XSD_STRING
    lang: str | None = None

    def __post_init__(self) -> None:
        if self.lang is not None:
            if self.datatype != RDF_LANGSTRING:
                object.__setattr__(self, "datatype", RDF_LANGSTRING)
            object.__setattr__(self, "lang", self.lang.lower())
        # Validate eagerly so that nothing ill-typed enters the KB.
        _ = self.value

    @property
    def value(self) -> Value:
        """The typed value (int, float, bool, Decimal, Duration, DateTimeValue, DateValue, str)."""
        return literal_value(self.lexical, self.datatype, self.lang)

    @staticmethod
    def of(v: object) -> "Literal":
        """Build a literal from a Python value: str, bool, int, float, Decimal, Duration."""
        if isinstance(v, bool):
            return Literal("true" if v else "false", XSD_BOOLEAN)
        if isinstance(v, int):
            return Literal(str(v), XSD_INTEGER)
        if isinstance(v, float):
            if not math.isfinite(v):
                raise InvalidValueError(f"doubles must be finite, got {v!r}")
            return Literal(repr(v + 0.0), XSD_DOUBLE)
        if isinstance(v, Decimal):
            return Literal(str(v), XSD_DECIMAL)
        if isinstance(v, Duration):
            return Literal(v.lexical(), XSD_DURATION)
        if isinstance(v, str):
            return Literal(v, XSD_STRING)
        raise InvalidValueError(f"cannot make a literal from {type(v).__name__}")

    def __str__(self) -> str:
        if self.lang:
            return f'"{self.lexical}"@{self.lang}'
        if self.datatype == XSD_STRING:
            return f'"{self.lexical}"'
        return f'"{self.lexical}"^^<{self.datatype}>'


Term = Union[IRI, Literal]


def stored_iri(value: str) -> IRI:
    """The IRI of a value read back from where a checked IRI wrote it (the ledger, a forked parse
    worker): the same object the constructor makes, without checking again (~2x cheaper)."""
    t = object.__new__(IRI)
    object.__setattr__(t, "value", value)
    return t


def stored_literal(lexical: str, datatype: str, lang: str | None) -> Literal:
    """:func:`stored_iri` for a Literal's fields as the constructor left them (lang lower-cased,
    rdf:langString set), so its value is not parsed again here."""
    t = object.__new__(Literal)
    object.__setattr__(t, "lexical", lexical)
    object.__setattr__(t, "datatype", datatype)
    object.__setattr__(t, "lang", lang)
    return t


def literal_value(lexical: str, datatype: str, lang: str | None = None) -> Value:
    """Parse a lexical form under its datatype; raise :class:`InvalidValueError` when ill-typed."""
    try:
        if datatype == XSD_STRING or datatype == RDF_LANGSTRING:
            return lexical
        if datatype in INTEGER_TYPES:
            return int(lexical.strip())
        if datatype in DOUBLE_TYPES:
            s = lexical.strip()
            if s in ("INF", "+INF", "-INF", "NaN"):
                raise InvalidValueError(f"doubles must be finite, got {lexical!r}")
            f = float(s)
            if not math.isfinite(f):
                raise InvalidValueError(f"doubles must be finite, got {lexical!r}")
            return f + 0.0  # folds -0.0 to 0.0
        if datatype == XSD_DECIMAL:
            d = Decimal(lexical.strip())
            if not d.is_finite():
                raise InvalidValueError(f"decimals must be finite, got {lexical!r}")
            # Trailing zeros go, no digit does: normalize() alone rounds to its context's 28 digits, which
            # made 1.0000000000000000000000000000001 and …2 one value (one term, one fact).
            return d.normalize(Context(prec=max(28, len(d.as_tuple().digits)))) if d != 0 else Decimal(0)
        if datatype == XSD_BOOLEAN:
            s = lexical.strip()
            if s in ("true", "1"):
                return True
            if s in ("false", "0"):
                return False
            raise InvalidValueError(f"not an xsd:boolean: {lexical!r}")
        if datatype == XSD_DATETIME:
            return DateTimeValue(parse_datetime_ms(lexical.strip()))
        if datatype == XSD_DATE:
            return DateValue(parse_date_ms(lexical.strip()))
        if datatype == XSD_DURATION:
            return parse_duration(lexical.strip())
    except InvalidValueError:
        raise
    except (ValueError, InvalidOperation, ArithmeticError) as e:
        raise InvalidValueError(f"ill-typed literal {lexical!r}^^<{datatype}>: {e}") from None
    # Any other datatype: kept opaque, compared by (datatype, lexical).
    return (datatype, lexical)


def term_sort_key(t: Term) -> tuple:
    """A total, deterministic order over terms: IRIs first, then literals by datatype and lexical."""
    if isinstance(t, IRI):
        return (0, t.value, "", "")
    return (1, t.datatype, t.lexical, t.lang or "")
