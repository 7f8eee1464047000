"""Built-in functions in rule bodies: truncating integer division and remainder beside exact `/`,
string functions, min/max of values, boolean tests, and aggregate witnesses (Soufflé's semantics)."""
import math
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from holokb.core import Literal, RuleSyntaxError
from holokb.core.functions import apply_call, apply_op
from holokb.engine import closure

from lang import EX, facts, names, rules


@given(st.integers(-10**6, 10**6), st.integers(-1000, 1000).filter(lambda d: d != 0))
def test_div_and_mod_truncate_toward_zero_like_c(a, b):
    q = apply_call("div", (Literal.of(a), Literal.of(b))).value
    r = apply_op("%", Literal.of(a), Literal.of(b)).value
    assert q == math.trunc(a / b) if abs(a) < 2**52 else True
    assert q * b + r == a and abs(r) < abs(b) and (r == 0 or (r > 0) == (a > 0))
    assert apply_call("mod", (Literal.of(a), Literal.of(b))).value == r


def test_exact_division_stays_beside_integer_division():
    m = closure(rules("rule r: ex:r(?x, ?q, ?d, ?m) :- ex:n(?x), ?q = ?x / 4, ?d = div(?x, 4), ?m = ?x % 4."),
                facts("ex:n(7). ex:n(-7). ex:n(8)."))
    got = {(x, str(q), d, m) for x, q, d, m in names(m.relation(EX + "r"))}
    assert got == {(7, "1.75", 1, 3), (-7, "-1.75", -1, -3), (8, "2", 2, 0)}


def test_undefined_values_drop_the_row_and_never_raise():
    m = closure(rules("""
        rule z: ex:z(?x, ?q) :- ex:n(?x), ?q = div(?x, 0).
        rule s: ex:s(?x, ?l) :- ex:n(?x), ?l = strlen(?x).
        rule bad: ex:bad(?x) :- ex:n(?x), match("(", to_string(?x)).
    """), facts("ex:n(7). ex:n(1.5)."))
    assert m.relation(EX + "z") == () and m.relation(EX + "s") == () and m.relation(EX + "bad") == ()


def test_string_functions_and_tests():
    db = facts('ex:name("Anna"). ex:name("Rachel"). ex:name("Quentin"). ex:code("42"). ex:code("x1").')
    m = closure(rules("""
        rule info: ex:info(?s, ?l, ?c, ?u) :- ex:name(?s), ?l = strlen(?s), ?c = concat(?s, "-", to_string(?l)),
            ?u = substr(?s, 1, 3).
        rule hasA: ex:hasA(?s) :- ex:name(?s), contains("a", ?s).
        rule notQ: ex:notQ(?s) :- ex:name(?s), not match("Q.*", ?s).
        rule past: ex:past(?s, ?u) :- ex:name(?s), ?u = substr(?s, 10, 2).
        rule num: ex:num(?c, ?n) :- ex:code(?c), ?n = to_number(?c) + 1.
    """), db)
    assert names(m.relation(EX + "info")) == {("Anna", 4, "Anna-4", "nna"), ("Rachel", 6, "Rachel-6", "ach"),
                                              ("Quentin", 7, "Quentin-7", "uen")}
    assert names(m.relation(EX + "hasA")) == {("Anna",), ("Rachel",)}
    assert names(m.relation(EX + "notQ")) == {("Anna",), ("Rachel",)}
    assert names(m.relation(EX + "past")) == {("Anna", ""), ("Rachel", ""), ("Quentin", "")}
    assert names(m.relation(EX + "num")) == {("42", 43)}


def test_min_and_max_of_values_beside_the_aggregates():
    m = closure(rules("""
        rule mm: ex:mm(?x, ?lo, ?hi) :- ex:p(?x, ?y), ?lo = min(?x, ?y), ?hi = max(?x, ?y, 0).
        rule top: ex:top(?n) :- ?n = max(?y : ex:p(?x, ?y)).
    """), facts("ex:p(1, 2). ex:p(-5, -9). ex:p(4, 3)."))
    assert names(m.relation(EX + "mm")) == {(1, 1, 2), (-5, -9, 0), (4, 3, 4)}
    assert names(m.relation(EX + "top")) == {(3,)}


