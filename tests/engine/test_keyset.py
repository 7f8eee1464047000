"""The dedup hash set against a Python set: membership, first occurrences, release, growth."""
import numpy as np
from hypothesis import given, settings, strategies as st

from holokb.engine.keyset import KeySet

keys = st.lists(st.integers(0, 2**62), max_size=200)
small = st.lists(st.integers(0, 40), max_size=200)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(keys, small), max_size=6), st.lists(st.integers(0, 2**62), max_size=30))
def test_add_new_marks_first_occurrences_of_absent_keys(batches, released):
    s, ref = KeySet(), set()
    for batch in batches:
        arr = np.array(batch, dtype=np.int64)
        mask = s.add_new(arr)
        expect = []
        for k in batch:
            expect.append(k not in ref)
            ref.add(k)
        assert mask.tolist() == expect
        assert len(s) == len(ref)
    probe = np.array(sorted(ref) + [3, 2**61 + 5], dtype=np.int64)
    assert s.contains(probe).tolist() == [int(k) in ref for k in probe.tolist()]
    gone = np.array(released + sorted(ref)[:3], dtype=np.int64)
    s.discard(gone)
    ref -= set(gone.tolist())
    assert s.contains(probe).tolist() == [int(k) in ref for k in probe.tolist()]
    assert len(s) == len(ref)
    again = s.add_new(gone)  # released keys can be claimed again, once each
    assert int(again.sum()) == len(set(gone.tolist()))


def test_growth_keeps_every_key_and_load_at_most_three_quarters():
    s = KeySet()
    rng = np.random.default_rng(3)
    all_keys = rng.integers(0, 2**50, 50_000)
    for chunk in np.array_split(all_keys, 7):
        s.add_new(chunk)
    uniq = np.unique(all_keys)
    assert len(s) == len(uniq)
    assert s.contains(uniq).all()
    assert not s.contains(uniq + 2**51).any()
    assert 4 * len(s) <= 3 * len(s.table)


def test_repeated_candidates_do_not_grow_the_table():
    # 600k candidates with 90,000 distinct keys: the table is sized by distinct keys (load
    # <= 3/4 → 2**17 slots), not by the candidate count (which would ask for 2**20).
    s = KeySet()
    rng = np.random.default_rng(5)
    distinct = rng.choice(2**40, 90_000, replace=False)
    for _ in range(3):
        batch = distinct[rng.integers(0, len(distinct), 200_000)]
        mask = s.add_new(batch)
        assert len(np.unique(batch[mask])) == int(mask.sum())  # each new key marked once
    s.add_new(distinct)
    assert len(s) == 90_000 and s.contains(distinct).all()
    assert len(s.table) == 2**17
