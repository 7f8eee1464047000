"""Small numpy helpers for integer columns (term ids, term indices, packed triple keys); shared by the
ledger and the engine (neither imports the other)."""
from __future__ import annotations

import numpy as np


def distinct(a: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-D integer array.

    ``np.unique`` without ``return_index`` takes numpy 2.x's hash path, which measured about 40x
    slower than one sort here (140k int64: 0.08 s vs 0.002 s, numpy 2.4)."""
    s = np.sort(np.asarray(a).ravel())
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
