"""Built-in functions in rule bodies: truncating integer division and remainder beside exact `/`,
string functions, min/max of values, boolean tests, and aggregate witnesses (Soufflé's semantics)."""
import math

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
