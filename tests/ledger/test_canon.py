"""ledger.canon.canon_of (the bulk loaders' term encoding) equals core.fact.encode_term."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from holokb.core import IRI, InvalidValueError, Literal
from holokb.core.fact import encode_term
from holokb.core.terms import DOUBLE_TYPES, INTEGER_TYPES, XSD
from holokb.ledger.canon import canon_of

_INTS = sorted(INTEGER_TYPES)
_DOUBLES = sorted(DOUBLE_TYPES)


def _literal(lexical: str, datatype: str, lang: str | None = None) -> Literal | None:
    try:
        return Literal(lexical, datatype, lang)
    except InvalidValueError:
        return None


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ascii_texts = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=12)
spaced = st.sampled_from(["", " ", "\t", "\n"])
literals = st.one_of(
    st.builds(lambda s: Literal(s), st.one_of(texts, ascii_texts)),
    st.builds(lambda s, lang: _literal(s, XSD + "string", lang), texts, st.sampled_from(["en", "EN-gb", "de"])),
    st.builds(lambda v, dt, a, b: _literal(f"{a}{v}{b}", dt), st.integers(-(2**70), 2**70), st.sampled_from(_INTS),
              spaced, spaced),
    st.builds(lambda s, dt: _literal(s, dt), st.sampled_from(["01", "+5", "1_000", "-0", " 7 ", "x"]),
              st.sampled_from(_INTS)),
    st.builds(lambda v, dt, a: _literal(f"{a}{v!r}", dt), st.floats(allow_nan=False, allow_infinity=False),
              st.sampled_from(_DOUBLES), spaced),
    st.builds(lambda s, dt: _literal(s, dt), st.sampled_from(["1e5", "-0.0", "0", ".5", "1E-3", "INF", "NaN", "1e400"]),
              st.sampled_from(_DOUBLES)),
    st.builds(lambda s, dt: _literal(s, dt), st.sampled_from(["1", "true", "0.50", "2026-01-02", "P1D", "x"]),
              st.sampled_from([XSD + "boolean", XSD + "decimal", XSD + "date", XSD + "duration", "http://ex.org/t"])),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(literals, st.builds(lambda s: IRI("http://ex.org/" + s),
                                     st.text(st.characters(blacklist_characters='\x00 <>"{}|^`\\',
                                                           blacklist_categories=("Cs", "Cc")), max_size=8))))
def test_canon_of_equals_encode_term(term):
    if term is not None:
        assert canon_of(term) == encode_term(term)


def test_canon_of_fast_paths_cover_the_common_datatypes():
    cases = [IRI("http://ex.org/é"), Literal("Straße"), Literal("MiXeD ascii"), Literal(" 42 ", XSD + "integer"),
             Literal(str(2**63), XSD + "integer"), Literal("-0.0", XSD + "double"), Literal("1e5", XSD + "float")]
    assert [canon_of(t) for t in cases] == [encode_term(t) for t in cases]
    assert math.copysign(1, Literal("-0.0", XSD + "double").value) == 1
