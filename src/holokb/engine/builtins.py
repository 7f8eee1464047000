"""Comparisons and arithmetic over id columns (numbers, dateTimes, dates, durations).

Comparisons are vectorised over the dictionary's value columns.  Arithmetic is computed once per
distinct operand pair (in Python, exactly: ints stay ints, decimals stay decimals) and the
results are interned, so a new term gets a fresh id.  An operation that has no meaning for its
operands (a string plus a number, a date minus a year-month duration at a month end we cannot
place, division by zero) yields no value: the row is dropped, nothing raises.
"""
from __future__ import annotations

import calendar
from datetime import datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation

import numpy as np

from ..core.terms import DateTimeValue, DateValue, Literal, XSD_DATE, XSD_DATETIME
from ..core.time import Duration, format_ms
from .dictionary import (
    KIND_BOOL, KIND_DAYTIME, KIND_NUMBER, KIND_TIME, KIND_YEARMONTH, TermDictionary,
)

_ORDERED = (KIND_NUMBER, KIND_TIME, KIND_DAYTIME, KIND_YEARMONTH, KIND_BOOL)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def compare(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Row mask of ``a op b``; values of different kinds compare false (``!=`` true)."""
    kind, num, ms = terms.values()
    ka, kb = kind[a], kind[b]
    same = (ka == kb) & np.isin(ka, _ORDERED)
    is_num = same & (ka == KIND_NUMBER)
    # Equal-kind values compare by value: numbers as doubles, times and durations as int64.
    va = np.where(is_num, 0, ms[a])
    vb = np.where(is_num, 0, ms[b])
    fa = np.where(is_num, num[a], 0.0)
    fb = np.where(is_num, num[b], 0.0)
    if op in ("=", "!="):
        eq = np.where(same, (va == vb) & (fa == fb), a == b)
        return eq if op == "=" else ~eq
    if op == "<":
        r = (fa < fb) | ((fa == fb) & (va < vb))
    elif op == "<=":
        r = (fa < fb) | ((fa == fb) & (va <= vb))
    elif op == ">":
        r = (fa > fb) | ((fa == fb) & (va > vb))
    elif op == ">=":
        r = (fa > fb) | ((fa == fb) & (va >= vb))
    else:
        raise ValueError(f"unknown comparison {op!r}")
    return same & r


def arithmetic(op: str, a: np.ndarray, b: np.ndarray, terms: TermDictionary) -> np.ndarray:
    """Ids of ``a op b`` per row (−1 where undefined), computed once per distinct pair."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.int64)
    pairs = np.stack([a, b], axis=1)
    uniq, inverse = np.unique(pairs, axis=0, return_inverse=True)
    out = np.empty(len(uniq), dtype=np.int64)
    for k, (x, y) in enumerate(uniq.tolist()):
        v = _apply(op, terms.term(x), terms.term(y))
        out[k] = -1 if v is None else terms.intern(v)
    return out[inverse.reshape(-1)]


def _apply(op: str, x, y) -> Literal | None:
    if not (isinstance(x, Literal) and isinstance(y, Literal)):
        return None
    vx, vy = x.value, y.value
    try:
        return _apply_values(op, vx, vy)
    except (ArithmeticError, InvalidOperation, OverflowError, ValueError):
        return None


def _is_num(v) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _apply_values(op: str, vx, vy) -> Literal | None:
    if _is_num(vx) and _is_num(vy):
        if isinstance(vx, float) or isinstance(vy, float):
            vx, vy = float(vx), float(vy)
        elif isinstance(vx, Decimal) or isinstance(vy, Decimal):
            vx, vy = Decimal(vx), Decimal(vy)
        if op == "/":
            if vy == 0:
                return None
            if isinstance(vx, int) and isinstance(vy, int):
                return Literal.of(Decimal(vx) / Decimal(vy)) if vx % vy else Literal.of(vx // vy)
            return Literal.of(vx / vy)
        r = vx + vy if op == "+" else vx - vy if op == "-" else vx * vy
        return Literal.of(r)
    if isinstance(vx, (DateTimeValue, DateValue)) and isinstance(vy, Duration) and op in "+-":
        sign = 1 if op == "+" else -1
        ms = _add_months(vx.ms, sign * vy.months) + sign * vy.ms
        return _instant(ms, vx)
    if isinstance(vx, Duration) and isinstance(vy, (DateTimeValue, DateValue)) and op == "+":
        return _instant(_add_months(vy.ms, vx.months) + vx.ms, vy)
    if isinstance(vx, (DateTimeValue, DateValue)) and isinstance(vy, (DateTimeValue, DateValue)) and op == "-":
        return Literal.of(Duration(0, vx.ms - vy.ms))
    if isinstance(vx, Duration) and isinstance(vy, Duration) and op in "+-":
        s = 1 if op == "+" else -1
        return Literal.of(Duration(vx.months + s * vy.months, vx.ms + s * vy.ms))
    if isinstance(vx, Duration) and _is_num(vy) and op in "*/":
        if op == "/" and vy == 0:
            return None
        f = (lambda v: v * vy) if op == "*" else (lambda v: v / vy)
        return Literal.of(Duration(int(f(vx.months)), int(f(vx.ms))))
    if _is_num(vx) and isinstance(vy, Duration) and op == "*":
        return Literal.of(Duration(int(vx * vy.months), int(vx * vy.ms)))
    return None


def _instant(ms: int, like) -> Literal:
    text = format_ms(ms)
    if isinstance(like, DateValue):
        return Literal(text[:10], XSD_DATE)
    return Literal(text, XSD_DATETIME)


def _add_months(ms: int, months: int) -> int:
    if months == 0:
        return ms
    dt = _EPOCH + timedelta(milliseconds=ms)
    y, m = divmod(dt.month - 1 + months, 12)
    year, month = dt.year + y, m + 1
    day = min(dt.day, calendar.monthrange(year, month)[1])  # clamp like xsd (31 Jan + 1M = 28/29 Feb)
    moved = dt.replace(year=year, month=month, day=day)
    delta = moved - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000
