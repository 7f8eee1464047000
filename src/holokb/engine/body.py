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

from ..analysis.program import Aggregate, Atom, Comparison, Const, Negation, Var
from ..core.arrays import row_groups
from .builtins import compare, identity_equal
from .database import RelKey
from .dictionary import TermDictionary
from .joins import Bindings, anti_join, compare_var_int, const_id, eval_expr, join
from .planning import live_after, plan_body, positive_atoms
from . import kernels
from .relation import EMPTY, Relation, first_rows

#: Rows one join step may produce when ``Limits.max_edges`` does not say less: a safety cap well
#: below what exhausts memory (a binding row is ~8 bytes per column, and a step holds a few copies).
MAX_INTERMEDIATE_ROWS = 1 << 25


class BodySolver:
    """Solves bodies over ``relations`` (read only); ``cap`` bounds the rows of one join step."""

    #: Order atoms by their relations' sizes too (:func:`~.planning.plan_body`); off: bound positions only.
    cardinality = True
    #: Run the plan's key steps (expressions as lookup keys); off: atoms join unkeyed, then filter.
    key_steps = True
    #: Switch: joins skip the validity intersection when :attr:`timeless` (every row valid always).
    skip_validity = True
    #: Switch: a join builds only the columns of variables read after it (the others were
    #: gathered, then projected out).
    live_joins = True
    #: Switch: with proofs too, the rows that coincide once dead variables are dropped are merged
    #: (the first kept, with its premise rows and scores).  Same model and proofs: every later step
    #: extends bindings in binding order, so a merged row's extensions only ever repeat candidates
    #: of the first row's that come earlier, and the first candidate of a key is what is kept.
    merge_proofs = True
    #: Switch: a body with a positive atom that no row of its range can match (an empty range, or
    #: no row with its constants) is answered empty before it is planned or joined.  Semi-naive
    #: iterations over one big relation (OWL 2 RL's ``hk:triple``) ask ~1,000 rule variants of
    #: which most find nothing: the delta atom went first and was joined in full only for an
    #: atom such as ``triple(?x, owl:sameAs, ?y)`` to match no row.
    prune_empty = True

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
        self._shapes: dict = {}  # id(body) -> (body, _prunable(body)) for :meth:`_unmatched`
        self._bits_for = (-1, 0)
        self._identity: dict = {}
        #: Every row of every relation valid always (:class:`~.evaluator.Evaluation` decides):
        #: joins then leave the validity columns as they are.
        self.timeless = False

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
        bound = self.terms.id_bound
        if bound != self._bits_for[0]:  # asked after every step: recompute only when ids were minted
            self._bits_for = (bound, max(int(bound).bit_length(), int(len(self.endpoints)).bit_length(), 1))
        return self._bits_for[1]

    def solve(self, body, ranges: dict[int, tuple[int, int]] | None, first: int | None,
              record: bool, keep: frozenset[str] | None = None) -> Bindings:
        """All solutions of ``body``; ``ranges`` restricts atom labels to row ranges.

        With ``keep`` given, a variable's column is dropped as soon as no later step reads it and
        it is not in ``keep``; without ``record`` the rows that then coincide are merged.  Raises
        :class:`~.relation.IntermediateOverflow` when a join step would pass :attr:`cap` rows.
        """
        b = Bindings.unit(record)
        ranges = ranges or {}
        if self.prune_empty and self._unmatched(body, ranges):
            return b.take(EMPTY)
        steps, live = self._plan(body, first, keep, ranges)
        for i, step in enumerate(steps):
            if b.n == 0:
                break
            item = step.item
            dropped = False  # a variable's column left out by the join: as if projected out below
            if step.kind == "atom":
                rel = self.relation((item.predicate, item.negated), item.arity)
                lo, hi = ranges.get(step.label, (0, rel.size))
                out = live[i] if live is not None and self.live_joins else None
                if out is not None:
                    dropped = any(k not in out for k in b.vars) or any(
                        isinstance(t, Var) and t.name not in out for t in item.args)
                b = join(b, item, step.label, rel, lo, hi, self.terms, self.bits, record, self.cap,
                         self.timeless and self.skip_validity, out)
            elif step.kind == "neg":
                a = item.atom
                b = anti_join(b, a, self.relations.get((a.predicate, a.negated)), self.terms, self.bits,
                              self.endpoints, self.cap)
            elif step.kind == "cmp":
                ok = compare_var_int(item.op, item.left, item.right, b, self.terms)
                if ok is None:
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
            elif step.kind == "key":
                if self.key_steps:
                    b = self._key(b, item, steps[i + 1:])
            elif step.kind == "agg":
                b = self._aggregate(b, item)
            self.on_step()
            if (live is not None and (b.project(live[i]) or dropped) and (self.merge_proofs or not record)
                    and i + 1 < len(steps)):
                b = self.distinct(b)
        return b

    def _unmatched(self, body, ranges: dict) -> bool:
        """Whether some positive atom of ``body`` matches no row of its range: the range is empty,
        a constant is no known term, or the relation's index on the constant positions has no
        such key (in the range, checked row by row when few rows have it).  Only bodies whose
        other items are plain negations and comparisons of variables and constants: an
        expression evaluated before the empty atom may mint terms, which must happen as before."""
        shape = self._shapes.get(id(body))
        if shape is None or shape[0] is not body:
            shape = self._shapes[id(body)] = (body, _prunable(body))
        atoms = shape[1]
        if atoms is None:
            return False
        for label, a, cols, consts in atoms:
            rel = self.relation((a.predicate, a.negated), a.arity)
            lo, hi = ranges.get(label, (0, rel.size))
            if hi <= lo:
                return True
            if not cols:
                continue
            ids = [const_id(t, self.terms) for t in consts]
            if min(ids) < 0:
                return True
            if not rel.holds_in(tuple(zip(cols, ids)), lo, hi):
                return True
        return False

    def _key(self, b: Bindings, item, rest) -> Bindings:
        """A key step (:func:`~.planning.plan_body`): bind ``item.target`` to ``item.expr``'s ids
        when that equals the comparison ``target = expr`` the plan still runs later — when value
        equality is id equality for the computed values and for every column of a later atom the
        target appears in (integers, IRIs, strings; not decimals or times, whose equal values can
        have several ids).  Otherwise the bindings pass unchanged and the atom joins unkeyed."""
        name = item.target.name
        cols = [(st.item, p) for st in rest if st.kind == "atom"
                for p, t in enumerate(st.item.args) if isinstance(t, Var) and t.name == name]
        val = eval_expr(item.expr, b, self.terms)
        defined = val >= 0
        if not identity_equal(val[defined], self.terms).all():
            return b
        for atom, p in cols:
            if not self._identity_column(self.relation((atom.predicate, atom.negated), atom.arity), p):
                return b
        b.vars[name] = val
        return b.filter(defined)

    def _identity_column(self, rel: Relation, pos: int) -> bool:
        """Whether value equality is id equality on every id of column ``pos`` (checked
        incrementally: relations only grow)."""
        key = (id(rel), pos)
        seen = self._identity.get(key)
        if seen is None or seen[0] is not rel:
            seen = (rel, 0, True)
        _, done, ok = seen
        if ok and done < rel.size:
            ok = bool(identity_equal(rel.col(pos)[done:], self.terms).all())
        self._identity[key] = (rel, rel.size, ok)
        return ok

    def _plan(self, body, first: int | None, keep: frozenset[str] | None, ranges: dict):
        """The join order of a body and its live variables, planned once per (body, first atom, keep,
        sizes): semi-naive evaluation asks for the same plans every iteration.  With two or more
        atoms to order (and :attr:`cardinality` on), the sizes of their row ranges take part,
        as bit lengths (a plan changes when a relation doubles, not at every row)."""
        # Keyed by the body's identity (hashing a body hashes every node in it): the entry holds
        # the body itself, so an id reused by a new body after the old one died cannot match.
        entry = self._plans.get(id(body))
        if entry is None or entry[0] is not body:
            entry = self._plans[id(body)] = (body, positive_atoms(body), {})
        atoms = entry[1]
        sizes = None
        if self.cardinality and len(atoms) - (first is not None) >= 2:
            sizes = []
            for label, a in enumerate(atoms):
                rg = ranges.get(label)
                n = rg[1] - rg[0] if rg is not None else self.relation((a.predicate, a.negated), a.arity).size
                sizes.append(max(n, 0).bit_length())
            sizes = tuple(sizes)
        hit = entry[2].get((first, keep, sizes))
        if hit is None:
            steps = plan_body(body, first, sizes)
            hit = entry[2][(first, keep, sizes)] = (steps, live_after(steps, keep) if keep is not None else None)
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
        if not self.timeless:  # timeless: every binding's validity is the whole axis, no key part
            cols += [np.searchsorted(self.endpoints, b.meta["vf"]), np.searchsorted(self.endpoints, b.meta["vt"])]
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
            jit = kernels.get(b.n)
            if jit is not None:  # one hashed pass; first occurrences come out in row order
                first = np.flatnonzero(jit.first_mask(key))
                return b if len(first) == b.n else b.take(first)
            first = first_rows(key, sum(widths))
        else:
            first, _ = row_groups(cols)
        if len(first) == b.n:
            return b
        return b.take(np.sort(first))

    def _aggregate(self, b: Bindings, agg: Aggregate) -> Bindings:
        from .aggregates import aggregate_relation

        rel, atom = aggregate_relation(self, agg)
        return join(b, atom, -1, rel, 0, rel.size, self.terms, self.bits, False, self.cap)


#: :meth:`BodySolver._unmatched` checks a restricted range row by row up to this many rows.
def _prunable(body):
    """Per positive atom (label, atom, constant positions, constant terms), or None when the body
    has an item an early answer could skip the effects of (expressions, aggregates)."""
    for item in body:
        if isinstance(item, (Atom, Negation)):
            continue
        if isinstance(item, Comparison) and all(isinstance(t, (Var, Const)) for t in (item.left, item.right)):
            continue
        return None
    out = []
    for label, a in enumerate(positive_atoms(body)):
        at = [(p, t.term) for p, t in enumerate(a.args) if isinstance(t, Const)]
        out.append((label, a, tuple(p for p, _ in at), tuple(t for _, t in at)))
    return out


__all__ = ["Atom", "BodySolver", "MAX_INTERMEDIATE_ROWS"]
