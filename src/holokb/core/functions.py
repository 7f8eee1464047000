"""Operations on literal values: arithmetic and the rule language's built-in functions.

Every function takes core terms and returns a :class:`Literal`, or ``None`` where the operation has
no meaning for its operands (a string plus a number, division by zero, an ill-formed regular
expression): a rule row with an undefined value is simply not derived, nothing raises.  The
engine applies these once per distinct operand tuple; the solver applies them while grounding.

Integer ``div``/``mod``/``%`` truncate toward zero (C and Soufflé semantics); ``/`` is exact
(integers that do not divide give a decimal).

>>> apply_call("div", (Literal.of(-7), Literal.of(2))), apply_op("%", Literal.of(-7), Literal.of(2))
(Literal(lexical='-3', datatype='http://www.w3.org/2001/XMLSchema#integer', lang=None), Literal(lexical='-1', datatype='http://www.w3.org/2001/XMLSchema#integer', lang=None))
"""
from __future__ import annotations

import calendar
import json
import re
from datetime import datetime, timedelta, timezone
from decimal import Context, Decimal, DivisionByZero, Inexact, InvalidOperation, Overflow, Underflow

from .terms import IRI, XSD_BOOLEAN, XSD_DATE, XSD_DATETIME, XSD_STRING, DateTimeValue, DateValue, Literal, Term
from .time import Duration, format_ms

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def apply_op(op: str, x: Term, y: Term) -> Literal | None:
    """``x op y`` for ``+ - * / %`` (None where undefined)."""
    return _apply(op, x, y)


def _apply(op: str, x, y) -> Literal | None:
    if not (isinstance(x, Literal) and isinstance(y, Literal)):
        return None
    vx, vy = x.value, y.value
    try:
        return _apply_values(op, vx, vy)
    except (ArithmeticError, InvalidOperation, OverflowError, ValueError):
        return None


#: Decimal ``+ - *`` (and sums) are exact up to this many significant digits; a result that needs
#: more is undefined (Decimal's default context rounds to 28 digits, silently).  ``/`` rounds to 28
#: digits where the quotient does not terminate (1/3).
DECIMAL_DIGITS = 1000
_EXACT = Context(prec=DECIMAL_DIGITS, traps=[Inexact, Overflow, Underflow, InvalidOperation, DivisionByZero])


def exact_sum(values) -> int | float | Decimal:
    """The sum of numbers: ints exactly, with a float a double, else decimals exactly (ArithmeticError
    past :data:`DECIMAL_DIGITS`)."""
    if any(isinstance(v, float) for v in values):
        return float(sum(float(v) for v in values))
    if all(isinstance(v, int) for v in values):
        return sum(values)
    total = Decimal(0)
    for v in values:
        total = _EXACT.add(total, Decimal(v))
    return total


def _is_num(v) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _apply_values(op: str, vx, vy) -> Literal | None:
    if op == "%":
        return _int_pair(vx, vy, lambda a, b: a - b * _trunc_div(a, b))
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
        if isinstance(vx, Decimal):
            r = _EXACT.add(vx, vy) if op == "+" else _EXACT.subtract(vx, vy) if op == "-" else _EXACT.multiply(vx, vy)
        else:
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


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int_pair(x, y, f) -> Literal | None:
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int) or y == 0:
        return None
    return Literal.of(f(x, y))


def _string(t: Term) -> str | None:
    return t.lexical if isinstance(t, Literal) and t.datatype == XSD_STRING and not t.lang else None


def _boolean(b: bool) -> Literal:
    return Literal("true" if b else "false", XSD_BOOLEAN)


def _order_key(t: Term):
    """(kind, comparable value) of a literal, or None (mixed durations have no order); plain strings
    order by code point."""
    if not isinstance(t, Literal):
        return None
    if _string(t) is not None:
        return ("str", t.lexical)
    v = t.value
    if _is_num(v):
        return ("num", v)
    if isinstance(v, Duration):
        return ("ym", v.months) if v.ms == 0 and v.months else ("dt", v.ms) if v.months == 0 else None
    if isinstance(v, (DateTimeValue, DateValue)):
        return ("time", v.ms)
    return None


def _extreme(args: tuple[Term, ...], pick) -> Literal | None:
    keys = [_order_key(a) for a in args]
    if any(k is None for k in keys) or len({k[0] for k in keys}) != 1:
        return None
    best = pick(range(len(args)), key=lambda i: keys[i][1])
    return args[best]  # type: ignore[return-value]


