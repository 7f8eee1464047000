"""engine/relation._Column: a column whose rows all hold one value, appended as stride-0 arrays,
stores it once and reads as that value repeated; any other value writes the rows out.  Whatever
the appends, the column reads as their concatenation."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from holokb.engine.relation import Relation, _Column

appends = st.lists(st.tuples(st.sampled_from(["same", "broadcast", "array", "list"]), st.integers(0, 2),
                             st.integers(1, 40)), max_size=12)


@settings(max_examples=200, deadline=None, database=None)
@given(appends, st.sampled_from([np.int16, np.int32, np.int64]))
def test_a_column_reads_as_the_concatenation_of_its_appends(ops, dtype):
    col, want = _Column(np.dtype(dtype)), []
    for kind, v, n in ops:
        if kind == "list":
            col.append_list([v] * n)
        elif kind == "array":
            col.append(np.full(n, v, dtype=dtype))
        else:  # a stride-0 array: of the first value ("same") or of v
            col.append(np.broadcast_to(np.array(v if kind == "broadcast" else (want or [v])[0], dtype=dtype), (n,)))
            v = v if kind == "broadcast" else (want or [v])[0]
        want += [v] * n
        got = col.view()
        assert got.tolist() == want and len(got) == col.size
    if want and col.const:
        assert len(set(want)) == 1 and col.buf.size == 1  # stored once
    col.trim()
    assert col.view().tolist() == want


def test_a_timeless_relation_keeps_its_validity_once_and_reads_it_whole():
    rel = Relation(1)
    n = 1000
    rel.append([np.arange(n)], valid_from=np.broadcast_to(np.int64(-5), (n,)))
    assert rel._meta["valid_from"].const and rel._meta["valid_to"].const and rel._meta["depth"].const
    assert rel.nbytes() < n * 8 + 64  # the id column, and each constant once
    assert rel.meta("valid_from").tolist() == [-5] * n and rel.meta("valid_from")[[3, 7]].tolist() == [-5, -5]
    with pytest.raises(ValueError):  # a stored column is never written through a view
        rel.meta("valid_from")[0] = 1
    rel.append([np.arange(3)], valid_from=np.array([-5, 2, -5]))
    assert not rel._meta["valid_from"].const
    assert rel.meta("valid_from").tolist() == [-5] * n + [-5, 2, -5]
    assert rel.all_equal("valid_to", float(np.iinfo(np.int64).max))
