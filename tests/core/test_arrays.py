"""core.arrays.distinct is np.unique (the sort-based stand-in the columnar paths use)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from holokb.core.arrays import distinct


@given(st.lists(st.integers(-2**62, 2**62) | st.integers(0, 5), max_size=200))
def test_distinct_equals_np_unique(xs):
    a = np.asarray(xs, dtype=np.int64)
    got = distinct(a)
    assert got.dtype == np.int64 and got.tolist() == np.unique(a).tolist()


@given(st.lists(st.integers(-2**62, 2**62) | st.integers(0, 5), max_size=200))
def test_distinct_counts_equals_np_unique_with_counts(xs):
    from holokb.core.arrays import distinct_counts

    a = np.asarray(xs, dtype=np.int64)
    values, counts = distinct_counts(a)
    want_values, want_counts = np.unique(a, return_counts=True)
    assert values.tolist() == want_values.tolist() and counts.tolist() == want_counts.tolist()


# three columns needing 2, 41 and 63 bits: packed into several words; small values repeat rows
_ROWS = st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0, 1, 2**40]), st.integers(0, 2) | st.just(2**62)),
                 min_size=1, max_size=60)


@given(_ROWS)
def test_row_groups_is_np_unique_by_rows(rows):
    from holokb.core.arrays import row_groups

    a = np.array(rows, dtype=np.int64)
    cols = [a[:, k] for k in range(a.shape[1])]
    uniq, first, inverse = np.unique(a, axis=0, return_index=True, return_inverse=True)
    got_first, got_inverse = row_groups(cols)
    assert (a[got_first] == uniq).all() and (got_first == first).all()
    assert (got_inverse == inverse.reshape(-1)).all()
