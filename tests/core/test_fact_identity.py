"""Golden values of Fact.id: the canonical encoding must never drift (ledger files depend on it)."""
from __future__ import annotations

import pytest

from holokb.core import IRI, XSD, Fact, Literal

EX = "http://example.org/"
S, P, O = IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o")
DT, DUR = XSD + "dateTime", XSD + "duration"

IRI_ID = "e20cc6dfe8d5f40a65fabae301f585e3a97b51a8454c5567151718c53f7a2eb9"
STRING_ID = "204b0e566a9cf09bc0d46c2cd26f6abb87904fb65666189370caea1e78f4f4e3"
INTEGER_ID = "995c8a734cb4c47d88050e428229c9d2e2a51d41791d58627c7403e5f8ee7524"
DOUBLE_ZERO_ID = "2691301ddcb1641852a60b67e2c52bd4491255e5568fc2c4842dacc10f977066"
BOOLEAN_ID = "c2c440186ae91247175ff0b3dc81d2a95b9c9725b12ba2d1a95f67ba99b01992"
DATETIME_ID = "9687367b07fabb212263264a00175dc26369a40dde13ca74b6334ca9c6a53331"
DURATION_ID = "3cfe734adf6586c3e788dd059fa15af0f8b4233910944735dc019ab08f4a6fe0"
QUALIFIED_ID = "22b937c65cc61b5cb6baa548f34cb94c09b6adc7ac1e3375d7b60656b1c96e3b"
NEGATED_ID = "8891aa5c87ae287d2b8955c780fe96d1c5f33472b4e154a1d84c1c091adad163"

GOLDEN = [
    ("iri object", Fact(S, P, O), IRI_ID),
    ("string", Fact(S, P, Literal("Straße Café")), STRING_ID),
    ("string, other case (ß casefolds to ss)", Fact(S, P, Literal("STRASSE CAFÉ")), STRING_ID),
    ("string, decomposed accent (NFKC)", Fact(S, P, Literal("Straße Cafe\u0301")), STRING_ID),
    ("integer", Fact(S, P, Literal.of(42)), INTEGER_ID),
    ("integer, other lexical form", Fact(S, P, Literal("042", XSD + "integer")), INTEGER_ID),
    ("double 0.0", Fact(S, P, Literal.of(0.0)), DOUBLE_ZERO_ID),
    ("double -0.0 is 0.0", Fact(S, P, Literal("-0.0", XSD + "double")), DOUBLE_ZERO_ID),
    ("boolean", Fact(S, P, Literal.of(True)), BOOLEAN_ID),
    ("boolean written as 1", Fact(S, P, Literal("1", XSD + "boolean")), BOOLEAN_ID),
    ("dateTime UTC", Fact(S, P, Literal("2026-01-01T10:00:00Z", DT)), DATETIME_ID),
    ("dateTime, same instant with offset", Fact(S, P, Literal("2026-01-01T11:00:00+01:00", DT)), DATETIME_ID),
    ("duration", Fact(S, P, Literal("PT15M", DUR)), DURATION_ID),
    ("qualifiers", Fact(S, P, O, qualifiers={"version": Literal("2"), "condition": IRI(EX + "c")}), QUALIFIED_ID),
    ("qualifiers in another order",
     Fact(S, P, O, qualifiers=(("condition", IRI(EX + "c")), ("version", Literal("2")))), QUALIFIED_ID),
    ("negated", Fact(S, P, O, polarity="negate"), NEGATED_ID),
]


@pytest.mark.parametrize("label, fact, expected", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_fact_ids(label, fact, expected):
    assert fact.id == expected


def test_distinct_values_have_distinct_ids():
    ids = {IRI_ID, STRING_ID, INTEGER_ID, DOUBLE_ZERO_ID, BOOLEAN_ID, DATETIME_ID, DURATION_ID, QUALIFIED_ID,
           NEGATED_ID}
    assert len(ids) == 9
    # near misses stay distinct: integer 1 vs boolean true vs string "1" vs double 1.0
    near = {Fact(S, P, Literal.of(1)).id, Fact(S, P, Literal.of(True)).id, Fact(S, P, Literal("1")).id,
            Fact(S, P, Literal.of(1.0)).id, Fact(S, P, IRI(EX + "1")).id}
    assert len(near) == 5


def test_polarity_and_qualifiers_change_identity_but_not_statement_key():
    base = Fact(S, P, O)
    neg = Fact(S, P, O, polarity="negate")
    other_object = Fact(S, P, IRI(EX + "other"))
    qualified = Fact(S, P, O, qualifiers={"version": Literal("2")})
    assert base.statement_key() == neg.statement_key() == other_object.statement_key()
    assert qualified.statement_key() != base.statement_key()
