"""Comparisons and arithmetic over id columns (numbers, dateTimes, dates, durations).

Comparisons are vectorised over the dictionary's value columns.  Arithmetic is computed once per
distinct operand pair (in Python, exactly: ints stay ints, decimals stay decimals) and the
results are interned, so a new term gets a fresh id.  An operation that has no meaning for its
operands (a string plus a number, a date minus a year-month duration at a month end we cannot
place, division by zero) yields no value: the row is dropped, nothing raises.
"""
from __future__ import annotations

import operator

import numpy as np

from ..core.functions import apply_call, apply_op
from ..core.arrays import row_groups
from . import budget as _budget
from .dictionary import (
    KIND_BOOL, KIND_DAYTIME, KIND_NUMBER, KIND_TIME, KIND_YEARMONTH, TermDictionary,
)

_ORDERED = np.zeros(8, dtype=bool)  # the kinds with an order, as a lookup table by kind code
_ORDERED[[KIND_NUMBER, KIND_TIME, KIND_DAYTIME, KIND_YEARMONTH, KIND_BOOL]] = True


def compare(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Row mask of ``a op b``; values of different kinds compare false (``!=`` true)."""
    kind, num, ms = terms.values()
    isint, ival = terms.integers()
    if INT_COMPARE and op in _INT_CMP and isint[a].all() and isint[b].all():  # integers (counters, ranks): compare exactly, one op
        return _INT_CMP[op](ival[a], ival[b])
    ka, kb = kind[a], kind[b]
    same = (ka == kb) & _ORDERED[ka]
    both_int = isint[a] & isint[b]
    is_num = same & (ka == KIND_NUMBER) & ~both_int
    # Equal-kind values compare by value: integers exactly as int64, other numbers as doubles,
    # times and durations as int64.
    va = np.where(is_num, 0, ms[a])
    vb = np.where(is_num, 0, ms[b])
    fa = np.where(is_num, num[a], 0.0)
    fb = np.where(is_num, num[b], 0.0)
    if op in ("=", "!="):
        eq = np.where(same, (va == vb) & (fa == fb), a == b)
    elif op == "<":
        r = (fa < fb) | ((fa == fb) & (va < vb))
    elif op == "<=":
        r = (fa < fb) | ((fa == fb) & (va <= vb))
    elif op == ">":
        r = (fa > fb) | ((fa == fb) & (va > vb))
    elif op == ">=":
        r = (fa > fb) | ((fa == fb) & (va >= vb))
    else:
        raise ValueError(f"unknown comparison {op!r}")
    # Doubles round: two numbers that differ (decimals past 17 digits, integers past 2**53 beside a
    # decimal or past 2**62) can have one double.  Rounding keeps order, so a strict double order is
    # the values' order; equal doubles of two terms are decided on the exact values.
    tie = is_num & (fa == fb) & (a != b)
    if tie.any():
        exact = _exact(op, a[tie], b[tie], terms)
        if op in ("=", "!="):
            eq[tie] = exact  # equality ("!=" compares with operator.eq): negated below
        else:
            r[tie] = exact
    if op in ("=", "!="):
        return eq if op == "=" else ~eq
    return same & r


def _exact(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """``a op b`` on the numbers' exact values (Python compares int, Decimal and float exactly),
    once per distinct pair."""
    cmp = _PY_CMP[op]
    first, inverse = row_groups([a, b])
    got = np.fromiter((cmp(terms.term(x).value, terms.term(y).value) for x, y in zip(a[first].tolist(), b[first].tolist())),
                      bool, len(first))
    return got[inverse]


def identity_equal(ids: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Per id: is ``=`` on its value the same as equality of ids?  True for IRIs and unordered
    literals (compared by id anyway), exact integers and booleans (one id per value); false for
    other numbers and times (``2 = 2.0``, one instant in two time zones: equal values, two ids)."""
    kind, _, _ = terms.values()
    isint, _ = terms.integers()
    k = kind[ids]
    return isint[ids] | ~_ORDERED[k] | (k == KIND_BOOL)


#: Compare all-integer operands as int64 directly (the general path gives the same answer).
INT_COMPARE = True
_PY_CMP = {"=": operator.eq, "!=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt,
           ">=": operator.ge}  # "!=": equality, negated by the caller
_INT_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
            ">=": np.greater_equal}


def arithmetic(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Ids of ``a op b`` per row (−1 where undefined): vectorised on integers, else computed once per
    distinct pair."""
    fast = _integer_op(op, a, b, terms)
    if fast is not None:
        return fast
    return _per_distinct([a, b], terms, lambda x, y: apply_op(op, x, y))


_SMALL = 2**31  # operands below this cannot overflow int64 in + - * and their results stay exact


def _integer_op(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray | None:
    """``a op b`` when every operand is a small integer (the common case), in numpy; else None."""
    if op not in ("+", "-", "*", "%", "div") or len(a) == 0:
        return None
    isint, val = terms.integers()
    if not (isint[a].all() and isint[b].all()):
        return None
    x, y = val[a], val[b]
    if np.abs(x).max() >= _SMALL or np.abs(y).max() >= _SMALL:
        return None
    out = np.full(len(a), -1, dtype=np.int64)
    if op in ("+", "-", "*"):
        res = x + y if op == "+" else x - y if op == "-" else x * y
        return terms.intern_ints(res)
    ok = y != 0  # division by zero: no value
    if ok.any():
        xs, ys = x[ok], y[ok]
        if op == "%":
            res = np.fmod(xs, ys)  # C: the remainder has the dividend's sign
        else:
            q = np.abs(xs) // np.abs(ys)
            res = np.where((xs >= 0) == (ys >= 0), q, -q)  # truncation toward zero
        out[ok] = terms.intern_ints(res)
    return out


def call(func: str, args: list[np.ndarray], n: int, terms: TermDictionary) -> np.ndarray:
    """Ids of a built-in function per row (−1 where undefined), computed once per distinct argument tuple."""
    if not args:
        v = apply_call(func, ())
        return np.full(n, -1 if v is None else terms.intern(v), dtype=np.int64)
    if func in ("div", "mod") and len(args) == 2:
        fast = _integer_op("div" if func == "div" else "%", args[0], args[1], terms)
        if fast is not None:
            return fast
    return _per_distinct(args, terms, lambda *xs: apply_call(func, xs))


def _per_distinct(cols: list[np.ndarray], terms: TermDictionary, f) -> np.ndarray:
    if len(cols[0]) == 0:
        return np.zeros(0, dtype=np.int64)
    first, inverse = row_groups(cols)
    uniq = np.stack([c[first] for c in cols], axis=1)
    out = np.empty(len(uniq), dtype=np.int64)
    # A few hundred values at a time (each is a Python call; a large join's values take seconds):
    # the deadline is checked between blocks, and no block turns millions of rows into lists at once.
    for lo in range(0, len(uniq), _BLOCK):
        _budget.check()
        for k, ids in enumerate(uniq[lo:lo + _BLOCK].tolist(), lo):
            v = f(*(terms.term(i) for i in ids))
            out[k] = -1 if v is None else terms.intern(v)
    return out[inverse]


_BLOCK = 512
