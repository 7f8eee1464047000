"""Compiled kernels (numba) for the physical layer's hot loops, used only on big inputs.

The vectorised numpy paths (:mod:`.keyset`, :mod:`.relation`) answer "which keys are new" and
"which rows match" with rounds of whole-array gathers: at RDFS 100k that is ~40% of the CPU and
at numpy's floor.  A compiled loop does the same work in one pass per key (probe, compare,
insert) with no temporaries.  The numpy paths stay the reference and the fallback: these
kernels give the same answers (tests/engine/test_jit_kernels.py holds them equal).

numba's import costs ~0.4 s and a first compile a few seconds (then cached on disk), so nothing
here is imported until an input reaches :data:`MIN_N` rows: small programs, the test suite and
the CLI never pay it.  When numba is missing or fails to load, :func:`get` answers None and the
callers keep the numpy path.

Table layout (shared with :class:`.keyset.KeySet`): open addressing, linear probing, Fibonacci
hashing on the high bits, ``-1`` an empty slot, ``-2`` a released key (occupied for probing).
"""
from __future__ import annotations

import os
import threading

import numpy as np

#: Switch: use compiled kernels at all (tests turn it off for the all-numpy differential).
JIT = os.environ.get("HOLOKB_JIT", "1") != "0"
#: Inputs below this many keys / probes stay on numpy (a call's fixed cost is not worth it).
MIN_N = 50_000
#: numba is imported only once this process has sent this many inputs past MIN_N to the numpy
#: paths: a cold load (import + cached machine code) cost ~1.5 s CPU at load 7, which a kernel
#: earns back at ~65 ns an input (numpy's vector rounds ~100 ns a key, the kernel ~35), i.e.
#: after ~20M inputs.  Measured cold, RDFS 100k: 2.5-3.0 s CPU with an early load vs 1.65-1.96
#: s on numpy; so a closure of that size stays on numpy and RDFS 1M loads after its first steps.
LOAD_AFTER = 20_000_000
#: Switch: past LOAD_AFTER, load in a background thread while the caller stays on numpy, so no
#: single evaluation pays the load inside its deadline (a cached load is ~2 s CPU, a first
#: compile ~5 s: a server's request or a budgeted closure would overrun by that much).
BACKGROUND = True
_work = 0

_MULT = 0x9E3779B97F4A7C15
_kernels = None  # the compiled kernels, False when loading failed
_prefetch = None  # the cache-prefetch hint the kernels call (set by _define)
load_error: Exception | None = None  # why, for a diagnosis
_lock = threading.Lock()
_loader: threading.Thread | None = None


def get(n: int):
    """The compiled kernels when ``n`` inputs are worth them and they are loaded, else None."""
    global _work, _loader
    if not JIT or n < MIN_N:
        return None
    if _kernels is None:
        if _work < LOAD_AFTER:
            _work += n
            return None
        if not BACKGROUND:
            return load()
        if _loader is None:
            _loader = threading.Thread(target=load, name="holokb-kernels", daemon=True)
            _loader.start()
        return None
    return _kernels or None


def load():
    """Import numba and define the kernels once (None when numba is unavailable)."""
    global _kernels, load_error
    with _lock:
        if _kernels is None:
            built = False
            # numba caches compiled code beside this module, or in the user's cache directory
            # when the package is read-only; with neither writable, compile per process instead.
            for cache in (True, False):
                try:
                    built = _build(cache)
                    break
                except Exception as e:  # numba absent or broken: the numpy paths are complete
                    load_error = e
            _kernels = built
    return _kernels or None


def _after_fork_in_child() -> None:
    """A child forked while the loader thread runs has no such thread (and maybe numba half
    imported under a lock nobody will release): it keeps the numpy paths."""
    global _kernels, _loader, _lock
    _lock = threading.Lock()
    if _loader is not None and _kernels is None:
        _kernels = False
    _loader = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _warm(k: "_Kernels") -> "_Kernels":
    """Run every kernel once on a tiny input: compiling (or loading the cached code) happens
    here, inside :func:`load`'s fallback, never as a failure in the middle of an evaluation."""
    keys = np.arange(3, dtype=np.int64)
    ro = keys.view()
    ro.flags.writeable = False  # the key set hands its columns over as read-only views
    for n in range(1, 6):  # one specialisation per key column count (args, plus interval ranks)
        k.ks_insert(np.full(16, -1, np.int64), 60, (ro,) * n, np.zeros(n, np.int64), np.zeros(3, np.bool_), 0, 3)
    k.ks_contains(np.full(16, -1, np.int64), 60, keys)
    k.first_mask(keys)
    lo, cnt = k.probe_counts(keys, keys)
    for odt in (np.int32, np.int64):
        k.probe_fill(keys.astype(odt), lo, cnt, 3)
        k.merge_back(np.arange(6, dtype=np.int64), np.arange(6).astype(odt), 3, keys, keys.astype(odt))
    return k


class _Kernels:
    __slots__ = ("ks_insert", "ks_contains", "first_mask", "probe_counts", "probe_fill", "merge_back")


#: Hash-table kernels prefetch the slot of the key this many candidates ahead: a table of
#: millions of keys misses the cache on nearly every probe, and with the loads of 32 keys in
#: flight instead of one a probe costs a half to a third (RDFS 1M: 14M keys, 256 MB table).
PREFETCH = 32


