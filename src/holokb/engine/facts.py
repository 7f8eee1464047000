"""A relation's rows as facts: coalesced into maximal intervals, ordered, decoded lazily.

A fact is the args plus one maximal interval of the union of its rows' intervals.  Facts are put
in the documented order (args under ``term_sort_key``, then ``valid_from``, ``valid_to``) by
ranking the distinct term ids once — only those terms are decoded — and sorting id columns by
rank; a fact's args are decoded only when asked for, so counting facts or showing the first few
costs no decoding of the rest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.terms import Term, term_sort_key
from .dictionary import TermDictionary
from .relation import Relation
from .temporal import coalesce, holds_at


@dataclass(frozen=True, slots=True)
class FactTable:
    """The facts of some rows of one relation, in the documented order.

    ``ids`` holds each fact's arg ids (one row per fact), ``valid_from``/``valid_to`` its maximal
    interval, ``first`` the earliest row found (least depth) among the rows inside that interval,
    and ``row_fact`` maps every relation row to its fact's position (−1 for rows not taken).
    """

    ids: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray
    first: np.ndarray
    row_fact: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def args(self, k: int, terms: TermDictionary) -> tuple[Term, ...]:
        return tuple(terms.term(int(i)) for i in self.ids[k])

    @staticmethod
    def build(rel: Relation, rows: np.ndarray, terms: TermDictionary, endpoints: np.ndarray) -> "FactTable":
        """The facts of ``rows`` (row numbers of ``rel``)."""
        arity = rel.arity
        if len(rows) == 0:
            empty = np.zeros(0, np.int64)
            return FactTable(np.zeros((0, arity), np.int64), empty, empty, empty, np.full(rel.size, -1, np.int64))
        if arity:
            ids, group = np.unique(np.stack([rel.col(i)[rows] for i in range(arity)], axis=1), axis=0,
                                   return_inverse=True)
            group = group.reshape(-1)
        else:
            ids, group = np.zeros((1, 0), np.int64), np.zeros(len(rows), np.int64)
        g, f, t, first, member = maximal_intervals(rel, rows, group, endpoints)
        fact_ids = ids[g]
        order = np.lexsort([t, f] + [_ranks(fact_ids[:, c], terms) for c in range(arity - 1, -1, -1)])
        position = np.empty(len(order), np.int64)
        position[order] = np.arange(len(order))
        row_fact = np.full(rel.size, -1, np.int64)
        row_fact[rows] = position[member]
        return FactTable(fact_ids[order], f[order], t[order], first[order], row_fact)

    def holding_at(self, rel: Relation, rows: np.ndarray, t: int) -> "FactTable":
        """The facts (built from ``rows``) whose maximal interval contains ``t``, each with the
        earliest of its rows that holds at ``t`` (the derivation a proof at ``t`` shows).

        Rows are coalesced before the instant is applied: a fact derived over ``[a, b)`` one way and
        over ``[b, c)`` another holds over ``[a, c)``, whichever of the two ``t`` falls in."""
        keep = holds_at(self.valid_from, self.valid_to, t)
        at_rows = rows[holds_at(rel.meta("valid_from")[rows], rel.meta("valid_to")[rows], t)]
        first = np.full(len(self), np.iinfo(np.int64).max)
        np.minimum.at(first, self.row_fact[at_rows], at_rows)
        position = np.full(len(self), -1, np.int64)
        position[keep] = np.arange(int(keep.sum()))
        taken = self.row_fact >= 0
        row_fact = np.full(len(self.row_fact), -1, np.int64)
        row_fact[taken] = position[self.row_fact[taken]]
        return FactTable(self.ids[keep], self.valid_from[keep], self.valid_to[keep], first[keep], row_fact)


def _ranks(col: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Each id's rank among the column's distinct terms under ``term_sort_key`` (only those are decoded)."""
    uniq, inv = np.unique(col, return_inverse=True)
    keys = [term_sort_key(terms.term(i)) for i in uniq.tolist()]
    rank_of = np.empty(len(uniq), np.int64)
    rank_of[sorted(range(len(uniq)), key=keys.__getitem__)] = np.arange(len(uniq))
    return rank_of[inv.reshape(-1)]


__all__ = ["FactTable"]


def maximal_intervals(rel: Relation, rows: np.ndarray, group: np.ndarray,
                      endpoints: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The maximal intervals of ``rows`` grouped by ``group`` (one group per fact): their group, start
    and end, sorted by (group, start); the earliest row of each; and per row, the interval it belongs
    to (the one of its group that starts at or before it)."""
    vf, vt = rel.meta("valid_from")[rows], rel.meta("valid_to")[rows]
    g, f, t = coalesce(group, vf, vt)
    width = len(endpoints) + 1
    starts = g * width + np.searchsorted(endpoints, f)
    member = np.searchsorted(starts, group * width + np.searchsorted(endpoints, vf), "right") - 1
    first = np.full(len(g), np.iinfo(np.int64).max)
    np.minimum.at(first, member, rows)
    return g, f, t, first, member
