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
