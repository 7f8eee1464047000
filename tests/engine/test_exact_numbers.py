"""Numbers compare and add exactly: the engine keeps doubles beside its ids for vectorised comparisons,
but two numbers whose doubles are equal (decimals past 17 digits, integers past 2**53 beside a
decimal or past 2**62) are decided on their exact values, in the vector path and the small-delta
row path alike; decimal literals keep every digit (Decimal's default context rounds to 28)."""
import operator
from decimal import Decimal

from hypothesis import given, settings, strategies as st

from holokb.core import Fact, IRI, Literal
from holokb.core.functions import apply_op
from holokb.engine import closure
from holokb.engine import rowwise as _rowwise

from lang import EX, facts, rules

XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"
BIG = 2**53

_near = st.sampled_from([BIG, 2**62, 10**20, 1])
_ints = st.builds(lambda base, d, s: s * (base + d), _near, st.integers(-3, 3), st.sampled_from([1, -1]))
_decimals = st.builds(lambda i, frac, s: s * (Decimal(i) + Decimal(frac).scaleb(-35)),
                      _near, st.integers(0, 3), st.sampled_from([1, -1]))
_doubles = st.builds(float, _ints)
NUMBERS = st.lists(st.one_of(_ints, _decimals, _doubles), min_size=1, max_size=8)

OPS = {"lt": ("<", operator.lt), "le": ("<=", operator.le), "gt": (">", operator.gt), "ge": (">=", operator.ge),
       "eq": ("=", operator.eq), "ne": ("!=", operator.ne)}


def _program(seeded: bool) -> str:
    # seeded: the left side comes from a derived relation, so each comparison runs in a later
    # iteration over a small delta (the row-at-a-time path)
    left = "ex:s(?x)" if seeded else "ex:a(?x)"
    text = "rule s: ex:s(?x) :- ex:a(?x).\n" if seeded else ""
    for name, (op, _) in OPS.items():
        text += f"rule {name}: ex:{name}(?x, ?y) :- {left}, ex:b(?y), ?x {op} ?y.\n"
    return text


def _facts(xs, ys):
    return facts(" ".join(f"ex:a({_lit(x)})." for x in xs) + " " + " ".join(f"ex:b({_lit(y)})." for y in ys))


def _lit(v) -> str:
    if isinstance(v, float):
        return repr(v) if "e" in repr(v) else repr(v) + "e0"
    if isinstance(v, Decimal):  # always with a point: a decimal literal, never an integer one
        t = format(v, "f")
        return t if "." in t else t + ".0"
    return str(v)


def _values(rel) -> set:
    return {tuple(t.value for t in row) for row in rel}


@settings(max_examples=60, deadline=None)
@given(NUMBERS, NUMBERS, st.booleans())
def test_comparisons_decide_on_exact_values(xs, ys, seeded):
    m = closure(rules(_program(seeded)), _facts(xs, ys))
    a = {Literal.of(x).value for x in xs}
    b = {Literal.of(y).value for y in ys}
    for name, (_, f) in OPS.items():
        got = {tuple(Literal(t.lexical, t.datatype).value for t in row) for row in _rows(m, name)}
        want = {(x, y) for x in a for y in b if f(x, y)}
        assert _same(got, want), (name, got ^ want)


def _rows(m, name):
    return [tuple(m.dictionary.term(i) if isinstance(i, int) else i for i in row) for row in m.relation(EX + name)]


def _same(got, want) -> bool:
    # 2 and 2.0 are one value (Python's set keeps the first), so compare as exact Fractions
    from fractions import Fraction

    norm = lambda s: {tuple(Fraction(v) for v in row) for row in s}  # noqa: E731
    return norm(got) == norm(want)


def test_the_row_path_is_taken_and_decides_exactly(monkeypatch):
    calls = []
    real = _rowwise.RowIteration.compare_ids

    def counting(self, op, a, b):
        calls.append(op)
        return real(self, op, a, b)

    monkeypatch.setattr(_rowwise.RowIteration, "compare_ids", counting)
    m = closure(rules(_program(True)), _facts([BIG + 1], [Decimal(BIG)]))
    assert calls, "the small-delta row path compared nothing"
    assert [len(m.relation(EX + n)) for n in OPS] == [0, 0, 1, 1, 0, 1]  # lt le gt ge eq ne


def test_decimal_literals_keep_every_digit():
    a = Literal("1.0000000000000000000000000000001", XSD_DECIMAL)
    b = Literal("1.0000000000000000000000000000002", XSD_DECIMAL)
    assert a.value != b.value and a.value < b.value
    s, p = IRI(EX + "x"), IRI(EX + "v")
    assert Fact(s, p, a).id != Fact(s, p, b).id  # two facts, not one
    assert Literal("2.500", XSD_DECIMAL).value == Decimal("2.5")  # trailing zeros still go


@given(st.decimals(allow_nan=False, allow_infinity=False, places=40, min_value=-10**12, max_value=10**12),
       st.decimals(allow_nan=False, allow_infinity=False, places=40, min_value=-10**12, max_value=10**12))
def test_decimal_addition_subtraction_and_product_are_exact(x, y):
    from fractions import Fraction

    for op, f in (("+", operator.add), ("-", operator.sub), ("*", operator.mul)):
        got = apply_op(op, Literal.of(x), Literal.of(y)).value
        assert Fraction(got) == f(Fraction(x), Fraction(y))


def test_sum_aggregate_of_decimals_is_exact():
    m = closure(rules("rule t: ex:t(?s) :- ?s = sum(?v : ex:v(?k, ?v))."),
                facts("ex:v(1, 0.0000000000000000000000000000001). ex:v(2, 1000000). ex:v(3, 0.5)."))
    (row,) = m.relation(EX + "t")
    assert row[0].value == Decimal("1000000.5000000000000000000000000000001")
