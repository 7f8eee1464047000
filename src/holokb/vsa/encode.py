"""Role–filler encoding of facts: ``bind(SUBJECT, s) + bind(PREDICATE, p) + bind(OBJECT, o)``.

HDC bundles the three bound vectors by bitwise majority (three never tie); HRR sums them and
normalises.  A negated fact binds its predicate filler with the NEGATE vector as well, so
``not p(s, o)`` is far from ``p(s, o)`` in the predicate slot and close in the other two.
Encoding is batched (chunks of facts, each distinct term hashed once per chunk).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core.terms import Term
from . import hdc, hrr
from .codebook import Codebook, Symbol, bipolar
from .config import Representation

_CHUNK = 16384


class FactEncoder:
    """Vectors of (subject, predicate, object, negated) facts and of term queries for one codebook."""

    def __init__(self, codebook: Codebook):
        self.codebook = codebook
        self.config = codebook.config
        self.hdc = self.config.representation is Representation.HDC
        self.roles = [codebook.symbol_words(s) for s in (Symbol.SUBJECT, Symbol.PREDICATE, Symbol.OBJECT)]
        self.negate = codebook.symbol_words(Symbol.NEGATE)
        if not self.hdc:
            d = self.config.dim
            self.role_spectra = [hrr.spectrum(bipolar(r[None, :], d)[0]) for r in self.roles]
            self.negate_spectrum = hrr.spectrum(bipolar(self.negate[None, :], d)[0])

    @property
    def width(self) -> int:
        """Row width of an encoded vector (words for HDC, floats for HRR)."""
        return self.config.dim // 64 if self.hdc else self.config.dim

    @property
    def dtype(self) -> type:
        return np.uint64 if self.hdc else np.float32

    def encode(self, s: Sequence[Term], p: Sequence[Term], o: Sequence[Term],
               negated: Sequence[bool] | None = None) -> np.ndarray:
        """One vector per fact (rows in input order)."""
        n = len(s)
        out = np.empty((n, self.width), dtype=self.dtype)
        neg_all = np.zeros(n, dtype=bool) if negated is None else np.asarray(negated, dtype=bool)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            out[lo:hi] = self._chunk(s[lo:hi], p[lo:hi], o[lo:hi], neg_all[lo:hi])
        return out

    def _chunk(self, s, p, o, neg: np.ndarray) -> np.ndarray:
        index: dict[Term, int] = {}
        ids = [np.fromiter((index.setdefault(t, len(index)) for t in col), dtype=np.int64, count=len(col))
               for col in (s, p, o)]
        words = self.codebook.words(list(index))
        if self.hdc:
            sv = words[ids[0]] ^ self.roles[0]
            pv = words[ids[1]] ^ self.roles[1]
            if neg.any():
                pv[neg] ^= self.negate
            ov = words[ids[2]] ^ self.roles[2]
            return hdc.majority3(sv, pv, ov)
        spectra = hrr.spectrum(bipolar(words, self.config.dim))
        total = spectra[ids[0]]
        total *= self.role_spectra[0]
        part = spectra[ids[1]]
        part *= self.role_spectra[1]
        if neg.any():
            part[neg] *= self.negate_spectrum
        total += part
        np.take(spectra, ids[2], axis=0, out=part)
        part *= self.role_spectra[2]
        total += part
        return hrr.normalize(hrr.from_spectrum(total, self.config.dim))

    def bundle(self, vectors: np.ndarray, tiebreak: Term | None = None) -> np.ndarray:
        """One vector standing for all rows of ``vectors`` (HDC ties take the tiebreak term's bits)."""
        if self.hdc:
            tb = self.codebook.words([tiebreak])[0] if tiebreak is not None else self.codebook.symbol_words(Symbol.SELF)
            return hdc.bundle(vectors, tb)
        return hrr.bundle(vectors)

    def term_query(self, terms: Sequence[Term]) -> np.ndarray:
        """A query close to every fact that mentions any of ``terms`` in any role (closer the more it
        mentions): the bundle of each term bound with each role."""
        words = self.codebook.words(list(terms))
        if self.hdc:
            parts = np.concatenate([words ^ r for r in self.roles])
            return self.bundle(parts)
        spectra = hrr.spectrum(bipolar(words, self.config.dim))
        parts = np.concatenate([hrr.from_spectrum(spectra * rs, self.config.dim) for rs in self.role_spectra])
        return hrr.bundle(parts)

    def sketch(self, vectors: np.ndarray) -> np.ndarray:
        """The search sketch of each row: ``uint64[n, sketch_bits // 64]``."""
        bits = self.config.sketch_bits
        if self.hdc:
            return np.ascontiguousarray(vectors[:, : bits // 64])
        return hrr.sign_words(vectors, bits)

    def similarity(self, matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Exact similarity of each row to ``query``: 1 - Hamming/dim (HDC) or cosine (HRR), float64."""
        if self.hdc:
            return 1.0 - hdc.hamming(matrix, query).astype(np.float64) / self.config.dim
        return hrr.cosine(matrix, query).astype(np.float64)

    def noise_floor(self) -> float:
        """Six standard deviations above the similarity of unrelated vectors (0.5 for HDC, 0 for HRR):
        a score below it is noise, not a signal."""
        sd = 0.5 / np.sqrt(self.config.dim) if self.hdc else 1.0 / np.sqrt(self.config.dim)
        return float((0.5 if self.hdc else 0.0) + 6 * sd)
