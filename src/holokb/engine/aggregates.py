"""Aggregates (count, sum, mean, min, max) in stratified positions.

Semantics: the aggregate body is solved over the (complete, lower-stratum) relations; its
solutions are the distinct bindings of all its named variables; they are grouped by
``group_by``.  ``count`` counts solutions; ``sum`` adds the term's value over solutions (numbers,
or day-time durations); ``mean`` is the sum of numbers over their count (exact as ``/``: a decimal, or
a double when a value is one); ``min``/``max`` take the least/greatest value among comparable values
(numbers, dateTimes, durations of one kind).  A group exists only where it has a solution.  Over
valid time the value is computed pointwise: it holds where the set of solutions valid at each
instant gives the same value (see :func:`aggregate_relation`).  The result is as deep as its
deepest premise.  Aggregated premises are not listed in proofs.
"""
from __future__ import annotations

from decimal import Decimal

import numpy as np

from ..analysis.program import Aggregate, Atom, Var
from ..core.arrays import row_groups
from ..core.functions import apply_op, exact_sum
from ..core.terms import Literal
from ..core.time import Duration
from .joins import eval_expr
from .model import AGGREGATE_RELATION
from .relation import Relation
from .temporal import segments


def aggregate_relation(solver, agg: Aggregate) -> tuple[Relation, Atom]:
    """A temporary relation (group_by..., target) with the aggregate's results, and its atom
    (``solver`` is the :class:`~.body.BodySolver` reading the lower strata).

    Over time (pointwise, :mod:`.temporal`): a group's value is computed per elementary segment of
    its solutions' intervals from the solutions valid throughout it, and a result row holds where
    the value stays the same; a group has no row where it has no solution.
    """
    b = solver.solve(agg.body, None, None, False)
    names = sorted(b.vars)
    group = [v.name for v in agg.group_by]
    witness = [v.name for v in agg.witnesses]
    rel = Relation(len(group) + len(witness) + 1)
    atom = Atom(AGGREGATE_RELATION, tuple(agg.group_by) + tuple(agg.witnesses) + (agg.target,))
    if b.n == 0:
        return rel, atom
    # Solutions: distinct bindings of the body's variables (set semantics), each with its rows' intervals.
    _, sol = row_groups([b.vars[n] for n in names] if names else [np.zeros(b.n, np.int64)])
    values = eval_expr(agg.term, b, solver.terms) if agg.term is not None else None
    gcols = [b.vars[g] for g in group]
    gcols = gcols or [np.zeros(b.n, np.int64)]
    gfirst, inv = row_groups(gcols)
    uniq = np.stack([c[gfirst] for c in gcols], axis=1)
    order = np.argsort(inv, kind="stable")
    bounds = np.searchsorted(inv[order], np.arange(len(uniq) + 1))
    vf_all, vt_all, depth_all = b.meta["vf"], b.meta["vt"], b.meta["depth"]
    wcols = np.stack([b.vars[w] for w in witness], axis=1) if witness else None
    out_cols: list[list[int]] = [[] for _ in range(len(group) + len(witness) + 1)]
    vf, vt, depth = [], [], []
    for g in range(len(uniq)):
        rows = order[bounds[g]:bounds[g + 1]]
        for lo, hi, wit, res, d in _over_time(agg.func, rows, sol, values, vf_all, vt_all, depth_all, solver.terms,
                                              wcols):
            for k in range(len(group)):
                out_cols[k].append(int(uniq[g, k]))
            for k, w in enumerate(wit):
                out_cols[len(group) + k].append(w)
            out_cols[-1].append(res)
            vf.append(lo)
            vt.append(hi)
            depth.append(d)
    if vf:
        rel.append([np.array(c, np.int64) for c in out_cols], valid_from=np.array(vf, np.int64),
                   valid_to=np.array(vt, np.int64), depth=np.array(depth, np.int64))
    return rel, atom


def _over_time(func: str, rows: np.ndarray, sol: np.ndarray, values, vf: np.ndarray, vt: np.ndarray,
               depth: np.ndarray, terms, wcols: np.ndarray | None) -> list[tuple[int, int, tuple, int, int]]:
    """(from, to, witness ids, result id, depth) rows for one group, where its value (and, with
    witnesses, the witness tuple) is constant."""
    f, t = vf[rows], vt[rows]
    if (f == f[0]).all() and (t == t[0]).all():  # the common case: one interval for all solutions
        pieces = [(int(f[0]), int(t[0]), np.arange(len(rows)))]
    else:
        pieces = segments(f, t)
    out: list[tuple[int, int, tuple, int, int]] = []
    for lo, hi, active in pieces:
        act = rows[active]
        _, first = np.unique(sol[act], return_index=True)  # one row per solution valid here
        act = act[np.sort(first)]
        res = _reduce(func, None if values is None else values[act], len(act), terms)
        if res is None:
            continue
        rid, d = terms.intern(res), int(depth[act].max())
        witnesses: list[tuple] = [()]
        if wcols is not None:  # the distinct witness tuples of the solutions reaching the extreme
            best = act[values[act] == rid]
            witnesses = [tuple(w) for w in np.unique(wcols[best], axis=0).tolist()]
        for wit in witnesses:
            prev = next((k for k in range(len(out) - 1, -1, -1) if out[k][1] == lo and out[k][2] == wit
                         and out[k][3] == rid), None)
            if prev is not None:  # same value (and witness) on touching segments: one row
                out[prev] = (out[prev][0], hi, wit, rid, max(out[prev][4], d))
            else:
                out.append((lo, hi, wit, rid, d))
    return out


def _reduce(func: str, ids, n: int, terms) -> Literal | None:
    if func == "count":
        return Literal.of(n)
    lits = [terms.term(i) for i in ids.tolist() if i >= 0 and isinstance(terms.term(i), Literal)]
    vals = [lit.value for lit in lits]
    nums = [v for v in vals if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)]
    if func == "sum":
        if len(nums) == len(vals) and nums:
            try:
                return Literal.of(exact_sum(nums))
            except ArithmeticError:  # decimals past DECIMAL_DIGITS: no exact sum
                return None
        durs = [v for v in vals if isinstance(v, Duration) and v.months == 0]
        if len(durs) == len(vals) and durs:
            return Literal.of(Duration(0, sum(d.ms for d in durs)))
        return None
    if func == "mean":
        if len(nums) != len(vals) or not nums:
            return None
        try:
            total = exact_sum(nums)
        except ArithmeticError:
            return None
        return apply_op("/", Literal.of(total), Literal.of(len(nums)))
    comparable = _comparable(lits)
    if not comparable:
        return None
    pick = min(comparable, key=lambda p: p[0]) if func == "min" else max(comparable, key=lambda p: p[0])
    return pick[1]


def _comparable(lits) -> list:
    """(sort key, literal) for values of one comparable kind; a mix of kinds has no min/max."""
    out, kinds = [], set()
    for lit in lits:
        v = lit.value
        if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
            kinds.add("num")
            out.append((v, lit))
        elif isinstance(v, Duration) and v.months == 0:
            kinds.add("dt")
            out.append((v.ms, lit))
        elif hasattr(v, "ms") and not isinstance(v, Duration):
            kinds.add(type(v).__name__)
            out.append((v.ms, lit))
        else:
            return []
    if len(kinds) != 1:
        return []
    return out


__all__ = ["aggregate_relation", "Var"]
