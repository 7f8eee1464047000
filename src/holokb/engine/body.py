"""Logical layer: solving one rule (or query, or constraint) body over a set of relations.

:class:`BodySolver` reads relations and never changes them, so the same code serves the
closure while it runs (over its growing relations) and a finished :class:`~.model.Model`
(over its frozen ones).  It is the only place that turns a planned body into joins.

Within a body, a variable's column is dropped after the last step that reads it (unless the
caller's ``keep`` needs it); without proofs the rows that then coincide are merged, so atoms of
``_`` arguments act as semi-joins, not cartesian factors.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..analysis.program import Aggregate, Atom
from .builtins import compare
from .database import RelKey
from .dictionary import TermDictionary
from .joins import Bindings, anti_join, eval_expr, join
from .planning import live_after, plan_body
from .relation import Relation

#: Rows one join step may produce when ``Limits.max_edges`` does not say less: a safety cap well
#: below what exhausts memory (a binding row is ~8 bytes per column, and a step holds a few copies).
MAX_INTERMEDIATE_ROWS = 1 << 25


class BodySolver:
    """Solves bodies over ``relations`` (read only); ``cap`` bounds the rows of one join step."""

    def __init__(self, relations: Mapping[RelKey, Relation], terms: TermDictionary, endpoints: np.ndarray,
                 cap: int, arity: Mapping[RelKey, int]):
        self.relations = relations
        self.terms = terms
        self.endpoints = endpoints
        self.cap = cap
        self.bits = 0
        self._arity = arity
        self._empty: dict[RelKey, Relation] = {}
        self._plans: dict = {}

    def relation(self, rk: RelKey, arity: int) -> Relation:
        """The relation ``rk``, or an empty one of ``arity`` when nothing holds it."""
        rel = self.relations.get(rk)
        if rel is not None:
            return rel
        rel = self._empty.get(rk)
        if rel is None:
            rel = self._empty[rk] = Relation(arity)
        return rel

    def key_bits(self) -> int:
        """Bits per id column in packed keys: enough for every id and interval endpoint rank."""
        return max(int(self.terms.id_bound).bit_length(), int(len(self.endpoints)).bit_length(), 1)

    def solve(self, body, ranges: dict[int, tuple[int, int]] | None, first: int | None,
              record: bool, keep: frozenset[str] | None = None) -> Bindings:
        """All solutions of ``body``; ``ranges`` restricts atom labels to row ranges.

        With ``keep`` given, a variable's column is dropped as soon as no later step reads it and
        it is not in ``keep``; without ``record`` the rows that then coincide are merged.  Raises
        :class:`~.relation.IntermediateOverflow` when a join step would pass :attr:`cap` rows.
        """
        b = Bindings.unit(record)
        steps, live = self._plan(body, first, keep)
        for i, step in enumerate(steps):
            if b.n == 0:
                break
            item = step.item
            if step.kind == "atom":
                rel = self.relation((item.predicate, item.negated), item.arity)
                lo, hi = (ranges or {}).get(step.label, (0, rel.size))
                b = join(b, item, step.label, rel, lo, hi, self.terms, self.bits, record, self.cap)
            elif step.kind == "neg":
                a = item.atom
                b = anti_join(b, a, self.relations.get((a.predicate, a.negated)), self.terms, self.bits,
                              self.endpoints, self.cap)
            elif step.kind == "cmp":
                left, right = eval_expr(item.left, b, self.terms), eval_expr(item.right, b, self.terms)
                ok = (left >= 0) & (right >= 0)
                ok[ok] = compare(item.op, left[ok], right[ok], self.terms)
                b = b.filter(ok)
            elif step.kind == "assign":
                val = eval_expr(item.expr, b, self.terms)
                if item.target.name in b.vars:
                    b = b.filter(val == b.vars[item.target.name])
                else:
                    b.vars[item.target.name] = val
                    b = b.filter(val >= 0)
            elif step.kind == "agg":
                b = self._aggregate(b, item)
            self.on_step()
            if live is not None and b.project(live[i]) and not record and i + 1 < len(steps):
                b = self.distinct(b)
        return b

    def _plan(self, body, first: int | None, keep: frozenset[str] | None):
        """The join order of a body and its live variables, planned once per (body, first atom, keep):
        semi-naive evaluation asks for the same plans every iteration."""
        key = (body, first, keep)
        hit = self._plans.get(key)
        if hit is None:
            steps = plan_body(body, first)
            hit = self._plans[key] = (steps, live_after(steps, keep) if keep is not None else None)
        return hit

    def on_step(self) -> None:
        """Called after every step (arithmetic may have minted terms): keeps key widths valid."""
        self.bits = max(self.bits, self.key_bits())

    def distinct(self, b: Bindings) -> Bindings:
        """The first of every group of identical rows (all columns and metadata), in row order."""
        if b.n < 2:
            return b
        cols = [b.vars[k] for k in sorted(b.vars)]
        widths = [self.bits] * len(cols)
        ranks = [np.searchsorted(self.endpoints, b.meta["vf"]), np.searchsorted(self.endpoints, b.meta["vt"])]
        cols += ranks
        widths += [int(len(self.endpoints)).bit_length()] * 2
        depth = b.meta["depth"]
        if depth.min() >= 0:
            cols.append(depth)
            widths.append(int(depth.max()).bit_length())
        else:  # the transitive plan's depth -1 rows: shift so every value is >= 0
            cols.append(depth - depth.min())
            widths.append(int(depth.max() - depth.min()).bit_length())
        if sum(widths) <= 63:
            key = np.zeros(b.n, np.int64)
            for c, w in zip(cols, widths):
                key <<= w
                key |= c
            _, first = np.unique(key, return_index=True)
        else:
            _, first = np.unique(np.stack(cols, axis=1), axis=0, return_index=True)
        if len(first) == b.n:
            return b
        return b.take(np.sort(first))

    def _aggregate(self, b: Bindings, agg: Aggregate) -> Bindings:
        from .aggregates import aggregate_relation

        rel, atom = aggregate_relation(self, agg)
        return join(b, atom, -1, rel, 0, rel.size, self.terms, self.bits, False, self.cap)


__all__ = ["Atom", "BodySolver", "MAX_INTERMEDIATE_ROWS"]
