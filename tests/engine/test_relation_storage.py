"""Per-row storage: small metadata in narrow integers that widen when a value does not fit."""
import numpy as np

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
