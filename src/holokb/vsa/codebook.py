"""Deterministic codebooks: one random-looking vector per term, derived from a hash of the term.

A term's vector is SHAKE-256 of (magic, seed, the term's canonical encoding), read as bits, so
the same term and seed give the same vector on any machine and in any order of insertion (no
random generator state, no float arithmetic).  HDC uses the bits packed into little-endian
64-bit words; HRR maps bit ``b`` to ``(1 - 2b) / sqrt(dim)`` (a random bipolar vector of unit length).
Roles (subject, predicate, object) and markers (self, negation) are hashed from their own
tagged names, which cannot collide with a term's encoding (different magic).
"""
from __future__ import annotations

import enum
import hashlib
import struct
from typing import Iterable, Sequence

import numpy as np

from ..core.fact import encode_term
from ..core.terms import IRI, Term
from .config import Representation, VSAConfig

_TERM_MAGIC = b"HKV1"
_SYMBOL_MAGIC = b"HKV1S"


class Symbol(enum.Enum):
    """The codebook's reserved vectors: the three roles, the entity placeholder and negation."""

    SUBJECT = "subject"
    PREDICATE = "predicate"
    OBJECT = "object"
    SELF = "self"
    NEGATE = "negate"


class Codebook:
    """Term → vector for one :class:`VSAConfig` (cached per term).

    >>> from holokb.core import IRI
    >>> cb = Codebook(VSAConfig.default("hdc", dim=128))
    >>> bool((cb.words([IRI("http://ex.org/a")]) == cb.words([IRI("http://ex.org/a")])).all())
    True
    """

    def __init__(self, config: VSAConfig):
        self.config = config
        self._words = config.dim // 64
        self._salt = struct.pack("<q", config.seed)
        self._cache: dict[Term, np.ndarray] = {}

    def _digest(self, magic: bytes, payload: bytes) -> np.ndarray:
        raw = hashlib.shake_256(magic + self._salt + payload).digest(self._words * 8)
        return np.frombuffer(raw, dtype="<u8").astype(np.uint64)

    def words(self, terms: Sequence[Term], *, cache: bool = True) -> np.ndarray:
        """Packed bits of each term's vector: ``uint64[len(terms), dim // 64]``.  ``cache=False`` (bulk
        encoding, each term asked once) neither reads nor fills the per-term cache."""
        out = np.empty((len(terms), self._words), dtype=np.uint64)
        if not cache:
            n = self._words * 8
            salt = _TERM_MAGIC + self._salt
            shake = hashlib.shake_256
            raw = b"".join([shake(salt + encode_term(t)).digest(n) for t in terms])
            out[:] = np.frombuffer(raw, dtype="<u8").reshape(len(terms), self._words)
            return out
        known = self._cache
        for i, t in enumerate(terms):
            v = known.get(t)
            if v is None:
                v = self._digest(_TERM_MAGIC, encode_term(t))
                if len(known) < 200_000:  # bounded: large builds stream terms once anyway
                    known[t] = v
            out[i] = v
        return out

    def symbol_words(self, symbol: Symbol) -> np.ndarray:
        """Packed bits of a reserved vector: ``uint64[dim // 64]``."""
        return self._digest(_SYMBOL_MAGIC, symbol.value.encode("ascii"))

    def vectors(self, terms: Sequence[Term]) -> np.ndarray:
        """The representation's vectors of ``terms``: packed bits (HDC) or bipolar float32 (HRR)."""
        return self.as_representation(self.words(terms))

    def symbol(self, symbol: Symbol) -> np.ndarray:
        return self.as_representation(self.symbol_words(symbol)[None, :])[0]

    def as_representation(self, words: np.ndarray) -> np.ndarray:
        if self.config.representation is Representation.HDC:
            return words
        return bipolar(words, self.config.dim)


class TermTable:
    """Terms numbered in first-seen order (ids index :attr:`terms`).  IRIs are looked up by their text,
    whose hash Python caches, so numbering a million facts' terms stays cheap."""

    def __init__(self) -> None:
        self.terms: list[Term] = []
        self._iri: dict[str, int] = {}
        self._other: dict[Term, int] = {}

    def __len__(self) -> int:
        return len(self.terms)

    def ids(self, terms: Iterable[Term]) -> np.ndarray:
        """The id of each term (new terms are numbered)."""
        iri, other, known = self._iri, self._other, self.terms
        out = []
        append = out.append
        for t in terms:
            if t.__class__ is IRI:
                i = iri.get(t.value)  # type: ignore[union-attr]
                if i is None:
                    i = iri[t.value] = len(known)  # type: ignore[union-attr]
                    known.append(t)
            else:
                i = other.get(t)
                if i is None:
                    i = other[t] = len(known)
                    known.append(t)
            append(i)
        return np.asarray(out, dtype=np.int64)

    def get(self, term: Term) -> int | None:
        """The id of a term seen before, else None."""
        return self._iri.get(term.value) if term.__class__ is IRI else self._other.get(term)  # type: ignore[arg-type]


def bipolar(words: np.ndarray, dim: int) -> np.ndarray:
    """Bits (packed little-endian words) → ``(1 - 2b) / sqrt(dim)`` as float32, one row per row (each
    byte looked up as its eight values: one gather instead of unpack, convert, scale)."""
    table = _bipolar_table(dim)
    raw = np.ascontiguousarray(words).view(np.uint8)
    out = table[raw].reshape(*raw.shape[:-1], raw.shape[-1] * 8)
    return out[..., :dim]


_TABLES: dict[int, np.ndarray] = {}


def _bipolar_table(dim: int) -> np.ndarray:
    t = _TABLES.get(dim)
    if t is None:
        bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
        t = _TABLES[dim] = ((1.0 - 2.0 * bits.astype(np.float32)) / np.float32(np.sqrt(dim))).astype(np.float32)
    return t


def unique_terms(rows: Iterable[Sequence[Term]]) -> list[Term]:
    """The distinct terms of ``rows`` in first-seen order."""
    return list(dict.fromkeys(t for r in rows for t in r))
