"""Allocator tuning for the commands that build and drop large arrays in one short process.

glibc serves every allocation above a threshold (128 KiB at start, rising to at most 32 MiB) with its
own ``mmap`` and gives it back with ``munmap`` when freed; the heap's top is trimmed past 128 KiB of
free space.  The engine's closure allocates and frees numpy buffers of a few MiB thousands of times,
so the kernel maps, zeroes and unmaps the same memory over and over: on LUBM ``holokb derive`` took
~100k page faults and 0.44 s of system time, 0.2 s of it in the closure.  Keeping freed memory in the
process for reuse cuts that to ~60k faults and ~0.25 s (notes/derive.md).  The memory is the
process's until it exits, which for a one-command process is when it would be given back anyway;
the library itself (a long-lived server) never calls this.
"""
from __future__ import annotations

import sys

#: glibc ``mallopt`` parameters (malloc.h) and the values set.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 64 << 20  # allocations below 64 MiB come from the heap and go back to it
_TRIM_THRESHOLD = 512 << 20  # the heap's free top is returned to the system past 512 MiB only


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed memory for reuse (True when it took both settings; False elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) & bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
