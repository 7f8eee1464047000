"""Facts, their identity, evidence, and the span records the ledger stores.

A fact's identity is the SHA-256 of a canonical, tagged byte encoding of
(subject, predicate, object, qualifiers, polarity).  Strings inside literals are NFKC
normalised and case-folded for hashing only; IRIs are compared exactly (RDF 1.1 IRI
equality is simple string comparison).  The encoding is pinned by golden tests.
"""
from __future__ import annotations

import hashlib
import struct
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal as _Lit

from .errors import InvalidValueError
from .terms import IRI, DateTimeValue, DateValue, Literal, Term, term_sort_key
from .time import Duration, Interval

Polarity = _Lit["affirm", "negate"]

_MAGIC = b"HKF1"


def normalize_text(s: str) -> str:
    """NFKC + casefold: the hashing form of a string (never shown to users)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())


def alias_key(s: str) -> str:
    """Alias matching key: NFKC + casefold + trim + collapsed whitespace."""
    return " ".join(normalize_text(s).split())


def _bytes(tag: int, payload: bytes) -> bytes:
    return bytes((tag,)) + struct.pack("<I", len(payload)) + payload


def _text(tag: int, s: str) -> bytes:
    return _bytes(tag, s.encode("utf-8"))


def encode_term(t: Term) -> bytes:
    """The canonical, tagged byte encoding of one term."""
    if isinstance(t, IRI):
        return _text(0x01, t.value)
    v = t.value
    if isinstance(v, bool):
        return _bytes(0x05, b"\x01" if v else b"\x00")
    if isinstance(v, int):
        if -(2**63) <= v < 2**63:
            return _bytes(0x03, struct.pack("<q", v))
        return _text(0x0C, str(v))
    if isinstance(v, float):
        return _bytes(0x04, struct.pack("<d", v + 0.0))
    if isinstance(v, Decimal):
        return _text(0x08, format(v, "f"))
    if isinstance(v, DateTimeValue):
        return _bytes(0x06, struct.pack("<q", v.ms))
    if isinstance(v, DateValue):
        return _bytes(0x07, struct.pack("<q", v.ms))
    if isinstance(v, Duration):
        return _bytes(0x09, struct.pack("<qq", v.months, v.ms))
    if isinstance(v, str):
        if t.lang:
            return _text(0x0B, normalize_text(v)) + _text(0x0B, t.lang)
        return _text(0x02, normalize_text(v))
    if isinstance(v, tuple):  # opaque datatype
        return _text(0x0A, v[0]) + _text(0x0A, v[1])
    raise InvalidValueError(f"cannot encode {t!r}")


@dataclass(frozen=True, slots=True)
class Fact:
    """A statement: subject, predicate, object, sorted qualifiers and a polarity.

    >>> f = Fact(IRI("http://ex.org/a"), IRI("http://ex.org/p"), Literal.of(1))
    >>> len(f.id)
    64
    """

    subject: IRI
    predicate: IRI
    object: Term
    qualifiers: tuple[tuple[str, Term], ...] = ()
    polarity: Polarity = "affirm"

    def __post_init__(self) -> None:
        if not isinstance(self.subject, IRI) or not isinstance(self.predicate, IRI):
            raise InvalidValueError("a fact's subject and predicate must be IRIs")
        if not isinstance(self.object, (IRI, Literal)):
            raise InvalidValueError("a fact's object must be an IRI or a Literal")
        if self.polarity not in ("affirm", "negate"):
            raise InvalidValueError(f"polarity must be 'affirm' or 'negate', got {self.polarity!r}")
        q = self.qualifiers
        if isinstance(q, dict):
            q = tuple(q.items())
        q = tuple(sorted(((str(k), v) for k, v in q), key=lambda kv: (kv[0], term_sort_key(kv[1]))))
        keys = [k for k, _ in q]
        if len(set(keys)) != len(keys):
            raise InvalidValueError(f"duplicate qualifier keys in {keys}")
        object.__setattr__(self, "qualifiers", q)

    def canonical_bytes(self) -> bytes:
        out = [_MAGIC, encode_term(self.subject), encode_term(self.predicate), encode_term(self.object)]
        out.append(struct.pack("<I", len(self.qualifiers)))
        for k, v in self.qualifiers:
            out.append(_text(0x10, k))
            out.append(encode_term(v))
        out.append(b"\x01" if self.polarity == "affirm" else b"\x00")
        return b"".join(out)

    @property
    def id(self) -> str:
        """SHA-256 hex of the canonical encoding: the fact's identity."""
        return hashlib.sha256(self.canonical_bytes()).hexdigest()

    def statement_key(self) -> bytes:
        """(subject, predicate, qualifiers): what functional supersession closes over."""
        out = [encode_term(self.subject), encode_term(self.predicate), struct.pack("<I", len(self.qualifiers))]
        for k, v in self.qualifiers:
            out.append(_text(0x10, k))
            out.append(encode_term(v))
        return hashlib.sha256(b"".join(out)).digest()


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a fact came from: document, chunk, character span, extractor, confidence."""

    document: str
    chunk: str | None = None
    char_start: int | None = None
    char_end: int | None = None
    extractor: str = "manual"
    extractor_version: str = "0"
    confidence: float = 1.0
    asserted_at: int | None = None

    def __post_init__(self) -> None:
        c = self.confidence
        if not isinstance(c, (int, float)) or not (0.0 <= float(c) <= 1.0) or c != c:
            raise InvalidValueError(f"confidence must be in [0, 1], got {c!r}")
        if (self.char_start is None) != (self.char_end is None):
            raise InvalidValueError("char_start and char_end come together")
        if self.char_start is not None and not (0 <= self.char_start <= self.char_end):  # type: ignore[operator]
            raise InvalidValueError(f"bad character span [{self.char_start}, {self.char_end})")


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One bitemporal span of a fact with its evidence, as stored and exported."""

    fact: Fact
    valid: Interval = field(default_factory=Interval.always)
    system: Interval = field(default_factory=Interval.always)
    evidence: tuple[Evidence, ...] = ()
    span_id: str | None = None