def test_aggregate_witnesses_bind_head_variables_to_the_extreme_solutions():
    # Soufflé's aggregate_witnesses: Tallest(student, n) :- n = max height : { Student(student, height) }.
    db = facts('ex:student("Anna", 170). ex:student("Rachel", 177). ex:student("Q", 180). ex:student("R", 180). '
               "ex:a(1, 2). ex:a(5, 6). ex:a(-50, 3). ex:a(54, 5).")
    m = closure(rules("""
        rule tallest: ex:tallest(?s, ?n) :- ?n = max(?h : ex:student(?s, ?h)).
        rule minsum: ex:minsum(?x, ?y, ?s) :- ?s = min(?x + ?y : ex:a(?x, ?y)).
        rule grouped: ex:grouped(?x, ?n) :- ex:a(?x, ?_), ?n = max(?y : ex:a(?x, ?y)).
        rule counted: ex:counted(?x, ?n) :- ?n = count(?y : ex:a(?x, ?y)).
    """), db)
    assert names(m.relation(EX + "tallest")) == {("Q", 180), ("R", 180)}  # every tied witness
    assert names(m.relation(EX + "minsum")) == {(-50, 3, -47)}
    assert names(m.relation(EX + "grouped")) == {(1, 2), (5, 6), (-50, 3), (54, 5)}  # bound outside: a group
    assert names(m.relation(EX + "counted")) == {(1, 1), (5, 1), (-50, 1), (54, 1)}  # count groups by head vars


@pytest.mark.parametrize("text, code, hint", [
    ("rule r: ex:r(?l) :- ex:s(?s), ?l = strlne(?s).", "HK115", "did you mean strlen?"),
    ("rule r: ex:r(?l) :- ex:s(?s), ?l = substr(?s, 1).", "HK116", "substr(?s, start, length)"),
    ("rule r: ex:r(?l) :- ex:s(?s), ?l = concat(count(: ex:s(?t))).", "HK110", None),
])
def test_unknown_functions_and_wrong_arities_are_coded_diagnostics(text, code, hint):
    with pytest.raises(RuleSyntaxError) as e:
        rules(text)
    d = e.value.diagnostics[0]
    assert d.code == code and d.location is not None and (hint is None or hint in (d.hint or ""))


_ints = st.integers(-10**6, 10**6)


@given(_ints, st.integers(0, 40))
def test_pow_of_integers_is_exact_and_a_negative_power_a_double(x, n):
    got = apply_call("pow", (Literal.of(x), Literal.of(n)))
    assert got.value == x ** n and type(got.value) is int
    if x != 0:
        neg = apply_call("pow", (Literal.of(x), Literal.of(-n - 1))).value
        assert isinstance(neg, float) and math.isclose(neg, float(x) ** (-n - 1), rel_tol=1e-12)


@given(st.decimals(min_value=-1000, max_value=1000, places=3, allow_nan=False, allow_infinity=False),
       st.integers(0, 12))
def test_pow_of_a_decimal_is_exact_not_rounded_to_a_context(x, n):
    from fractions import Fraction

    got = apply_call("pow", (Literal.of(x), Literal.of(n))).value
    assert Fraction(got) == Fraction(x) ** n


def test_pow_past_the_size_limit_is_undefined_at_once():
    import time

    from holokb.core.functions import MAX_INT_BITS

    t0 = time.process_time()
    assert apply_call("pow", (Literal.of(10), Literal.of(10**7))) is None
    assert apply_call("pow", (Literal.of(1e300), Literal.of(10))) is None  # past a double
    assert apply_call("pow", (Literal.of(-8), Literal.of(0.5))) is None  # no real root
    assert apply_call("bshl", (Literal.of(1), Literal.of(MAX_INT_BITS + 1))) is None
    assert apply_call("pow", (Literal.of(1), Literal.of(10**9))).value == 1  # small bases have no size
    assert time.process_time() - t0 < 1.0


@given(_ints, _ints, st.integers(0, 64))
def test_bitwise_and_logical_operations_are_pythons_on_integers(x, y, n):
    call = lambda f, *a: apply_call(f, tuple(Literal.of(v) for v in a)).value  # noqa: E731
    assert (call("band", x, y), call("bor", x, y), call("bxor", x, y), call("bnot", x)) == (x & y, x | y, x ^ y, ~x)
    assert (call("bshl", x, n), call("bshr", x, n)) == (x << n, x >> n)
    assert (call("land", x, y), call("lor", x, y), call("lxor", x, y), call("lnot", x)) == (
        int(bool(x) and bool(y)), int(bool(x) or bool(y)), int(bool(x) != bool(y)), int(not x))