def _substr(s: Term, start: Term, length: Term) -> Literal | None:
    text, i, n = _string(s), _int(start), _int(length)
    if text is None or i is None or n is None:
        return None
    if i < 0 or n < 0 or i > len(text):  # Soufflé gives "" for a start past the end
        return Literal("")
    return Literal(text[i:i + n])


def _int(t: Term) -> int | None:
    if isinstance(t, Literal) and isinstance(t.value, int) and not isinstance(t.value, bool):
        return t.value
    return None


#: A ``{`` that does not open a quantifier ``{n}``, ``{n,}``, ``{n,m}`` (and is not escaped): Python
#: would read it as a literal brace, ECMAScript and POSIX reject it.  holokb rejects it too.
_STRAY_BRACE = re.compile(r"(?<!\\)\{(?!\d+(?:,\d*)?\})")


def _match(pattern: Term, s: Term) -> Literal | None:
    p, text = _string(pattern), _string(s)
    if p is None or text is None or _STRAY_BRACE.search(p):
        return None
    try:
        return _boolean(re.fullmatch(p, text) is not None)
    except re.error:
        return None


def _to_number(s: Term) -> Literal | None:
    text = _string(s)
    if text is None:
        return None
    t = text.strip()
    if re.fullmatch(r"[+-]?[0-9]+", t):
        return Literal.of(int(t))
    m = re.fullmatch(r"([+-]?)0([xXbB])([0-9a-fA-F]+)", t)  # C-style hexadecimal and binary, as Soufflé reads
    if m:
        try:
            v = int(m.group(3), 16 if m.group(2) in "xX" else 2)
        except ValueError:
            return None
        return Literal.of(-v if m.group(1) == "-" else v)
    if re.fullmatch(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)", t):
        return Literal.of(Decimal(t))
    return None


def _concat(args: tuple[Term, ...]) -> Literal | None:
    parts = [_string(a) for a in args]
    return None if any(p is None for p in parts) else Literal("".join(parts))  # type: ignore[arg-type]


def _abs(t: Term) -> Literal | None:
    if isinstance(t, Literal) and _is_num(t.value):
        return Literal.of(abs(t.value))
    return None


#: The largest result pow and bshl compute, in bits: a rule row past it is undefined (not derived),
#: so that ``pow(10, 10000000)`` cannot hold a closure for minutes (nothing hangs).
MAX_INT_BITS = 1 << 16


def _pow(x: Term, n: Term) -> Literal | None:
    if not (isinstance(x, Literal) and isinstance(n, Literal)):
        return None
    vx, vn = x.value, n.value
    if not (_is_num(vx) and _is_num(vn)):
        return None
    if isinstance(vn, int) and vn >= 0 and isinstance(vx, int):
        if abs(vx) > 1 and vn * abs(vx).bit_length() > MAX_INT_BITS:
            return None
        return Literal.of(vx ** vn)
    if isinstance(vn, int) and vn >= 0 and isinstance(vx, Decimal):
        # Exact: the mantissa's power at the scaled exponent (Decimal's ** rounds to its context).
        sign, digits, exp = vx.as_tuple()
        m = int("".join(map(str, digits)) or "0")
        if m > 1 and vn * m.bit_length() > MAX_INT_BITS:
            return None
        return Literal.of(Decimal((sign * (vn % 2), tuple(map(int, str(m ** vn))), exp * vn)))
    r = float(vx) ** float(vn)  # OverflowError (undefined) past a double; a complex root is undefined too
    return Literal.of(r) if isinstance(r, float) else None


def _to_float(x: Term) -> Literal | None:
    if isinstance(x, Literal) and _is_num(x.value):
        return Literal.of(float(x.value))
    return None


def _to_integer(x: Term) -> Literal | None:
    if isinstance(x, Literal) and _is_num(x.value):
        return Literal.of(int(x.value))  # int() truncates toward zero (floats here are finite)
    return None


def _ints(args: tuple[Term, ...]) -> list[int] | None:
    vals = [_int(a) for a in args]
    return None if any(v is None for v in vals) else vals  # type: ignore[return-value]


def _bits(f):
    """A bitwise or logical operation on integers (booleans are not integers here)."""
    def apply(args: tuple[Term, ...]) -> Literal | None:
        vals = _ints(args)
        if vals is None:
            return None
        r = f(*vals)
        return None if r is None else Literal.of(r)
    return apply


