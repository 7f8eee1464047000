"""Built-in evaluators (DS005 §6.2): exact comparisons of numbers, durations and timestamps.

They never guess.  Values of different kinds do not compare (a duration and a number, a date and
a dateTime, a month-based and a day-based duration): the result is :class:`Incomparable`, and
the answer is ``unsupported``.  A parameter the question did not give is :class:`MissingParam`.
Numbers compare exactly (as decimals; doubles by their shortest decimal form).

>>> compare(Literal.of(Duration(0, 20 * 60_000)), ">", Literal.of(Duration(0, 15 * 60_000)))
True
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..analysis.program import Const, Var
from ..core.terms import IRI, DateTimeValue, DateValue, Literal, Term
from ..core.time import Duration
from .plan import Compare, Operand, Param, QueryPlan


@dataclass(frozen=True, slots=True)
class Incomparable:
    """Why two values cannot be compared."""

    message: str


@dataclass(frozen=True, slots=True)
class MissingParam:
    """The question did not give a parameter a test needs."""

    name: str


def _number(v) -> Decimal | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, Decimal):
        return v
    if isinstance(v, float):
        return Decimal(repr(v))
    return None


def _key(t: Term) -> tuple[str, object] | Incomparable:
    """A (kind, comparable value) pair; kinds must match to compare."""
    if isinstance(t, IRI):
        return ("iri", t.value)
    v = t.value
    n = _number(v)
    if n is not None:
        return ("number", n)
    if isinstance(v, Duration):
        if v.months and v.ms:
            return Incomparable(f"the duration {t.lexical} mixes months and days (its length is not fixed)")
        return ("months", v.months) if v.months else ("ms-duration", v.ms)
    if isinstance(v, DateTimeValue):
        return ("dateTime", v.ms)
    if isinstance(v, DateValue):
        return ("date", v.ms)
    if isinstance(v, bool):
        return ("boolean", v)
    if isinstance(v, str):
        return ("string", v)
    return ("opaque", v)


_ORDERED = frozenset({"number", "months", "ms-duration", "dateTime", "date"})


def compare(left: Term, op: str, right: Term) -> bool | Incomparable:
    """``left op right`` exactly, or why it cannot be decided."""
    a, b = _key(left), _key(right)
    if isinstance(a, Incomparable):
        return a
    if isinstance(b, Incomparable):
        return b
    if a[0] != b[0]:
        if {a[0], b[0]} == {"months", "ms-duration"} and a[1] == 0 == b[1]:
            a, b = ("ms-duration", 0), ("ms-duration", 0)
        else:
            return Incomparable(f"cannot compare {_show(left)} ({a[0]}) with {_show(right)} ({b[0]})")
    if op in ("=", "!="):
        return (a[1] == b[1]) == (op == "=")
    if a[0] not in _ORDERED:
        return Incomparable(f"{a[0]} values have no order ({_show(left)} {op} {_show(right)})")
    x, y = a[1], b[1]
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]  # type: ignore[operator]


def _show(t: Term) -> str:
    return t.value if isinstance(t, IRI) else t.lexical


def operand_value(o: Operand, plan: QueryPlan, bindings: dict[str, Term]) -> Term | MissingParam | Incomparable:
    """The value of one side of a test: a binding of the goal, a constant, or a parameter (a number
    with a unit becomes a day-time duration)."""
    if isinstance(o, Var):
        t = bindings.get(o.name)
        return t if t is not None else Incomparable(f"?{o.name} is not bound by the goal")
    if isinstance(o, Const):
        return o.term
    assert isinstance(o, Param)
    v = plan.param(o.name)
    if v is None:
        return MissingParam(o.name)
    if o.unit is None:
        return v
    n = _number(v.value)
    if n is None:
        return Incomparable(f"parameter {o.name} = {v.lexical!r} is not a number of {o.unit.value}")
    ms = n * o.unit.ms
    if ms != ms.to_integral_value():
        return Incomparable(f"parameter {o.name} = {v.lexical} {o.unit.value} is not a whole number of milliseconds")
    return Literal.of(Duration(0, int(ms)))


def run_test(t: Compare, plan: QueryPlan, bindings: dict[str, Term]) -> tuple[bool | Incomparable | MissingParam, tuple[Term, Term] | None]:
    """Evaluate one test; also return the two values compared (for the chain)."""
    a = operand_value(t.left, plan, bindings)
    if isinstance(a, (MissingParam, Incomparable)):
        return a, None
    b = operand_value(t.right, plan, bindings)
    if isinstance(b, (MissingParam, Incomparable)):
        return b, None
    return compare(a, t.op, b), (a, b)


__all__ = ["Incomparable", "MissingParam", "compare", "operand_value", "run_test"]
