"""Small numpy helpers for integer columns (term ids, term indices, packed triple keys); shared by the
ledger and the engine (neither imports the other)."""
from __future__ import annotations

import numpy as np


def distinct(a: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-D integer array.

    ``np.unique`` without ``return_index`` takes numpy 2.x's hash path, which measured about 40x
    slower than one sort here (140k int64: 0.08 s vs 0.002 s, numpy 2.4)."""
    s, keep = _first_of_runs(a)
    return s[keep]


def distinct_counts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`distinct` and how many times each value occurs (``np.unique(a, return_counts=True)``)."""
    s, keep = _first_of_runs(a)
    return s[keep], np.diff(np.append(np.flatnonzero(keep), len(s)))


def _first_of_runs(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a`` sorted, and a mask of the first element of each run of equal values."""
    s = np.sort(np.asarray(a).ravel())
    keep = np.empty(len(s), dtype=bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s, keep


def row_groups(cols: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of non-negative integer columns: (the index of each distinct row's first
    occurrence, in the rows' lexicographic order by column — ``np.unique(axis=0)``'s order — and
    the group of every row).  The columns are packed into as few int64 words as their values need
    and sorted by ``lexsort``: ``np.unique(axis=0)`` sorts rows as byte strings, ~10x slower on
    millions of rows (3M rows, 8 columns: 4.5 s)."""
    n = len(cols[0])
    words: list[np.ndarray] = []
    used = 63
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        w = max(int(c.max()).bit_length(), 1) if n else 1
        if used + w > 63:
            words.append(np.zeros(n, np.int64))
            used = 0
        words[-1] <<= w
        words[-1] |= c
        used += w
    order = np.lexsort(words[::-1]) if len(words) > 1 else np.argsort(words[0], kind="stable")
    start = np.empty(n, dtype=bool)
    start[:1] = True
    if n > 1:
        diff = np.zeros(n - 1, dtype=bool)
        for w in words:
            sw = w[order]
            diff |= sw[1:] != sw[:-1]
        start[1:] = diff
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(start) - 1
    return order[start], inverse
