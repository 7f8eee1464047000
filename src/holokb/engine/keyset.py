"""Physical layer: a set of non-negative int64 keys as a vectorised open-addressing hash table.

Semi-naive dedup asks, once per iteration, "which of these millions of candidate keys are new,
and which candidate is the first of its key?".  A sorted key array answers that with a sort of
the candidates plus a binary search per candidate into the stored keys (cache misses on every
probe) and a merge on every insertion.  A hash table answers it with a few gathers: every
candidate reads its home slot; the ones that neither found their key nor an empty slot move on
to the next slot (linear probing) in the next round.  The load factor stays <= 3/4 (8 bytes
a slot: 11-21 bytes a key); most lookups settle in two or three rounds.

Determinism: which candidate of a key counts as its first occurrence is decided by the
smallest candidate position (``np.minimum.at``), never by the order numpy happens to write
repeated indices in; the table layout itself never shows in any result.
"""
from __future__ import annotations

import numpy as np

from . import kernels

_EMPTY = -1
_GONE = -2  # a released key: occupied for probing, equal to no key
_NO_CLAIM = np.iinfo(np.int32).max  # batches are far smaller than 2**31 candidates
_MULT = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the high bits of k * 2^64/phi
_MULT_INT, _M64 = int(_MULT), (1 << 64) - 1  # the same hash in Python ints (:meth:`KeySet._add_small`)
#: Batches up to this many keys are inserted one by one in Python (cheaper than the vector rounds).
SMALL = 16


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only int64 view of ``a`` (a copy only when it is not contiguous int64)."""
    v = np.ascontiguousarray(a, dtype=np.int64).view()
    v.flags.writeable = False
    return v


class KeySet:
    """A growing set of int64 keys >= 0.

    >>> s = KeySet(); s.add_new(np.array([5, 7, 5])).tolist()
    [True, True, False]
    >>> s.add_new(np.array([7, 9])).tolist(), len(s)
    ([False, True], 3)
    """

    __slots__ = ("table", "shift", "used", "size", "_claim")

    def __init__(self) -> None:
        self._alloc(16)
        self.size = 0

    def _alloc(self, cap: int) -> None:
        self.table = np.full(cap, _EMPTY, np.int64)
        self.shift = np.uint64(64 - (cap.bit_length() - 1))
        self.used = 0  # occupied slots, released ones included
        self._claim = None  # :meth:`_insert`'s scratch, one entry per slot, all _NO_CLAIM between calls

    def __len__(self) -> int:
        return self.size

    def nbytes(self) -> int:
        """Bytes held by the table."""
        return self.table.nbytes

    def _home(self, keys: np.ndarray) -> np.ndarray:
        h = keys.view(np.uint64) * _MULT
        h >>= self.shift
        return h.view(np.int64)

    def _grow(self, cap: int) -> None:
        old = self.table[self.table >= 0]
        self._alloc(cap)
        self.size = self.used = len(old)
        self._place(old)

    def _place(self, keys: np.ndarray) -> None:
        """Put distinct keys known to be absent (a regrow): whichever writer of a slot wins is fine."""
        table, top = self.table, len(self.table) - 1
        slot = self._home(keys)
        while len(keys):
            free = np.flatnonzero(table[slot] == _EMPTY)
            table[slot[free]] = keys[free]
            done = np.zeros(len(keys), dtype=bool)
            done[free] = table[slot[free]] == keys[free]
            rest = np.flatnonzero(~done)
            keys = keys[rest]
            slot = (slot[rest] + 1) & top

    def add_new(self, keys: np.ndarray) -> np.ndarray:
        """Insert ``keys``; True at the first position of every key that was not in the set."""
        keys = np.asarray(keys, dtype=np.int64)
        if len(keys) <= SMALL and self.used + len(keys) <= (3 * len(self.table)) // 4:
            return np.array(self._add_small(keys.tolist()), dtype=bool)
        jit = kernels.get(len(keys))
        if jit is not None:
            return self._add_jit(jit, keys)
        absent = start = None
        if self.size:
            # Most candidates are usually old: look them up first so the table grows by what is new.
            # A lookup that misses stops at the empty slot where the key would go: the insert
            # starts there instead of probing the same run from the home slot again.
            found, stop = self._lookup(keys)
            absent = np.flatnonzero(~found)
            start = stop[absent]
        if absent is None:
            absent = np.arange(len(keys), dtype=np.int64)
        mask = np.zeros(len(keys), dtype=bool)
        # Insert in chunks that fit at load <= 3/4 whatever they hold: the candidate count only
        # bounds the new keys (many candidates repeat each other), so the table grows when it is
        # actually full, never by a worst-case guess (that doubled the table, 12 -> 25 B a key).
        done = 0
        while done < len(absent):
            cap = len(self.table)
            room = (3 * cap) // 4 - self.used
            if room < len(absent) - done and room < max(1024, cap // 64):
                # a same-size regrow when released slots are what fills the table
                self._grow(cap if cap >= 8192 and 2 * self.size <= cap else 2 * cap)
                start = None  # the slots found belong to the old table
                continue
            chunk = absent[done:done + room]
            # Earlier chunks only filled empty slots: a start slot is still at or before the
            # first slot of its probe run that can hold its key.
            mask[chunk[self._insert(keys[chunk], None if start is None else start[done:done + room])]] = True
            done += len(chunk)
        return mask

    def _add_jit(self, jit, keys: np.ndarray) -> np.ndarray:
        """:meth:`add_new` by the compiled kernel: keys go in one at a time in candidate order, so a
        key's first candidate is the one that inserts it (the same answer as the vector rounds)."""
        return self.add_cols(jit, (np.ascontiguousarray(keys),), (0,))

    def add_cols(self, jit, cols: tuple[np.ndarray, ...], widths: tuple[int, ...]) -> np.ndarray:
        """:meth:`add_new` of the keys packed from int64 ``cols`` (``widths`` bits each, as
        :func:`.relation.pack_widths`), packed and inserted by the compiled kernel ``jit``."""
        cols = tuple(_readonly(c) for c in cols)  # one array type for the kernel's tuple
        n = len(cols[0])
        w = np.array(widths, dtype=np.int64)
        mask = np.zeros(n, dtype=bool)
        i = 0
        while i < n:
            room = (3 * len(self.table)) // 4 - self.used
            if room < max(1024, len(self.table) // 64):
                # Doubling, as the vector path: sizing by a guess at this batch's new keys
                # (early candidates are mostly new) over-allocated the table.
                cap = len(self.table)
                old = self.table[self.table >= 0]
                self._alloc(cap if cap >= 8192 and 2 * self.size <= cap else 2 * cap)
                self.size = self.used = len(old)
                jit.ks_insert(self.table, int(self.shift), (_readonly(old),), w[:1], np.zeros(len(old), dtype=bool),
                              0, len(old))
                continue
            i, added = jit.ks_insert(self.table, int(self.shift), cols, w, mask, i, room)
            self.used += added
            self.size += added
        return mask

    def add_list(self, keys: list[int]) -> list[bool]:
        """:meth:`add_new` for keys given (and answered) as Python lists (the row-at-a-time path)."""
        if len(keys) <= SMALL and self.used + len(keys) <= (3 * len(self.table)) // 4:
            return self._add_small(keys)
        return self.add_new(np.array(keys, dtype=np.int64)).tolist()

    def _add_small(self, keys: list[int]) -> list[bool]:
        """:meth:`add_new` for a handful of keys (room for all of them known), one at a time in
        Python: a long recursion with a one-row delta would otherwise pay a dozen numpy calls."""
        table, top, shift = self.table, len(self.table) - 1, int(self.shift)
        mask = [False] * len(keys)
        for i, k in enumerate(keys):
            slot = ((k * _MULT_INT) & _M64) >> shift
            while True:
                cur = table[slot]
                if cur == k:
                    break
                if cur == _EMPTY:
                    table[slot] = k
                    self.used += 1
                    self.size += 1
                    mask[i] = True
                    break
                slot = (slot + 1) & top
        return mask

    def _insert(self, keys: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Insert keys; True at the first candidate of each key put in.  ``start``: slots to start
        probing from (default: the home slots) — only ones where every slot of the probe run
        before them holds another key."""
        table = self.table
        claim = self._claim  # scratch: smallest candidate per slot (a fresh table-sized fill per
        if claim is None:   # call cost more than the inserts of a small batch into a large table)
            claim = self._claim = np.full(len(table), _NO_CLAIM, np.int32)
        mask = np.zeros(len(keys), dtype=bool)
        top = len(table) - 1
        pos = np.arange(len(keys), dtype=np.int64)
        slot = self._home(keys) if start is None else start
        key = keys
        while len(pos):
            cur = table[slot]
            empty = cur == _EMPTY
            settled = cur == key
            if empty.any():
                e = np.flatnonzero(empty)
                es, ep, ek = slot[e], pos[e], key[e]
                try:
                    np.minimum.at(claim, es, ep.astype(np.int32))
                    win = claim[es] == ep  # one winner per empty slot: its smallest candidate
                    claim[es] = _NO_CLAIM
                except BaseException:  # e.g. MemoryError: a dirty scratch would pick no winner later
                    self._claim = None
                    raise
                table[es[win]] = ek[win]
                mask[ep[win]] = True
                settled[e] = table[es] == ek  # the winner and later candidates of the same key
                n_new = int(win.sum())
                self.used += n_new
                self.size += n_new
            if settled.all():
                break
            rest = np.flatnonzero(~settled)
            pos, key = pos[rest], key[rest]
            slot = (slot[rest] + 1) & top
        return mask

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """Boolean mask: is each key in the set."""
        jit = kernels.get(len(keys))
        if jit is not None:
            return jit.ks_contains(self.table, int(self.shift), np.ascontiguousarray(keys, dtype=np.int64))
        return self._lookup(keys)[0]

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(is each key in the set, the empty slot where each absent key's probe run ended)."""
        keys = np.asarray(keys, dtype=np.int64)
        top = len(self.table) - 1
        slot = self._home(keys)
        # The first round reads every key's home slot: its answers are written whole, not scattered.
        cur = self.table[slot]
        out = cur == keys
        empty = cur == _EMPTY
        stop = slot  # only read where the key ended up absent: those entries are set below
        pos = np.flatnonzero(~(out | empty))
        key = keys[pos]
        slot = (slot[pos] + 1) & top
        while len(pos):
            cur = self.table[slot]
            hit = cur == key
            out[pos[hit]] = True
            empty = cur == _EMPTY
            stop[pos[empty]] = slot[empty]
            rest = np.flatnonzero(~(hit | empty))
            pos, key = pos[rest], key[rest]
            slot = (slot[rest] + 1) & top
        return out, stop

    def discard(self, keys: np.ndarray) -> None:
        """Remove ``keys`` (those present); their slots stay occupied for probing until a regrow."""
        keys = np.unique(np.asarray(keys, dtype=np.int64))  # a repeated key must count once
        top = len(self.table) - 1
        slot = self._home(keys)
        key = keys
        while len(key):
            cur = self.table[slot]
            hit = cur == key
            if hit.any():
                self.table[slot[hit]] = _GONE
                self.size -= int(hit.sum())
            rest = np.flatnonzero(~hit & (cur != _EMPTY))
            key = key[rest]
            slot = (slot[rest] + 1) & top
