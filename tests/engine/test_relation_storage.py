"""Per-row storage: small metadata in narrow integers that widen when a value does not fit."""
import numpy as np
from hypothesis import given, settings, strategies as st

from holokb.engine.relation import Relation


def _append(rel, n, **meta):
    rel.append([np.arange(n), np.arange(n)], **meta)


def test_depth_and_rule_are_stored_narrow():
    rel = Relation(2, ("proof", "prod", "plen"))
    _append(rel, 4, depth=np.array([0, 1, 2, 3]), rule=np.array([-1, 0, 1, 1]),
            proof=np.arange(4), prod=np.full(4, 0.5), plen=np.arange(4))
    assert rel.meta("depth").dtype == np.int32 and rel.meta("rule").dtype == np.int16
    assert rel.meta("proof").dtype == np.int32 and rel.meta("plen").dtype == np.int32
    assert rel.meta("prod").dtype == np.float64
    assert rel.meta("rule").tolist() == [-1, 0, 1, 1]


def test_values_past_the_narrow_type_widen_the_column():
    rel = Relation(2)
    _append(rel, 2, rule=np.array([3, 4]), depth=np.array([1, 2]))
    _append(rel, 2, rule=np.array([40_000, -1]), depth=np.array([2**40, 5]))
    assert rel.meta("rule").dtype == np.int64 and rel.meta("depth").dtype == np.int64
    assert rel.meta("rule").tolist() == [3, 4, 40_000, -1]
    assert rel.meta("depth").tolist() == [1, 2, 2**40, 5]
    _append(rel, 1, rule=np.array([7]))
    assert rel.meta("rule").tolist()[-1] == 7 and rel.size == 5


def test_index_probe_finds_rows_after_several_extends():
    rel = Relation(2)
    for k in range(3):
        rel.append([np.array([5, 1, 5]) + k, np.array([0, 1, 2])])
        idx = rel.index((0,), 8)
        assert idx.order.dtype == np.int32
    pos, rows = rel.index((0,), 8).probe(np.array([5, 6]))
    assert rows.dtype == np.int64
    assert list(zip(pos.tolist(), rows.tolist())) == [(0, 0), (0, 2), (1, 3), (1, 5)]


@given(st.lists(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=12), max_size=8))
@settings(max_examples=150, deadline=None)
def test_an_index_grown_batch_by_batch_is_the_stable_sort_of_all_rows(batches):
    """Incremental merges (keys inserted at their searched places) == sorting every row at once:
    keys ascending, rows ascending within a key; probes return (position, row) in that order."""
    rel = Relation(2)
    for batch in batches:
        if batch:
            rel.append([np.array([a for a, _ in batch]), np.array([b for _, b in batch])])
        idx = rel.index((0, 1), 3)
        keys = (rel.col(0) << 3) | rel.col(1)
        want = np.argsort(keys, kind="stable")
        assert idx.order.tolist() == want.tolist() and idx.keys.tolist() == keys[want].tolist()
    probe = np.array([0, 9, 9, 63], dtype=np.int64)
    pos, rows = rel.index((0, 1), 3).probe(probe)
    keys = ((rel.col(0) << 3) | rel.col(1)).tolist()
    assert list(zip(pos.tolist(), rows.tolist())) == [(p, r) for p, k in enumerate(probe.tolist())
                                                      for r in range(rel.size) if keys[r] == k]


def test_python_rows_are_written_on_the_next_read_and_widen_narrow_columns():
    rel = Relation(1)
    rel.append_rows([[1, 2]], {"depth": [0, 1], "rule": [3, 2**20]})  # 2**20 does not fit int16
    assert rel.size == 2 and rel.col(0).tolist() == [1, 2]
    assert rel.meta("rule").dtype == np.int64 and rel.meta("rule").tolist() == [3, 2**20]
    assert rel.meta("valid_to").tolist() == [np.iinfo(np.int64).max] * 2
    rel.append([np.array([5])], rule=np.array([1]))
    rel.append_rows([[6]], {"rule": [0]})
    assert rel.col(0).tolist() == [1, 2, 5, 6] and rel.meta("rule").tolist() == [3, 2**20, 1, 0]
