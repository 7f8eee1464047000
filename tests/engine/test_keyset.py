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


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 2**62), max_size=300), st.integers(0, 20))
def test_first_rows_matches_numpy_unique(raw, shift):
    # keys of up to 62 - shift bits: the packed sort where (key, position) fits, np.unique otherwise
    from holokb.engine.relation import first_rows

    key = np.array(raw, dtype=np.int64) >> shift
    bits = max(int(key.max()).bit_length() if len(key) else 0, 1)
    got = first_rows(key, bits)
    assert got.tolist() == np.unique(key, return_index=True)[1].tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 6), st.integers(0, 3))
def test_large_batches_with_repeats_against_a_python_set(seed, rounds, released):
    # Batches past SMALL into a table that already holds keys: the lookup's stop slots seed the
    # insert, including chunked inserts (more absent candidates than room) and released slots.
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**40, 3000)
    s, ref = KeySet(), set()
    s.add_new(pool[:50])
    ref.update(pool[:50].tolist())
    for _ in range(rounds):
        batch = pool[rng.integers(0, int(rng.integers(100, 3000)), int(rng.integers(17, 6000)))]
        mask = s.add_new(batch)
        expect = []
        for k in batch.tolist():
            expect.append(k not in ref)
            ref.add(k)
        assert mask.tolist() == expect
        if released:
            gone = batch[:released * 7]
            s.discard(gone)
            ref -= set(gone.tolist())
    allk = np.array(sorted(ref) + pool.tolist(), dtype=np.int64)
    assert s.contains(allk).tolist() == [k in ref for k in allk.tolist()]
    assert len(s) == len(ref)


def test_chunked_insert_from_lookup_slots_then_regrow():
    # 3,100 keys in 8,192 slots (room 3,044) and 9,500 candidates of 2,500 new keys: two chunks
    # start from the lookup's stop slots in the same table, the rest after a regrow.
    rng = np.random.default_rng(1)
    old = rng.choice(2**40, 3100, replace=False)
    s = KeySet()
    s.add_new(old)
    assert len(s.table) == 8192
    new = rng.choice(2**40, 2500, replace=False) + 2**41
    batch = np.concatenate([new[rng.integers(0, 2500, 9000)], old[:500]])
    rng.shuffle(batch)
    mask = s.add_new(batch)
    ref, expect = set(old.tolist()), []
    for k in batch.tolist():
        expect.append(k not in ref)
        ref.add(k)
    assert mask.tolist() == expect
    assert len(s) == len(ref) and s.contains(np.array(sorted(ref))).all()
