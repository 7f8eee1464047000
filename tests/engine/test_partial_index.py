"""engine/relation.PartialIndex: the rows holding an atom's constants, keyed by its bound
variables, answer a probe exactly as the full index on all bound positions does (same pairs,
same order), however the rows arrive; a relation keeps at most MAX_PARTIAL of one shape."""
import numpy as np
from hypothesis import given, settings, strategies as st

from holokb.engine import joins, kernels
from holokb.engine import relation as R
from holokb.engine.joins import Bindings, _match
from holokb.engine.relation import Relation

BITS = 4  # ids 0..15


def _rel(batches):
    rel = Relation(3)
    return rel, [np.array(b, dtype=np.int64).reshape(-1, 3) for b in batches if b]


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.lists(st.tuples(*[st.integers(0, 3)] * 3), max_size=25), min_size=1, max_size=4),
       st.lists(st.integers(0, 3), min_size=1, max_size=12),
       st.sampled_from([((1, 2),), ((0, 1),), ((1, 0), (2, 3))]),
       st.booleans(), st.booleans())
def test_a_partial_index_probes_like_the_full_index(batches, probe, where, compiled, ranged):
    key_cols = tuple(c for c in range(3) if c not in dict(where))[:1]
    rel, parts = _rel(batches)
    saved = kernels.MIN_N
    kernels.MIN_N = 0 if compiled else 10**9
    try:
        for part in parts:  # probed between appends, so both indexes are extended several times
            rel.append([part[:, c] for c in range(3)])
            cols = sorted(dict(where)) + list(key_cols)
            n = len(probe)
            vals = {c: np.full(n, v, dtype=np.int64) for c, v in where}
            vals[key_cols[0]] = np.array(probe, dtype=np.int64)
            b = Bindings(n, {}, {})
            lo, hi = (1, rel.size) if ranged and rel.size > 1 else (0, rel.size)
            got = []
            for on in (True, False):
                joins.PARTIAL_INDEXES = on
                got.append(_match(rel, cols, [vals[c] for c in cols], b, lo, hi, BITS, None, tuple(where)))
            assert np.array_equal(got[0][0], got[1][0]) and np.array_equal(got[0][1], got[1][1])
            # and both are the pairs a scan finds, probe order first, rows ascending
            want = [(i, r) for i in range(n) for r in range(lo, hi)
                    if all(rel.col(c)[r] == vals[c][i] for c in cols)]
            assert list(zip(got[0][0].tolist(), got[0][1].tolist())) == want
    finally:
        kernels.MIN_N = saved
        joins.PARTIAL_INDEXES = True


def test_a_relation_keeps_at_most_max_partial_indexes_of_one_shape_then_uses_the_full_index():
    rel = Relation(2)
    rel.append([np.arange(40, dtype=np.int64) % 20, np.arange(40, dtype=np.int64)])
    b = Bindings(1, {}, {})
    for const in range(20):  # t(?x, C) for 20 constants C, ?x bound
        pos, rows = _match(rel, [0, 1], [np.array([const]), np.array([const])], b, 0, rel.size, 6, None,
                           ((1, const),))
        assert rows.tolist() == [const]  # row `const` holds (const, const); row const+20 does not
    partial = [k for k in rel._indexes if k[0] == "where"]
    assert len(partial) == R.MAX_PARTIAL and (0, 1) in rel._indexes


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.lists(st.tuples(*[st.integers(0, 3)] * 3), max_size=20), min_size=1, max_size=5),
       st.lists(st.tuples(st.sampled_from([((1, 2),), ((0, 1), (2, 3)), ((2, 0),)]),
                          st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=8))
def test_holds_in_answers_as_a_scan_while_rows_arrive(batches, asks):
    """Relation.holds_in remembers what it scanned from row 0; every answer is a scan's."""
    rel, parts = _rel(batches)
    for part in parts:
        rel.append([part[:, c] for c in range(3)])
        for where, a, b in asks:
            lo, hi = (0, b) if a % 2 == 0 else (min(a, b), max(a, b))  # prefixes and ranges
            want = any(all(rel.col(c)[r] == v for c, v in where) for r in range(lo, min(hi, rel.size)))
            assert rel.holds_in(where, lo, hi) == want
