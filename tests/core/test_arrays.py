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