def _build(cache: bool) -> _Kernels:
    """The kernels, compiled (or loaded from numba's cache) and warmed; without the prefetch
    intrinsic when this LLVM does not take it."""
    try:
        return _warm(_define(cache, True))
    except Exception:
        return _warm(_define(cache, False))


def _define(cache: bool, prefetching: bool) -> _Kernels:
    from numba import njit

    global _prefetch
    from . import prefetch as _pf

    # A module global, not a closure cell: numba's cache keys a closure by its cells' pickled
    # bytes, which differ per process for an intrinsic (every load missed the cache).
    _prefetch = _pf.prefetch if prefetching else _pf.no_prefetch
    mult = np.uint64(_MULT)
    ahead = PREFETCH

    @njit(cache=cache, nogil=True)
    def ks_insert(table, shift, cols, widths, mask, start, limit):
        """Insert the keys packed from ``cols`` (``widths`` bits each, the first column's bits
        unshifted: :func:`.relation.pack_widths`) one by one from position ``start`` until
        ``limit`` new keys went in; True in ``mask`` at each new key's first position.
        Returns (next position, keys added).  Packing here saves the key array's temporaries."""
        top = len(table) - 1
        sh = np.uint64(shift)
        added = 0
        i = start
        n = len(cols[0])
        nc = len(cols)
        while i < n:
            if added >= limit:
                break
            j = i + ahead
            if j < n:
                kj = cols[0][j]
                for c in range(1, nc):
                    kj = (kj << widths[c]) | cols[c][j]
                _prefetch(table, np.int64((np.uint64(kj) * mult) >> sh))
            k = cols[0][i]
            for c in range(1, nc):
                k = (k << widths[c]) | cols[c][i]
            s = np.int64((np.uint64(k) * mult) >> sh)
            while True:
                cur = table[s]
                if cur == k:
                    break
                if cur == -1:
                    table[s] = k
                    mask[i] = True
                    added += 1
                    break
                s = (s + 1) & top
            i += 1
        return i, added

    @njit(cache=cache, nogil=True)
    def ks_contains(table, shift, keys):
        top = len(table) - 1
        sh = np.uint64(shift)
        out = np.zeros(len(keys), dtype=np.bool_)
        n = len(keys)
        for i in range(n):
            if i + ahead < n:
                _prefetch(table, np.int64((np.uint64(keys[i + ahead]) * mult) >> sh))
            k = keys[i]
            s = np.int64((np.uint64(k) * mult) >> sh)
            while True:
                cur = table[s]
                if cur == k:
                    out[i] = True
                    break
                if cur == -1:
                    break
                s = (s + 1) & top
        return out

    @njit(cache=cache, nogil=True)
    def first_mask(keys):
        """True at the first occurrence of every key (keys >= 0), in one pass over a private table."""
        n = len(keys)
        cap, lg = 16, 4
        while cap < 2 * n:
            cap *= 2
            lg += 1
        table = np.full(cap, -1, dtype=np.int64)
        out = np.zeros(n, dtype=np.bool_)
        ks_insert(table, 64 - lg, (keys,), np.zeros(1, np.int64), out, 0, n)
        return out

    @njit(cache=cache, nogil=True)
    def probe_counts(sorted_keys, probe_keys):
        """(first index, count) of each probe key's run in ``sorted_keys`` (binary search)."""
        m = len(probe_keys)
        n = len(sorted_keys)
        lo_out = np.empty(m, dtype=np.int64)
        cnt = np.empty(m, dtype=np.int64)
        for i in range(m):
            k = probe_keys[i]
            lo, hi = 0, n
            while lo < hi:
                mid = (lo + hi) >> 1
                if sorted_keys[mid] < k:
                    lo = mid + 1
                else:
                    hi = mid
            first = lo
            hi = n
            while lo < hi:
                mid = (lo + hi) >> 1
                if sorted_keys[mid] <= k:
                    lo = mid + 1
                else:
                    hi = mid
            lo_out[i] = first
            cnt[i] = lo - first
        return lo_out, cnt

    @njit(cache=cache, nogil=True)
    def probe_fill(order, lo, cnt, total):
        pos = np.empty(total, dtype=np.int64)
        rows = np.empty(total, dtype=np.int64)
        t = 0
        for i in range(len(lo)):
            c = cnt[i]
            b = lo[i]
            for j in range(c):
                pos[t] = i
                rows[t] = order[b + j]
                t += 1
        return pos, rows

    @njit(cache=cache, nogil=True)
    def merge_back(keys, order, n, new_keys, new_rows):
        """Merge sorted ``new_keys`` (rows ``new_rows``) into the sorted first ``n`` entries of
        ``keys``/``order``, in place from the back (the arrays have room for them): each new key
        after the stored rows of an equal key (what ``np.insert`` at ``searchsorted(.., 'right')``
        gives), one pass over the stored entries past the first new key's place."""
        i = n - 1
        j = len(new_keys) - 1
        t = n + j
        while j >= 0:
            if i >= 0 and keys[i] > new_keys[j]:
                keys[t] = keys[i]
                order[t] = order[i]
                i -= 1
            else:
                keys[t] = new_keys[j]
                order[t] = new_rows[j]
                j -= 1
            t -= 1

    k = _Kernels()
    k.ks_insert, k.ks_contains, k.first_mask = ks_insert, ks_contains, first_mask
    k.probe_counts, k.probe_fill, k.merge_back = probe_counts, probe_fill, merge_back
    return k