def _shl(x: int, n: int) -> int | None:
    if n < 0 or n > MAX_INT_BITS or x.bit_length() + n > MAX_INT_BITS:
        return None
    return x << n


#: The datatype of record values (``record(…)``): a tuple of terms as one literal, compared as a whole.
RECORD = "https://w3id.org/holokb/record"
#: The absent record (Soufflé's ``nil``): a record value no field can be read from.
NIL = Literal("nil", RECORD)


def _field_code(t: Term) -> list:
    """One field of a record's lexical form: the same term (as the engine and the ledger identify
    terms) always gives the same code, so equal records have equal lexical forms."""
    if isinstance(t, IRI):
        return ["i", t.value]
    if t.datatype == RECORD:  # nested as structure, not as escaped text (a list of depth d stays linear)
        return ["n"] if t.lexical == NIL.lexical else ["r", json.loads(t.lexical)]
    v = t.value
    if isinstance(v, (bool, int, float, Decimal)) or t.datatype == XSD_STRING:
        t = Literal.of(v) if not isinstance(v, str) else t  # 01 and 1 (or "1"^^xsd:int) are one term
    return ["l", t.lexical, t.datatype, t.lang or ""]


def _record_of(codes: list) -> Literal:
    return Literal(json.dumps(codes, ensure_ascii=False, separators=(",", ":")), RECORD)


def _record(args: tuple[Term, ...]) -> Literal:
    return _record_of([_field_code(a) for a in args])


def _field(r: Term, i: Term) -> Term | None:
    k = _int(i)
    if not isinstance(r, Literal) or r.datatype != RECORD or k is None or k < 0 or r.lexical == NIL.lexical:
        return None
    fields = json.loads(r.lexical)
    if k >= len(fields):
        return None
    f = fields[k]
    if f[0] == "i":
        return IRI(f[1])
    if f[0] == "n":
        return NIL
    if f[0] == "r":
        return _record_of(f[1])
    return Literal(f[1], f[2], f[3] or None)


_CALLS = {
    "div": lambda a: _int_pair(_int_value(a[0]), _int_value(a[1]), _trunc_div),
    "mod": lambda a: apply_op("%", a[0], a[1]),
    "concat": _concat,
    "strlen": lambda a: None if _string(a[0]) is None else Literal.of(len(_string(a[0]))),  # type: ignore[arg-type]
    "substr": lambda a: _substr(*a),
    "contains": lambda a: None if _string(a[0]) is None or _string(a[1]) is None
    else _boolean(_string(a[0]) in _string(a[1])),  # type: ignore[operator]
    "match": lambda a: _match(*a),
    "to_number": lambda a: _to_number(a[0]),
    "to_string": lambda a: Literal(a[0].lexical) if isinstance(a[0], Literal) else None,
    "min": lambda a: _extreme(a, min),
    "max": lambda a: _extreme(a, max),
    "abs": lambda a: _abs(a[0]),
    "pow": lambda a: _pow(a[0], a[1]),
    "to_float": lambda a: _to_float(a[0]),
    "to_integer": lambda a: _to_integer(a[0]),
    "band": _bits(lambda x, y: x & y),
    "bor": _bits(lambda x, y: x | y),
    "bxor": _bits(lambda x, y: x ^ y),
    "bnot": _bits(lambda x: ~x),
    "bshl": _bits(_shl),
    "bshr": _bits(lambda x, n: None if n < 0 else x >> n),
    "land": _bits(lambda x, y: int(x != 0 and y != 0)),
    "lor": _bits(lambda x, y: int(x != 0 or y != 0)),
    "lxor": _bits(lambda x, y: int((x != 0) != (y != 0))),
    "lnot": _bits(lambda x: int(x == 0)),
    "record": _record,
    "field": lambda a: _field(a[0], a[1]),
}


def _int_value(t: Term):
    return t.value if isinstance(t, Literal) else None


def apply_call(func: str, args: tuple[Term, ...]) -> Literal | None:
    """A built-in function (``holokb.syntax.ast.FUNCTIONS``) on values; None where undefined."""
    f = _CALLS.get(func)
    if f is None:
        raise ValueError(f"unknown function {func!r}")
    try:
        return f(args)
    except (ArithmeticError, InvalidOperation, OverflowError, ValueError, TypeError):
        return None


__all__ = ["DECIMAL_DIGITS", "MAX_INT_BITS", "NIL", "RECORD", "apply_call", "apply_op", "exact_sum"]
