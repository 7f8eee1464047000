"""Physical layer: glibc's malloc settings while a big closure runs.

A big closure allocates and frees arrays of tens to hundreds of megabytes many times per
iteration (gathers, join results, key-set tables, growing columns).  glibc serves every block
past 32 MB with a fresh ``mmap`` and unmaps it on free, so the kernel zeroes every page of every
such array again, and worker threads allocate from per-thread arenas of the same kind.  RDFS 1M
(2 threads, load 14-17): 13.9 s CPU in the closure with 7 s of it system time; with mmap off
and one arena, 10.8 s CPU and 3.7 s system time, the same peak RSS (3.2 GB).

:func:`big_arrays` therefore, while a closure over at least :data:`MIN_ROWS` input rows runs,
serves large blocks from the heap (``M_MMAP_MAX`` 0) and keeps freed memory there for reuse
(``M_TRIM_THRESHOLD`` high), then restores glibc's defaults and hands free memory back
(``malloc_trim``).  ``M_ARENA_MAX`` 1 stays (glibc fixes the arena limit the first time it is
read): threads share the main arena, which under the GIL costs nothing measurable.  Nothing
changes without glibc, with ``HOLOKB_MALLOC=0``, or when the user tuned malloc (``MALLOC_*``
or ``GLIBC_TUNABLES`` in the environment: their choice stands).  Only speed and the time memory
returns to the system depend on this, never a result.

numpy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``) on every array past
4 MB.  A closure's arrays live for one step and the heap reuses their memory, so the kernel keeps
zeroing, collapsing and compacting 2 MB pages for them: while a big closure runs, that request is
off too (numpy's ``_set_madvise_hugepage``) and put back as it was after.  Closure wall time,
medians of 3 alternating fresh processes on this 2-core machine (``HOLOKB_HUGEPAGES=1`` leaves the
request on: the before/after switch): RDFS 1M 9.5 -> 7.5 s (system time 8.4 -> 3.7 s; every pair
faster), TC random 10k/20k 6.7 -> 6.1 s (5.8-13.6 s with, 4.8-6.9 s without: the kernel's state
decides), RDFS 100k unchanged within noise.
"""
from __future__ import annotations

import ctypes
import os
import threading
from contextlib import contextmanager

#: Switch: tune malloc for big closures (``HOLOKB_MALLOC=0``, or any malloc tuning in the environment: off).
ENABLED = (os.environ.get("HOLOKB_MALLOC", "1") != "0" and "GLIBC_TUNABLES" not in os.environ
           and not any(k.startswith("MALLOC_") for k in os.environ))
#: Input rows from which a closure runs under the tuned settings (RDFS 100k: ~100k rows, 1.4M derived).
MIN_ROWS = 50_000

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_MMAP_MAX, _M_ARENA_MAX = -1, -3, -4, -8  # glibc's malloc.h
#: What a closure's end restores: glibc's defaults, or the process's own choice (:func:`keep_freed_memory`).
GLIBC_DEFAULTS = ((_M_TRIM_THRESHOLD, 128 * 1024), (_M_MMAP_MAX, 65536))
_DEFAULTS = GLIBC_DEFAULTS
_libc = None  # the C library when it is glibc, False when not
_users = 0  # closures running under the tuned settings
_page_users = 0  # closures running with numpy's huge-page request off
_lock = threading.Lock()
#: Leave numpy's huge-page request on during closures (a before/after switch for bench/closure.py).
HUGEPAGES = os.environ.get("HOLOKB_HUGEPAGES", "0") == "1"
_hugepages_before: bool | None = None  # numpy's setting when the first tuned closure began


def _hugepage_switch():
    """numpy's ``_set_madvise_hugepage`` (sets the request, returns the previous setting), or None."""
    if HUGEPAGES:
        return None
    try:
        from numpy._core import multiarray  # numpy 2
    except ImportError:  # numpy 1.26
        from numpy.core import multiarray
    return getattr(multiarray, "_set_madvise_hugepage", None)


def _glibc():
    global _libc
    if _libc is None:
        _libc = False
        try:
            if os.confstr("CS_GNU_LIBC_VERSION"):
                lib = ctypes.CDLL(None)
                lib.mallopt.argtypes, lib.malloc_trim.argtypes = [ctypes.c_int, ctypes.c_int], [ctypes.c_size_t]
                _libc = lib
        except (ValueError, OSError, AttributeError):  # not glibc, or no such symbols
            pass
    return _libc or None


@contextmanager
def big_arrays(rows: int):
    """Run the body (a closure) with numpy's huge-page request off, and with malloc tuned for big
    arrays when ``rows`` input rows make it worth it.  The request is off for small inputs too: a
    transitive closure of 20k edges has 63.7M rows (TC random 10k/20k: system time 11.5 s of a
    13.7 s run with the request on, 2-3.5 s without)."""
    global _users, _page_users, _hugepages_before
    lib = _glibc() if ENABLED and rows >= MIN_ROWS else None
    switch = _hugepage_switch() if ENABLED else None
    with _lock:
        if switch is not None:
            if _page_users == 0:
                _hugepages_before = bool(switch(False))
            _page_users += 1
        if lib is not None:
            if _users == 0:
                lib.mallopt(_M_ARENA_MAX, 1)
                lib.mallopt(_M_MMAP_MAX, 0)
                lib.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
            _users += 1
    try:
        yield
    finally:
        with _lock:
            if lib is not None:
                _users -= 1
                if _users == 0:
                    for param, value in _DEFAULTS:
                        lib.mallopt(param, value)
                    lib.malloc_trim(0)
            if switch is not None:
                _page_users -= 1
                if _page_users == 0 and _hugepages_before is not None:
                    switch(_hugepages_before)
                    _hugepages_before = None


def keep_freed_memory() -> bool:
    """For a one-command process (the CLI's ``derive``), not the library: keep freed memory in the
    process for reuse for its whole life.  Blocks under 64 MiB come from the heap and go back to it,
    and the heap's free top goes back to the system only past 512 MiB.  On LUBM ``holokb derive``
    took ~100k page faults and 0.44 s of system time; with this ~60k and ~0.25 s (notes/derive.md).
    A closure's :func:`big_arrays` then restores these settings, not glibc's defaults.  True when
    both settings were taken; False without glibc, with the switch off, or under the user's own
    malloc tuning."""
    global _DEFAULTS
    lib = _glibc() if ENABLED else None
    if lib is None:
        return False
    with _lock:
        _DEFAULTS = ((_M_TRIM_THRESHOLD, 512 << 20), (_M_MMAP_MAX, 65536))
        ok = bool(lib.mallopt(_M_MMAP_THRESHOLD, 64 << 20))
        if _users == 0:
            ok = bool(lib.mallopt(_M_TRIM_THRESHOLD, 512 << 20)) and ok
    return ok
