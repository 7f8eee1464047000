"""Holographic reduced representations: circular convolution (via the real FFT) binds, sums bundle,
cosine compares.

>>> import numpy as np
>>> a = np.zeros(8, dtype=np.float32); a[1] = 1; b = np.zeros(8, dtype=np.float32); b[2] = 1
>>> int(np.argmax(bind(a, b)))
3
"""
from __future__ import annotations

import numpy as np
import scipy.fft

#: Rows are transformed independently, so threads change the speed, never the numbers.
_WORKERS = 2


def spectrum(x: np.ndarray) -> np.ndarray:
    """The real FFT along the last axis (what binding multiplies); single precision in, complex64 out."""
    return scipy.fft.rfft(np.asarray(x, dtype=np.float32), axis=-1, workers=_WORKERS)


def from_spectrum(f: np.ndarray, dim: int) -> np.ndarray:
    return scipy.fft.irfft(f, n=dim, axis=-1, workers=_WORKERS).astype(np.float32, copy=False)


def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Circular convolution ``a ⊛ b`` (the last axis), computed as a product of spectra."""
    return from_spectrum(spectrum(a) * spectrum(b), a.shape[-1])


def unbind(c: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Circular correlation: approximately recovers ``b`` from ``c = a ⊛ b``."""
    return from_spectrum(spectrum(c) * np.conj(spectrum(a)), c.shape[-1])


def norms(x: np.ndarray) -> np.ndarray:
    """The length of each row (float32)."""
    x = np.asarray(x, dtype=np.float32)
    return np.sqrt(np.einsum("...i,...i->...", x, x, dtype=np.float64)).astype(np.float32)


def normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero)."""
    x = np.asarray(x, dtype=np.float32)
    norm = np.sqrt(np.einsum("...i,...i->...", x, x, dtype=np.float64))[..., None]
    return (x / np.where(norm == 0, 1, norm).astype(np.float32)).astype(np.float32, copy=False)


def bundle(vectors: np.ndarray) -> np.ndarray:
    """The normalised sum of the rows."""
    return normalize(vectors.sum(axis=0, dtype=np.float64).astype(np.float32))


def cosine_fast(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of each (unit-length) row with ``query`` in single precision (for ranking only: the BLAS
    kernel's rounding depends on how many rows it is given, up to ~1e-6)."""
    return matrix @ normalize(query)


def cosine(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of each (unit-length) row with ``query``, summed in double precision (blocks of rows), so a
    row's value does not depend on which other rows are scored with it (single-precision kernels block
    differently for different row counts, which moved last digits)."""
    q = normalize(query).astype(np.float64)
    out = np.empty(matrix.shape[0], dtype=np.float64)
    step = 8192
    for lo in range(0, matrix.shape[0], step):
        out[lo:lo + step] = matrix[lo:lo + step].astype(np.float64) @ q
    return out


def sign_words(x: np.ndarray, bits: int) -> np.ndarray:
    """Signs of the first ``bits`` coordinates of each row, packed into uint64 words (the HRR sketch:
    per coordinate, two vectors of cosine c agree in sign with probability 1 - arccos(c)/pi)."""
    neg = np.ascontiguousarray(x[..., :bits] < 0)
    return np.packbits(neg, axis=-1, bitorder="little").view(np.uint64)
