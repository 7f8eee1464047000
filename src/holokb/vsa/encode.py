"""Role–filler encoding of facts: ``bind(SUBJECT, s) + bind(PREDICATE, p) + bind(OBJECT, o)``.

HDC bundles the three bound vectors by bitwise majority (three never tie); HRR sums them and
normalises.  A negated fact binds its predicate filler with the NEGATE vector as well, so
``not p(s, o)`` is far from ``p(s, o)`` in the predicate slot and close in the other two.
Encoding is batched (chunks of facts, each distinct term hashed once per chunk).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..core.terms import Term
from . import hdc, hrr
from .codebook import Codebook, Symbol, TermTable, bipolar
from .config import Representation

_CHUNK = 16384
#: Terms per block of the HRR per-byte table lookups (term_dots).
_LOOKUP_BLOCK = 2048
#: At most this many bytes of HRR term spectra are kept for a whole encode call (1M facts: ~1.4 GB).
_SPECTRA_BYTES = 2 << 30


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
        table = TermTable()
        neg = np.zeros(len(s), dtype=bool) if negated is None else np.asarray(negated, dtype=bool)
        ids = np.stack([table.ids(s), table.ids(p) * 2 + neg, table.ids(o)], axis=1) if len(s) else \
            np.zeros((0, 3), dtype=np.int64)
        return self.encode_ids(ids, table.terms)[0]

    def encode_ids(self, ids: np.ndarray, terms: Sequence[Term], out: np.ndarray | None = None,
                   norms: np.ndarray | None = None, words: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Vectors of facts given as term ids ``int64[n, 3]`` = (subject, 2 * predicate + negated, object)
        into ``terms``, and (HRR) the length of each fact's sum before normalising (what the
        structural search divides by); each distinct term is hashed once per call.  ``out`` and
        ``norms``, when given, are written in place; ``words`` (every term's codebook bits, by id) saves
        hashing."""
        n = len(ids)
        if out is None:
            out = np.empty((n, self.width), dtype=self.dtype)
        if norms is None and not self.hdc:
            norms = np.empty(n, dtype=np.float32)
        if n == 0:
            return out, norms
        flat = np.concatenate([ids[:, 0], ids[:, 1] >> 1, ids[:, 2]])
        used, inverse = np.unique(flat, return_inverse=True)
        words = words[used] if words is not None else self.codebook.words([terms[i] for i in used.tolist()], cache=False)
        local = inverse.reshape(3, n)
        neg_all = (ids[:, 1] & 1).astype(bool)
        spectra = None
        if not self.hdc and len(used) * (self.config.dim // 2 + 1) * 8 <= _SPECTRA_BYTES:
            # Every distinct term's spectrum once for the whole call (terms recur across chunks: at 1M
            # facts this is ~5x fewer transforms than once per chunk); rows are transformed
            # independently, so the numbers are the same either way.
            spectra = np.empty((len(used), self.config.dim // 2 + 1), dtype=np.complex64)
            for lo in range(0, len(used), _CHUNK):
                spectra[lo:lo + _CHUNK] = hrr.spectrum(bipolar(words[lo:lo + _CHUNK], self.config.dim))
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            part = local[:, lo:hi]
            if self.hdc:
                self._hdc_chunk(words, part, neg_all[lo:hi], out[lo:hi])
            else:
                out[lo:hi], norms[lo:hi] = self._hrr_chunk(words, part, neg_all[lo:hi], spectra)  # type: ignore[index]
        return out, norms

    def _hdc_chunk(self, words: np.ndarray, part: np.ndarray, neg: np.ndarray, out: np.ndarray) -> None:
        """maj3(S^s, P^p, O^o) written into ``out``: (s & (p | o)) | (p & o)."""
        sv = words[part[0]]
        sv ^= self.roles[0]
        pv = words[part[1]]
        pv ^= self.roles[1]
        if neg.any():
            pv[neg] ^= self.negate
        ov = words[part[2]]
        ov ^= self.roles[2]
        np.bitwise_or(pv, ov, out=out)
        out &= sv
        pv &= ov
        out |= pv

    def _hrr_chunk(self, words: np.ndarray, part: np.ndarray, neg: np.ndarray,
                   spectra: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The normalised ``S ⊛ s + P ⊛ p + O ⊛ o`` of a chunk, from the spectra of every term (by index
        into ``words``) or, without them, of the chunk's own terms."""
        if spectra is None:
            used, local = np.unique(part, return_inverse=True)
            local = local.reshape(part.shape)
            spectra = hrr.spectrum(bipolar(words[used], self.config.dim))
        else:
            local = part
        total = spectra[local[0]]
        total *= self.role_spectra[0]
        # A KB has few predicates: bind each distinct (predicate, negated) once, then gather (the same
        # products, so the same numbers as binding per fact).
        pairs, which = np.unique(local[1] * 2 + neg, return_inverse=True)
        bound = spectra[pairs >> 1]
        bound *= self.role_spectra[1]
        negated = (pairs & 1) == 1
        if negated.any():
            bound[negated] *= self.negate_spectrum
        total += bound[which]
        term = spectra[local[2]]  # a fancy index, not take(out=): take's axis-0 gather is ~4x slower
        term *= self.role_spectra[2]
        total += term
        raw = hrr.from_spectrum(total, self.config.dim)
        lengths = hrr.norms(raw)
        raw /= np.where(lengths == 0, 1, lengths)[:, None]
        return raw, lengths

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

    def component_weights(self, query: np.ndarray, role: np.ndarray, ids: np.ndarray,
                          terms: Sequence[Term]) -> np.ndarray:
        """The share of ``query``'s similarity that each component (role, term id; predicate ids are
        ``2 * id + negated``) gives a fact holding it (structure.py): HDC ``(agree - 1/2) / 2``, HRR the
        dot product with the normalised query."""
        if len(ids) == 0:
            return np.zeros(0, dtype=np.float64)
        tid = np.where(role == 1, ids >> 1, ids)
        neg = (role == 1) & ((ids & 1) == 1)
        words = self.codebook.words([terms[i] for i in tid.tolist()])
        if self.hdc:
            for r in range(3):
                words[role == r] ^= self.roles[r]
            words[neg] ^= self.negate
            agree = 1.0 - hdc.hamming(words, query).astype(np.float64) / self.config.dim
            return (agree - 0.5) / 2
        spectra = hrr.spectrum(bipolar(words, self.config.dim))
        for r in range(3):
            spectra[role == r] *= self.role_spectra[r]
        spectra[neg] *= self.negate_spectrum
        parts = hrr.from_spectrum(spectra, self.config.dim)
        return (parts @ hrr.normalize(query)).astype(np.float64)

    def term_dots(self, query: np.ndarray, words: np.ndarray) -> Callable[[int, np.ndarray], np.ndarray]:
        """HRR: ``f(role, ids)`` = the dot product of component (role, id) with the normalised ``query``
        (predicate ids ``2 * id + negated``), from the terms' codebook bits ``words`` (by term id).
        ``<R ⊛ t, q> = <t, y>`` with ``y`` the correlation of ``q`` with ``R``; with ``t`` bipolar, that is
        a sum of per-byte table entries (each table row: the eight signed coordinates of ``y``)."""
        q = hrr.normalize(query)
        spec = hrr.spectrum(q)
        scale = np.float32(1.0 / np.sqrt(self.config.dim))
        bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float64)
        tables = []
        for rs in (self.role_spectra[0], self.role_spectra[1], self.role_spectra[2],
                   self.role_spectra[1] * self.negate_spectrum):
            y = hrr.from_spectrum(spec * np.conj(rs), self.config.dim).astype(np.float64).reshape(-1, 8)
            tables.append((y.sum(axis=1)[:, None] - 2.0 * (y @ bits.T)) * float(scale))
        flat = [np.ascontiguousarray(t).ravel() for t in tables]
        offsets = np.arange(self.config.dim // 8, dtype=np.intp) * 256

        def lookup(table: np.ndarray, term_ids: np.ndarray) -> np.ndarray:
            # Flat gathers in blocks whose index and value buffers stay in cache (two to three times
            # faster than a two-array fancy index over all terms at once).
            out = np.empty(len(term_ids), dtype=np.float64)
            for lo in range(0, len(term_ids), _LOOKUP_BLOCK):
                idx = words[term_ids[lo:lo + _LOOKUP_BLOCK]].view(np.uint8).astype(np.intp)
                idx += offsets
                out[lo:lo + _LOOKUP_BLOCK] = table.take(idx).sum(axis=1)
            return out

        def dots(role: int, ids: np.ndarray) -> np.ndarray:
            if role != 1:
                return lookup(flat[role], ids)
            out = np.empty(len(ids), dtype=np.float64)
            neg = (ids & 1) == 1
            for table, sel in ((flat[1], ~neg), (flat[3], neg)):
                if sel.any():
                    out[sel] = lookup(table, ids[sel] >> 1)
            return out
        return dots

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