def test_number_conversions_and_what_they_refuse():
    from decimal import Decimal

    conv = lambda f, v: apply_call(f, (Literal.of(v),))  # noqa: E731
    assert conv("to_float", 7).value == 7.0 and type(conv("to_float", 7).value) is float
    assert conv("to_float", Decimal("2.5")).value == 2.5
    assert [conv("to_integer", v).value for v in (-2.7, 2.7, Decimal("-7.9"), 12)] == [-2, 2, -7, 12]
    for f in ("to_float", "to_integer", "bnot", "lnot"):
        assert conv(f, "12") is None and conv(f, True) is None  # strings and booleans are not numbers
    assert apply_call("band", (Literal.of(1.0), Literal.of(1))) is None  # bitwise: integers only
    assert apply_call("bshr", (Literal.of(8), Literal.of(-1))) is None


def test_the_new_functions_in_rules_close_as_python_computes_them():
    m = closure(rules("""
        rule p: ex:p(?x, ?sq, ?cube, ?half) :- ex:n(?x), ?sq = pow(?x, 2), ?cube = pow(?x, 3) - 1,
            ?half = to_integer(to_float(?x) / 2).
        rule b: ex:b(?x, ?y, ?a, ?o, ?s, ?l) :- ex:n(?x), ex:n(?y), ?x < ?y, ?a = band(?x, ?y), ?o = bor(?x, ?y),
            ?s = bshl(?x, ?y), ?l = lor(land(?x, ?y), lnot(?x)).
    """), facts("ex:n(-3). ex:n(0). ex:n(5)."))
    assert names(m.relation(EX + "p")) == {(-3, 9, -28, -1), (0, 0, -1, 0), (5, 25, 124, 2)}
    want = {(x, y, x & y, x | y, x << y, int((bool(x) and bool(y)) or not x))
            for x in (-3, 0, 5) for y in (-3, 0, 5) if x < y and y >= 0}
    assert names(m.relation(EX + "b")) == want  # bshl by a negative count is undefined: no row


def test_mean_divides_the_sum_by_the_count_as_slash_does():
    m = closure(rules("rule m: ex:m(?g, ?a) :- ex:G(?g), ?a = mean(?v : ex:v(?g, ?k, ?v))."),
                facts("ex:G(1). ex:G(2). ex:G(3). ex:G(4). ex:v(1, 1, 1). ex:v(1, 2, 2). ex:v(2, 1, 1). ex:v(2, 2, 1). "
                      'ex:v(2, 3, 2). ex:v(3, 1, 1.5e0). ex:v(3, 2, 2). ex:v(4, 1, "x").'))
    got = {g: a for g, a in names(m.relation(EX + "m"))}
    # distinct solutions (k tells the two 1s of group 2 apart); a double makes a double; a string no mean
    assert got == {1: Decimal("1.5"), 2: Decimal(4) / Decimal(3), 3: 1.75}
    assert type(got[3]) is float


def test_records_are_values_built_and_read_by_field():
    """record(…) makes one value of its fields (equal fields, one term: 1 and "01"^^xsd:int are one
    integer); field reads them back, also through nesting, and has no value past the last field."""
    from holokb.core.functions import RECORD

    m = closure(rules("""
        rule pair: ex:pair(?p) :- ex:n(?x), ex:n(?y), ?x < ?y, ?p = record(?x, ?y).
        rule list: ex:list(?l) :- ex:n(?x), ?l = record(?x, record(?x, "end")).
        rule firsts: ex:first(?x, ?y) :- ex:pair(?p), ?x = field(?p, 0), ?y = field(?p, 1).
        rule deep: ex:deep(?e) :- ex:list(?l), ?e = field(field(?l, 1), 1).
        rule past: ex:past(?z) :- ex:pair(?p), ?z = field(?p, 2).
        rule same: ex:same(?p) :- ex:pair(?p), ?p = record(1, 2).
    """), facts('ex:n(1). ex:n(2). ex:n(3). ex:n("01"^^<http://www.w3.org/2001/XMLSchema#int>).'))
    assert all(r[0].datatype == RECORD for r in m.relation(EX + "pair"))
    assert names(m.relation(EX + "first")) == {(1, 2), (1, 3), (2, 3)}
    assert names(m.relation(EX + "deep")) == {("end",)}
    assert m.relation(EX + "past") == () and len(m.relation(EX + "same")) == 1


def test_a_long_list_of_records_grows_linearly():
    from holokb.core.functions import NIL

    r = NIL
    for i in range(200):
        r = apply_call("record", (Literal.of(i), r))
    assert len(r.lexical) < 200 * 80  # nested as structure, not re-escaped at every level
    for i in range(199, 190, -1):
        assert apply_call("field", (r, Literal.of(0))).value == i
        r = apply_call("field", (r, Literal.of(1)))
