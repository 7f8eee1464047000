"""Input keys as a KeyColumn (int codes + decoder) give the same relations and keys as one key object
per row, also mixed with facts added one by one, duplicates and bulk parts of several calls."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from holokb.core import IRI, Interval
from holokb.engine import Database, TermDictionary
from holokb.engine.database import KeyColumn

P = "http://ex.org/p"
TERMS = [IRI(f"http://ex.org/t{i}") for i in range(6)]


def _db(single, parts, as_column: bool) -> Database:
    terms = TermDictionary()
    for i, t in enumerate(TERMS):
        terms.seed(t, i)
    db = Database(terms)
    for a, b, key in single:
        db.add(P, (TERMS[a], TERMS[b]), key=("single", key), valid=Interval(0, 10))
    def decode(c: int) -> tuple:  # one decoder for every part: the relation keeps one KeyColumn
        return ("bulk", c)

    for rows in parts:
        s = np.array([r[0] for r in rows], dtype=np.int64)
        o = np.array([r[1] for r in rows], dtype=np.int64)
        vf = np.array([r[2] for r in rows], dtype=np.int64)
        codes = np.array([r[3] for r in rows], dtype=np.int64)
        keys = KeyColumn(codes, decode, "tag") if as_column else [decode(c) for c in codes.tolist()]
        db.add_ids(P, [s, o], valid_from=vf, valid_to=vf + 10, keys=keys)
    return db


row = st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0, 5]), st.integers(0, 50))


@settings(max_examples=60, deadline=None)
@given(single=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 9)), max_size=4),
       parts=st.lists(st.lists(row, min_size=1, max_size=12), min_size=1, max_size=3))
def test_key_columns_encode_like_key_lists(single, parts):
    a = _db(single, parts, True).encode()
    b = _db(single, parts, False).encode()
    assert a.keys() == b.keys()
    for rk in a:
        ra, rb = a[rk].relation, b[rk].relation
        n = len(ra.col(0))
        assert n == len(rb.col(0))
        for c in range(2):
            assert ra.col(c).tolist() == rb.col(c).tolist()
        assert ra.meta("valid_from").tolist() == rb.meta("valid_from").tolist()
        assert isinstance(a[rk].keys, KeyColumn)
        assert list(a[rk].keys) == list(b[rk].keys)
        assert [a[rk].keys[i] for i in range(n)] == list(b[rk].keys)
