"""Comparisons and arithmetic over ground terms (numbers, durations, dateTimes), for grounding.

Comparisons that cannot be decided (a string against a number, ``P1M`` against ``P30D``) are
false, as XSD makes them indeterminate.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from ..core.errors import SolverError
from ..core.fact import encode_term
from ..core.terms import DateTimeValue, DateValue, IRI, Literal, Term, XSD
from ..core.time import Duration


def _num(v: object) -> Fraction | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, Decimal)):
        return Fraction(v)
    return None


def order_key(t: Term) -> tuple[str, object] | None:
    """A comparable (kind, value) for ordered literals; None for IRIs, strings and the like."""
    if isinstance(t, IRI):
        return None
    v = t.value
    n = _num(v)
    if n is not None:
        return ("num", n)
    if isinstance(v, (DateTimeValue, DateValue)):
        return ("time", v.ms)
    if isinstance(v, Duration):
        if v.months == 0:
            return ("dur_ms", v.ms)
        if v.ms == 0:
            return ("dur_months", v.months)
    return None


def compare(op: str, a: Term, b: Term) -> bool:
    """``a op b`` for ground terms: = and != by value identity, ordering on comparable values."""
    if op in ("=", "!="):
        ka, kb = order_key(a), order_key(b)
        same = ka == kb if (ka is not None and kb is not None) else encode_term(a) == encode_term(b)
        return same if op == "=" else not same
    ka, kb = order_key(a), order_key(b)
    if ka is None or kb is None or ka[0] != kb[0]:
        return False
    x, y = ka[1], kb[1]
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    if op == ">=":
        return x >= y
    raise SolverError(f"unknown comparison {op!r}")


def _lit_num(f: Fraction) -> Literal:
    if f.denominator == 1:
        return Literal.of(int(f))
    return Literal(str(Decimal(f.numerator) / Decimal(f.denominator)), XSD + "decimal")


def arith(op: str, a: Term, b: Term) -> Term | None:
    """``a op b`` on numbers, dateTime ± day-time duration, dateTime - dateTime; None when undefined."""
    ka, kb = order_key(a), order_key(b)
    if ka is None or kb is None:
        return None
    (sa, x), (sb, y) = ka, kb
    if sa == sb == "num":
        if op == "+":
            return _lit_num(x + y)
        if op == "-":
            return _lit_num(x - y)
        if op == "*":
            return _lit_num(x * y)
        if op == "/":
            return None if y == 0 else _lit_num(x / y)
    if sa == "time" and sb == "dur_ms" and op in ("+", "-"):
        ms = x + y if op == "+" else x - y
        from ..core.time import format_ms
        return Literal(format_ms(ms), XSD + "dateTime")
    if sa == sb == "time" and op == "-":
        return Literal.of(Duration(0, x - y))
    if sa == sb == "dur_ms" and op in ("+", "-"):
        return Literal.of(Duration(0, x + y if op == "+" else x - y))
    return None
