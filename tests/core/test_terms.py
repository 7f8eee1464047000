"""Terms: IRIs and typed literals keep their form and expose typed values."""
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from holokb.core import IRI, XSD, DateTimeValue, Duration, InvalidValueError, Literal, term_sort_key


def test_iri_rejects_spaces_and_empty():
    for bad in ("", "http://ex.org/a b", "http://ex.org/<x>"):
        with pytest.raises(InvalidValueError):
            IRI(bad)


@pytest.mark.parametrize(
    "lexical, dt, value",
    [
        ("42", XSD + "integer", 42),
        ("042", XSD + "int", 42),
        ("1.50", XSD + "decimal", Decimal("1.5")),
        ("1e3", XSD + "double", 1000.0),
        ("true", XSD + "boolean", True),
        ("0", XSD + "boolean", False),
        ("2026-01-01T10:00:00Z", XSD + "dateTime", DateTimeValue(1767261600000)),
        ("PT15M", XSD + "duration", Duration(0, 900_000)),
        ("hello", XSD + "string", "hello"),
    ],
)
def test_literal_values(lexical, dt, value):
    lit = Literal(lexical, dt)
    assert lit.value == value
    assert lit.lexical == lexical  # stored values keep their form


@pytest.mark.parametrize(
    "lexical, dt",
    [("NaN", XSD + "double"), ("INF", XSD + "double"), ("abc", XSD + "integer"), ("maybe", XSD + "boolean"),
     ("2026-02-30T00:00:00Z", XSD + "dateTime"), ("15 minutes", XSD + "duration")],
)
def test_ill_typed_literals_rejected(lexical, dt):
    with pytest.raises(InvalidValueError):
        Literal(lexical, dt)


def test_negative_zero_is_folded():
    assert str(Literal.of(-0.0).value) == "0.0"
    assert Literal("-0.0", XSD + "double").value == 0.0


def test_of_rejects_non_finite():
    with pytest.raises(InvalidValueError):
        Literal.of(float("nan"))


def test_language_tags_are_lowercased_and_typed():
    lit = Literal("chat", lang="FR")
    assert lit.lang == "fr" and lit.datatype.endswith("#langString")


@given(st.lists(st.one_of(st.text(min_size=1).map(lambda s: Literal(s)), st.integers().map(Literal.of),
                          st.sampled_from([IRI("http://a.org/x"), IRI("http://a.org/y")])), max_size=8))
def test_term_order_is_total_and_deterministic(terms):
    a = sorted(terms, key=term_sort_key)
    b = sorted(reversed(terms), key=term_sort_key)
    assert [term_sort_key(t) for t in a] == [term_sort_key(t) for t in b]
