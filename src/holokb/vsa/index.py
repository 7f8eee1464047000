"""A top-k index over keyed vectors: add, replace, remove, and deterministic search.

Order of results: score descending, then key ascending (keys are content-derived: fact ids,
IRIs), so the answer never depends on insertion order.  HRR cosines are rounded to 1e-6 before
ordering so that last-bit differences of float sums cannot reorder near-ties.

Search is exact while the index holds at most ``exact_below`` items.  Above that it is two-stage:
the sketch (``sketch_bits`` bits per item, stored column-major so one query streams
``sketch_bits / 8`` bytes per item) ranks every item by Hamming distance, every item within the
``candidates``-th smallest sketch distance is kept (ties included, so the set depends on content
only), and those are ranked exactly.  ``bench/vsa.py`` reports its recall@10 against exact search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from .config import Representation
from .encode import FactEncoder
from .structure import Components, Postings, certified_candidates, decomposed_scores
from . import hdc, hrr

#: How far below the k-th single-precision HRR score a row may be and still be rescored exactly.
_SLACK = 1e-4


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One search hit: the item's key and its similarity (1 - Hamming/dim for HDC, cosine for HRR)."""

    key: str
    score: float


class VectorIndex:
    """Keyed vectors of one encoder's representation, searchable by similarity."""

    def __init__(self, encoder: FactEncoder, capacity: int = 1024):
        self.encoder = encoder
        self.config = encoder.config
        cap = max(16, capacity)
        self._vec = np.zeros((cap, encoder.width), dtype=encoder.dtype)
        self._sketch = np.zeros((self.config.sketch_bits // 64, cap), dtype=np.uint64)
        self._keys: list[str | None] = []
        self._row: dict[str, int] = {}
        self._alive = np.zeros(cap, dtype=bool)
        # Per row: the term ids of its (subject, 2 * predicate + negated, object) components, -1 when
        # unknown, and (HRR) the length of the fact's sum before normalising; see structure.py.
        self._comp = np.full((cap, 3), -1, dtype=np.int64)
        self._norm = np.ones(cap, dtype=np.float32)
        self._postings: Postings | None = None

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, key: object) -> bool:
        return key in self._row

    def keys(self) -> list[str]:
        """Every key, sorted."""
        return sorted(self._row)

    def vector(self, key: str) -> np.ndarray:
        return self._vec[self._row[key]].copy()

    def vectors(self, keys: Sequence[str]) -> np.ndarray:
        return self._vec[[self._row[k] for k in keys]]

    # -- changes ------------------------------------------------------------------------------------

    def add(self, keys: Sequence[str], vectors: np.ndarray, components: np.ndarray | None = None,
            norms: np.ndarray | None = None) -> None:
        """Add items (an existing key's vector is replaced), with their component term ids
        ``int64[n, 3]`` and (HRR) pre-normalisation lengths when they are facts."""
        if len(keys) != len(vectors):
            raise ValueError("one vector per key")
        keys = list(keys)
        sketch = self.encoder.sketch(vectors)
        have = self._row
        old = [have.get(k) for k in keys] if have else [None] * len(keys)
        fresh = [i for i, r in enumerate(old) if r is None]
        if len(fresh) < len(keys):
            at = np.asarray([i for i, r in enumerate(old) if r is not None], dtype=np.int64)
            rows = np.asarray([r for r in old if r is not None], dtype=np.int64)
            self._put(rows, at, vectors, sketch, components, norms)
            self._postings = None  # replaced rows may hold other components: sorted afresh on next use
        if fresh:
            start = len(self._keys)
            self._reserve(start + len(fresh))
            rows = np.arange(start, start + len(fresh))
            at = np.asarray(fresh, dtype=np.int64)
            self._put(rows, at, vectors, sketch, components, norms)
            self._alive[rows] = True
            new_keys = [keys[i] for i in fresh] if len(fresh) < len(keys) else keys
            self._keys.extend(new_keys)
            have.update(zip(new_keys, range(start, start + len(fresh))))
            if self._postings is not None:
                self._postings.extend(start, self._comp[start:start + len(fresh)])

    def append(self, keys: Sequence[str], components: np.ndarray,
               fill: Callable[[np.ndarray, np.ndarray], None]) -> None:
        """Add new keys whose vectors ``fill(vectors, norms)`` writes in place into the index's own
        rows (a bulk build then never copies the matrix); every key must be new."""
        keys = list(keys)
        if any(k in self._row for k in keys) or len(set(keys)) != len(keys):
            raise ValueError("append takes new, distinct keys only")
        start, n = len(self._keys), len(keys)
        self._reserve(start + n)
        fill(self._vec[start:start + n], self._norm[start:start + n])
        self._sketch[:, start:start + n] = self.encoder.sketch(self._vec[start:start + n]).T
        self._comp[start:start + n] = components
        self._alive[start:start + n] = True
        self._keys.extend(keys)
        self._row.update(zip(keys, range(start, start + n)))
        if self._postings is not None:
            self._postings.extend(start, self._comp[start:start + n])

    def _put(self, rows: np.ndarray, at: np.ndarray, vectors: np.ndarray, sketch: np.ndarray,
             components: np.ndarray | None, norms: np.ndarray | None) -> None:
        whole = len(at) == len(vectors)
        self._vec[rows] = vectors if whole else vectors[at]
        self._sketch[:, rows] = (sketch if whole else sketch[at]).T
        self._comp[rows] = -1 if components is None else (components if whole else components[at])
        self._norm[rows] = 1.0 if norms is None else (norms if whole else norms[at])

    def remove(self, keys: Iterable[str]) -> int:
        """Remove items by key (unknown keys are ignored); returns how many were removed."""
        n = 0
        for k in keys:
            r = self._row.pop(k, None)
            if r is not None:
                self._keys[r] = None
                self._alive[r] = False
                n += 1
        # The postings keep removed rows: every reader filters by ``_alive`` (compaction renumbers rows
        # and drops them).
        if len(self._keys) > 1024 and len(self._row) < len(self._keys) // 2:
            self._compact()
        return n

    def _reserve(self, need: int) -> None:
        cap = self._vec.shape[0]
        if need <= cap:
            return
        new = max(need, cap * 2)
        vec = np.zeros((new, self._vec.shape[1]), dtype=self._vec.dtype)
        vec[:cap] = self._vec
        sk = np.zeros((self._sketch.shape[0], new), dtype=np.uint64)
        sk[:, :cap] = self._sketch
        alive = np.zeros(new, dtype=bool)
        alive[:cap] = self._alive
        comp = np.full((new, 3), -1, dtype=np.int64)
        comp[:cap] = self._comp
        norm = np.ones(new, dtype=np.float32)
        norm[:cap] = self._norm
        self._vec, self._sketch, self._alive, self._comp, self._norm = vec, sk, alive, comp, norm

    def _compact(self) -> None:
        rows = np.flatnonzero(self._alive[: len(self._keys)])
        keys = [self._keys[r] for r in rows.tolist()]
        n = len(rows)
        self._vec[:n] = self._vec[rows]
        self._sketch[:, :n] = self._sketch[:, rows]
        self._comp[:n] = self._comp[rows]
        self._norm[:n] = self._norm[rows]
        self._postings = None
        self._alive[:] = False
        self._alive[:n] = True
        self._keys = keys  # type: ignore[assignment]
        self._row = {k: i for i, k in enumerate(keys)}  # type: ignore[misc]

    # -- search -------------------------------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, *, exclude: Iterable[str] = (), components: Components | None = None,
               above: float | None = None) -> tuple[Neighbour, ...]:
        """The ``k`` items most similar to ``query`` (score desc, key asc), skipping ``exclude``.

        With the query's ``components`` (large indexes only), candidates come from the facts sharing
        them (structure.py) and are scored exactly; with ``above``, hits scoring below it may be left
        out (callers that cut at the noise floor pass it, which keeps the structural path usable for
        rare terms)."""
        n = len(self._keys)
        if k <= 0 or not self._row:
            return ()
        skip = np.asarray([self._row[x] for x in exclude if x in self._row], dtype=np.int64)
        found = None
        if components is not None and len(self._row) > self.config.exact_below:
            found = self._structural(query, k, skip, components, above)
        if found is not None:
            rows, scores = found
        elif len(self._row) <= self.config.exact_below:
            # Every row, scored in place (no gather of the matrix); dead and skipped rows drop out.
            scores = self._scores(slice(0, n), query)
            live = self._alive[:n].copy()
            live[skip] = False
            rows = np.flatnonzero(live)
            scores = scores[rows]
        else:
            rows = self._candidates(query, n, k + len(skip))
            if skip.size:
                rows = np.setdiff1d(rows, skip, assume_unique=True)
            scores = self._scores(rows, query, components)
        if rows.size == 0:
            return ()
        if rows.size > k:
            kth = np.partition(scores, rows.size - k)[rows.size - k]
            keep = scores >= kth - _SLACK  # ties at the cut-off all stay; the key decides among them below
            rows, scores = rows[keep], scores[keep]
        if self.config.representation is Representation.HRR:
            # Ranked in single precision; what is returned is rescored in double precision and rounded,
            # so a fact's score never depends on which other rows were scored with it.
            scores = np.round(self.encoder.similarity(self._vec[rows], query), 6)
            if rows.size > k:
                kth = np.partition(scores, rows.size - k)[rows.size - k]
                keep = scores >= kth
                rows, scores = rows[keep], scores[keep]
        keys = [self._keys[r] for r in rows.tolist()]
        order = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))[:k]
        return tuple(Neighbour(keys[i], float(scores[i])) for i in order)  # type: ignore[arg-type]

    def _structural(self, query: np.ndarray, k: int, skip: np.ndarray, components: Components,
                    above: float | None) -> tuple[np.ndarray, np.ndarray] | None:
        n = len(self._keys)
        if self._postings is None:
            self._postings = Postings(self._comp[:n])

        def live(rows: np.ndarray) -> np.ndarray:
            ok = self._alive[rows]
            return ok & ~np.isin(rows, skip) if skip.size else ok

        hdc_rep = self.config.representation is Representation.HDC
        chance = 0.5 if hdc_rep else 0.0

        def score(rows: np.ndarray) -> np.ndarray:
            return self._scores(rows, query, components)
        return certified_candidates(
            self._postings, components, k=k, live=live, norms=None if hdc_rep else self._norm, chance=chance,
            margin=self.encoder.noise_floor() - chance, above=above, n_live=len(self._row) - skip.size,
            score=score, budget=self.config.structural_budget,
            # HRR's margin (6/sqrt(dim)) is wide next to one shared component's share, so nearly every fact
            # sharing something gets scored: past 2x the budget in matches it is over budget (measured at
            # 1M: giving up there saves the sort, ~10 ms CPU, before the sketch kernel answers).
            shared_cap=None if hdc_rep else 2 * self.config.structural_budget)

    def _scores(self, rows: np.ndarray | slice, query: np.ndarray, components: Components | None = None) -> np.ndarray:
        """Similarity of ``rows`` to ``query`` (HRR: single precision, for ranking).  HRR facts with the
        query's ``components`` are scored from their term ids (a few table lookups per distinct term,
        no 4 KB row read per fact: gathering scattered rows of a large matrix is what costs)."""
        if (components is not None and components.term_dots is not None and not isinstance(rows, slice)
                and self.config.representation is Representation.HRR):
            comp = self._comp[rows]
            if rows.size and comp.min() >= 0:
                return decomposed_scores(components, comp, self._norm[rows].astype(np.float64))
        if self.config.representation is Representation.HDC:
            if isinstance(rows, slice):
                d = hdc.hamming(self._vec[rows], query).astype(np.float64)
            else:
                d = hdc.hamming_rows(self._vec, rows, query).astype(np.float64)
            return 1.0 - d / self.config.dim
        return hrr.cosine_fast(self._vec[rows], query).astype(np.float64)

    def _candidates(self, query: np.ndarray, n: int, k: int) -> np.ndarray:
        """Rows whose sketch distance is within the ``candidates``-th smallest (ties kept)."""
        q = self.encoder.sketch(query[None, :])[0]
        dist = hdc.hamming_columns(self._sketch, q, n)
        dist[~self._alive[:n]] = np.iinfo(dist.dtype).max
        c = min(n, max(self.config.candidates, k))
        if c >= n:
            return np.flatnonzero(self._alive[:n])
        # The c-th smallest distance from a histogram (one pass; distances are small integers).
        cut = int(np.searchsorted(np.cumsum(np.bincount(dist)), c))
        rows = np.flatnonzero(dist <= cut)
        return rows[self._alive[rows]]

    # -- persistence support ------------------------------------------------------------------------

    def arrays(self) -> tuple[list[str], np.ndarray]:
        """(keys, vectors) of the live items, sorted by key (what a cache file stores)."""
        keys = sorted(self._row)
        return keys, self._vec[[self._row[k] for k in keys]] if keys else self._vec[:0]

    def norms(self, keys: Sequence[str]) -> np.ndarray:
        """The pre-normalisation lengths stored with ``keys`` (HRR facts; 1 otherwise)."""
        return self._norm[[self._row[k] for k in keys]] if keys else self._norm[:0]

    def rows_with(self, role: int, ids: np.ndarray) -> list[str]:
        """Keys of the live items holding any of the component ids ``ids`` in ``role``."""
        n = len(self._keys)
        if self._postings is None:
            self._postings = Postings(self._comp[:n])
        rows = self._postings.rows(role, ids)[0]
        rows = np.unique(rows[self._alive[rows]])
        return [self._keys[r] for r in rows.tolist()]  # type: ignore[misc]
