"""``encoded.derived_order`` (one ranking of all derived terms, facts grouped by one int64 key of their
args' ranks) builds exactly the tables of ``Model._derived_order`` (per-column ranks, row-wise unique,
a final sort): same relations, positions, args, intervals, first rows and row -> fact maps — on random
stratified programs with negation, aggregates and validity intervals, with and without ``valid_at``,
through the int64 key and through its fallback (rows of ranks)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.engine import closure
from holokb.engine.encoded import derived_order, encoded_columns

from lang import rules
from stratified_programs import TIMES, programs, temporal_facts
from holokb.core import AssertedRef
from holokb.engine import Database, TermDictionary
from stratified_programs import DOMAIN, EX, value


def shuffled_database(facts, ids: list[int], iris: bool) -> Database:
    """The facts over a dictionary seeded with ids in another order than the terms' sort order."""
    terms = TermDictionary()
    for v in range(DOMAIN):
        terms.seed(value(v, iris), 1000 + ids[v])
    db = Database(terms)
    for k, (p, row, valid) in enumerate(facts):
        db.add(EX + p, tuple(value(v, iris) for v in row), valid=valid, key=AssertedRef(f"{k:064x}"))
    return db


@pytest.mark.parametrize("key_limit", [2 ** 62, 1])
@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(text=programs(), facts=temporal_facts(), proofs=st.booleans(), valid_at=st.sampled_from([None, *TIMES, 15]),
       ids=st.permutations(range(DOMAIN)), iris=st.booleans())
def test_derived_order_builds_the_models_tables(monkeypatch, key_limit, text, facts, proofs, valid_at, ids, iris):
    monkeypatch.setattr("holokb.engine.encoded._KEY_LIMIT", key_limit)
    db = shuffled_database(facts, ids, iris)
    fast = closure(rules(text), db, record_proofs=proofs, valid_at=valid_at)
    ref = closure(rules(text), db, record_proofs=proofs, valid_at=valid_at)
    got, want = derived_order(fast), ref._derived_order()
    assert [(rk, n) for rk, _, n in got] == [(rk, n) for rk, _, n in want], text
    for (_, a, _), (_, b, _) in zip(got, want):
        for name in ("ids", "valid_from", "valid_to", "first", "row_fact"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), (name, text)
    # the model reads it back (memo): what it derives and the columns built on it are the reference's
    assert fast._derived_order() is got
    assert fast.derived() == ref.derived()
    assert _same_columns(encoded_columns(fast), encoded_columns(ref))


def _same_columns(a, b) -> bool:
    """EncodedColumns hold numpy arrays (== is elementwise): compare field by field."""
    def flat(x):
        if hasattr(x, "__dataclass_fields__"):
            return tuple(flat(getattr(x, f)) for f in x.__dataclass_fields__)
        if isinstance(x, np.ndarray):
            return ("array", x.dtype.str, x.shape, x.tobytes())
        if isinstance(x, (tuple, list)):
            return tuple(flat(v) for v in x)
        return x
    return flat(a) == flat(b)
