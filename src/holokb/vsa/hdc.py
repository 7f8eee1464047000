"""Binary hyperdimensional computing on packed bits: XOR binding, majority bundling, Hamming distance.

Vectors are rows of little-endian ``uint64`` words; distances use ``np.bitwise_count`` (popcount).

>>> import numpy as np
>>> a = np.array([[0b1011]], dtype=np.uint64); b = np.array([[0b0001]], dtype=np.uint64)
>>> int(hamming(a, b[0])[0])
2
"""
from __future__ import annotations

import numpy as np


def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """XOR: its own inverse, so ``bind(bind(a, b), b) == a``; the result is dissimilar to both."""
    return np.bitwise_xor(a, b)


def majority3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Bitwise majority of three vectors (never a tie)."""
    return (a & b) | (a & c) | (b & c)


def bundle(vectors: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Bitwise majority of the rows of ``vectors``; a tied bit (even count) takes ``tiebreak``'s bit."""
    m = vectors.shape[0]
    if m == 0:
        return tiebreak.copy()
    if m == 1:
        return vectors[0].copy()
    if m == 3:
        return majority3(vectors[0], vectors[1], vectors[2])
    bits = np.unpackbits(np.ascontiguousarray(vectors).view(np.uint8), axis=1, bitorder="little")
    counts = bits.sum(axis=0, dtype=np.int64) * 2
    tie_bits = np.unpackbits(np.ascontiguousarray(tiebreak).view(np.uint8), bitorder="little").astype(bool)
    out = np.where(counts == m, tie_bits, counts > m)
    return np.packbits(out, bitorder="little").view(np.uint64).copy()


def hamming(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance of each row of ``matrix`` to ``query`` (uint32)."""
    out = np.empty(matrix.shape[0], dtype=np.uint32)
    step = max(1, (1 << 21) // max(1, matrix.shape[1]))  # rows per block: ~2M words of temporaries
    for lo in range(0, matrix.shape[0], step):
        block = np.bitwise_count(matrix[lo:lo + step] ^ query)
        out[lo:lo + step] = block.sum(axis=1, dtype=np.uint32)
    return out


def hamming_rows(matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance of ``matrix[rows]`` to ``query`` (uint32), gathered in blocks small enough to
    stay in cache (no copy of all selected rows, no full-size temporaries).  The gather is a fancy
    index: ``np.take(..., axis=0, out=)`` is ~1.4x slower for these row widths."""
    out = np.empty(len(rows), dtype=np.uint32)
    step = max(1, (1 << 15) // max(1, matrix.shape[1]))  # rows per block: ~256 KB
    for lo in range(0, len(rows), step):
        b = matrix[rows[lo:lo + step]]
        b ^= query
        np.bitwise_count(b).sum(axis=1, dtype=np.uint32, out=out[lo:lo + step])
    return out


def hamming_columns(columns: np.ndarray, query: np.ndarray, n: int) -> np.ndarray:
    """Hamming distance of the first ``n`` items stored column-major (``words x capacity``)."""
    out = np.bitwise_count(columns[0, :n] ^ query[0]).astype(np.uint16)
    for j in range(1, columns.shape[0]):
        out += np.bitwise_count(columns[j, :n] ^ query[j])
    return out
