"""core.sha.sha256 (hashlib-free, for a warm query's small digests) gives hashlib's SHA-256."""
from __future__ import annotations

import hashlib

from hypothesis import given, settings, strategies as st

from holokb.core.sha import sha256


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=4))
def test_the_same_digest_as_hashlib_in_one_piece_or_many(parts):
    a, b = sha256(), hashlib.sha256()
    for p in parts:
        a.update(p)
        b.update(p)
    assert a.hexdigest() == b.hexdigest() and a.digest() == b.digest()
    assert sha256(b"".join(parts)).hexdigest() == b.hexdigest()
