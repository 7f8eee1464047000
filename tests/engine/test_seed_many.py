"""TermDictionary.seed_many: the same dictionary as seed() pair by pair, the same error at a clash."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import IRI, Literal
from holokb.engine.dictionary import TermDictionary

TERMS = st.one_of(
    st.builds(IRI, st.sampled_from([f"http://ex/{c}" for c in "abcdef"])),
    st.builds(Literal.of, st.integers(-3, 3)),
    st.builds(Literal.of, st.sampled_from([Decimal("2.0"), Decimal("2.5"), 1.5, True, "x", "y"])),
)


def _state(d: TermDictionary):
    """Everything a caller can observe: ids both ways, the bound, which ids were seeded, values."""
    pending = list(d._pending)  # literal ids in arrival order (values() consumes the list)
    kind, num, ms = d.values()[:3]
    return (dict(d._ids), dict(d._terms), d.id_bound, sorted(d._seeded), pending,
            kind.tolist(), np.nan_to_num(num).tolist(), ms.tolist())


def _one_by_one(pairs):
    d = TermDictionary()
    try:
        for t, i in pairs:
            d.seed(t, i)
    except ValueError as e:
        return None, str(e)
    return d, None


@settings(max_examples=30, deadline=None, database=None)
@given(st.lists(st.tuples(TERMS, st.integers(0, 12)), max_size=12), st.booleans())
def test_seed_many_equals_seed_pair_by_pair(pairs, prior):
    prior = prior and bool(pairs)
    ref, err = _one_by_one(pairs[:1] * prior + pairs)
    d = TermDictionary()
    if err is not None:
        with pytest.raises(ValueError, match="already"):
            d.seed_many([i for _, i in pairs], [t for t, _ in pairs])
        return
    if prior:  # a dictionary that already holds terms takes the pair-by-pair path
        d.seed(*pairs[0])
    d.seed_many([i for _, i in pairs], [t for t, _ in pairs])
    assert _state(d) == _state(ref)
    for t, i in pairs:
        assert d.lookup(t) == i and d.term(i) == t and d.is_seeded(i)


def test_seed_many_refuses_a_bad_id_like_seed():
    with pytest.raises(ValueError, match="term ids must lie"):
        TermDictionary().seed_many([0, 2**40], [IRI("http://ex/a"), IRI("http://ex/b")])
    d = TermDictionary()
    d.seed_many([5, 7], [IRI("http://ex/a"), Literal.of(3)])
    assert d.intern(IRI("http://ex/new")) == 8  # minted past the seeded ids
    assert d.intern(Literal.of(3)) == 7
