"""Candidates from the facts' own structure: which facts share a role-bound term with the query.

A fact vector is built from three components, ``role ⊗ term`` for subject, predicate (with the
negation marker when negated) and object, and every query the space makes (terms, an entity's
facts) is built from components too.  A fact's similarity to a query is therefore a known part —
the share carried by the components it has in common with the query, computed exactly here — plus
noise from the components it does not share, which are independent of the query:

* HDC: a fact ``maj3(a, b, c)`` agrees with ``q`` on ``1/2 + 1/2 * sum(agree(x, q) - 1/2)`` of its
  bits in expectation, the sum over the shared components ``x`` (exact when it shares at most two:
  with one shared, half the bits follow it; with two, the bits where they agree), and the rest is a
  sum of fair coin flips: standard deviation at most ``0.5 / sqrt(dim)``.
* HRR: the cosine is linear before normalising, ``sum(<x, q>) / |fact sum|``, so the shared part
  is exact and the unshared part has standard deviation about ``1 / sqrt(dim)``.

A fact sharing all three components with the query (one of an entity's own facts) is always a
candidate.  :func:`certified_candidates` then works like a threshold search: facts whose known part
lies within ``margin`` (six standard deviations, the same margin as the noise floor) of the k-th
exact score are scored exactly; a fact left out cannot reach a returned score unless its noise
exceeds six standard deviations — the same bet as the noise floor that every caller already applies.
When that would need the facts that share nothing with the query (the k-th score is itself noise),
the caller falls back to its other kernel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True, slots=True)
class Components:
    """A query's components: role (0 subject, 1 predicate, 2 object), term id (predicate ids are
    ``2 * id + negated``) and the share of the similarity each contributes to a fact holding it
    (HDC: ``(agree - 1/2) / 2``; HRR: the dot product with the normalised query, before the fact's
    length divides it).  Each (role, id) at most once."""

    role: np.ndarray
    ids: np.ndarray
    weight: np.ndarray
    #: HRR only: ``term_dots(role, ids)`` = the dot product of each component (role, id) with the
    #: normalised query, so a fact's cosine is the sum over its three components divided by its
    #: length — scored from term ids, without reading the fact's vector.
    term_dots: Callable[[int, np.ndarray], np.ndarray] | None = None

    def __post_init__(self) -> None:
        if not (len(self.role) == len(self.ids) == len(self.weight)):
            raise ValueError("one role and one weight per component id")


def decomposed_scores(comps: Components, components_of_rows: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """HRR cosines of facts from their component ids (rows of ``int64[n, 3]``) and lengths."""
    assert comps.term_dots is not None
    total = np.zeros(len(components_of_rows), dtype=np.float64)
    for r in range(3):
        ids, inverse = np.unique(components_of_rows[:, r], return_inverse=True)
        total += comps.term_dots(r, ids)[inverse]
    return total / norms


class Postings:
    """Rows by (role, component id): each role's column sorted once; rebuilt after any change."""

    def __init__(self, comp: np.ndarray):
        self._order = []
        self._sorted = []
        for r in range(3):
            order = np.argsort(comp[:, r], kind="stable")
            self._order.append(order)
            self._sorted.append(comp[order, r])

    def extend(self, start: int, comp: np.ndarray) -> None:
        """Take in rows ``start, start + 1, ...`` with components ``comp`` (all after every row held):
        each role's new ids are merged into its sorted column, a copy instead of a re-sort (at 1M
        facts ~0.7 s re-sorted).  New rows come last among equal ids, so the arrays are exactly the
        ones a fresh stable sort would give."""
        if len(comp) == 0:
            return
        new_rows = np.arange(start, start + len(comp), dtype=self._order[0].dtype)
        for r in range(3):
            order = np.argsort(comp[:, r], kind="stable")
            ids = comp[order, r]
            at = np.searchsorted(self._sorted[r], ids, "right")
            self._sorted[r] = np.insert(self._sorted[r], at, ids)
            self._order[r] = np.insert(self._order[r], at, new_rows[order])

    def rows(self, role: int, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows holding any of ``ids`` in ``role``, which id each row came from)."""
        col = self._sorted[role]
        lo = np.searchsorted(col, ids, "left")
        counts = np.searchsorted(col, ids, "right") - lo
        total = int(counts.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        starts = np.repeat(lo - (np.cumsum(counts) - counts), counts)
        return self._order[role][starts + np.arange(total)], np.repeat(np.arange(len(ids)), counts)


def certified_candidates(postings: Postings, comps: Components, *, k: int, live: Callable[[np.ndarray], np.ndarray],
                         norms: np.ndarray | None, chance: float, margin: float, above: float | None,
                         n_live: int, score: Callable[[np.ndarray], np.ndarray],
                         budget: int, shared_cap: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(rows, exact scores) holding every item of the exact top ``k`` (or, with ``above``, every item of
    it scoring at least ``above``), or None when that cannot be had without the items sharing nothing
    with the query, or without scoring more than ``budget`` items.  ``live`` filters rows (alive, not
    excluded); ``score`` scores rows exactly.  More than ``shared_cap`` (default ``8 * budget``) (role, id)
    matches gives up at once, before sorting them."""
    parts = [postings.rows(r, comps.ids[comps.role == r]) for r in range(3)]
    rows = np.concatenate([p[0] for p in parts])
    if rows.size == 0 or rows.size > (8 * budget if shared_cap is None else shared_cap):
        return None  # nothing shared, or so much that the budget is out of reach: not worth the sort
    weight = np.concatenate([comps.weight[comps.role == r][p[1]] for r, p in enumerate(parts)])
    rows, inverse = np.unique(rows, return_inverse=True)
    est = np.bincount(inverse, weights=weight, minlength=rows.size)
    shared = np.bincount(inverse, minlength=rows.size)
    keep = live(rows)
    rows, est, shared = rows[keep], est[keep], shared[keep]
    if rows.size == 0:
        return None
    if norms is not None:
        est = est / norms[rows]
    est += chance
    forced = shared >= 3
    # Items sharing nothing score chance + noise; they exist unless every live item shares something.
    floor_out = chance if rows.size < n_live else -np.inf
    goal_above = -np.inf if above is None else above
    kth_est = np.partition(est, rows.size - k)[rows.size - k] if rows.size >= k else chance
    # First guess: items whose known part is within the margin of the k-th known part; never items
    # sharing nothing (they are what the certificate bounds).
    level = max(max(kth_est, goal_above) - margin, floor_out)
    taken = np.zeros(rows.size, dtype=bool)
    got_rows: list[np.ndarray] = []
    got_scores: list[np.ndarray] = []
    while True:
        add = ~taken & (forced | (est >= level))
        if int(taken.sum()) + int(add.sum()) > budget:
            return None
        if add.any():
            got_rows.append(rows[add])
            got_scores.append(score(rows[add]))
            taken |= add
        scores = np.concatenate(got_scores) if got_scores else np.zeros(0)
        kth = np.partition(scores, scores.size - k)[scores.size - k] if scores.size >= k else -np.inf
        goal = max(kth, goal_above)
        outside = est[~taken]
        out_max = max(float(outside.max()) if outside.size else -np.inf, floor_out)
        if out_max + margin <= goal:
            cand = np.concatenate(got_rows) if got_rows else np.zeros(0, dtype=np.int64)
            sure = scores >= out_max + margin
            return cand[sure], scores[sure]
        if level <= floor_out:
            return None  # the k-th score is within noise of the items sharing nothing
        level = max(goal - margin, floor_out)  # below out_max: the next round takes at least that item
