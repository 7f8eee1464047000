"""The SMT-LIB scanner, named-assertion rewrite and literal emission."""
from __future__ import annotations

from fractions import Fraction

import pytest

from holokb.core.errors import SolverError
from holokb.solver.smtlib import int_literal, parse_value, real_literal, rewrite_named, split_commands


def test_split_commands_respects_strings_quoted_symbols_and_comments():
    text = '(set-info :source |a ) b|) ; (exit)\n(assert (= s "x)(exit"))\n(check-sat)'
    cmds = split_commands(text)
    assert [c.head for c in cmds] == ["set-info", "assert", "check-sat"]
    assert cmds[1].text == '(assert (= s "x)(exit"))'


@pytest.mark.parametrize("bad", ["(assert x", "(assert x))", "exit", "(assert |unterminated)"])
def test_split_commands_refuses_unbalanced_or_stray_text(bad):
    with pytest.raises(SolverError):
        split_commands(bad)


def test_rewrite_named_turns_names_into_assumptions():
    text, names = rewrite_named("(declare-const x Int)\n(assert (! (> x 1) :named big))\n(assert (< x 0))")
    assert names == ("big",)
    assert "(declare-const big Bool)\n(assert (=> big (> x 1)))" in text and "(assert (< x 0))" in text
    assert rewrite_named("(assert true)") == ("(assert true)", ())


def test_literals_round_trip_through_parse_value():
    for v in (0, 7, -12):
        assert parse_value(int_literal(v)) == v
    for v in (Fraction(1, 2), Fraction(-3, 4), Fraction(5)):
        assert parse_value(real_literal(v)) == v
    assert parse_value("true") is True and parse_value("(- 2)") == -2 and parse_value("U!val!0") == "U!val!0"
