"""Physical layer: append-only columnar relations of int64 ids, sorted indexes, key packing.

Nothing here knows about rules.  A :class:`Relation` holds ``arity`` id columns plus
``valid_from``/``valid_to`` (unix ms, open end stored as ``MAX_TIME``), the derivation
``depth`` and the producing ``rule`` index (−1 for input rows), and optional per-row columns
(provenance) that the logical layer names.  Rows are only ever appended, so a row number is
a stable fact reference.

Keys: a set of id columns is packed into one int64 (``bits`` per column, from the dictionary
size) when it fits in 63 bits; otherwise the leading columns that fit are packed and the rest
are checked after the probe (indexes) or rows fall back to a Python set (dedup).  Dedup keys live in a hash set (:mod:`.keyset`).

Memory (RDFS 100k, bench/closure.py): id columns and validity are int64; depth, rule, proof and
path-length columns are int16/int32 (widened to int64 only if a value needs it); index row
numbers are int32 below 2**31 rows.  About 50 B per tuple in columns, 94 B with indexes and keys.
"""
from __future__ import annotations

import os
import threading

import numpy as np

from . import kernels
from .keyset import KeySet

EMPTY = np.zeros(0, dtype=np.int64)

#: Storage types of the per-row columns that are small numbers: a value outside one widens the
#: column to int64 (so 2**15 rules or a depth past 2**31 still work, at the old cost).
META_DTYPES = {"depth": np.dtype(np.int32), "rule": np.dtype(np.int16), "proof": np.dtype(np.int32),
               "plen": np.dtype(np.int32), "prod": np.dtype(np.float64)}


_DEFAULTS = {"valid_to": int(np.iinfo(np.int64).max), "valid_from": int(np.iinfo(np.int64).min)}
_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in (np.int16, np.int32, np.int64)}


class IntermediateOverflow(Exception):
    """A probe or join would produce more rows than the caller's budget (nothing was allocated)."""

    def __init__(self, rows: int, cap: int):
        super().__init__(f"a join step would produce {rows} rows (budget {cap})")
        self.rows, self.cap = rows, cap


class DeadlinePassed(Exception):
    """The run's deadline passed between two steps of a body (the evaluation stops there: a body of
    many large steps must not overrun the deadline until its last step)."""


#: Held while an index is looked up or created (then its own lock while it is extended): the rule
#: variants of one iteration may be solved on several threads (:mod:`.variants`), and
#: :meth:`SortedIndex.extend` replaces its arrays.
INDEX_LOCK = threading.Lock()


def _new_index_lock() -> None:
    global INDEX_LOCK
    INDEX_LOCK = threading.Lock()  # a child forked while a worker held the lock would wait forever


os.register_at_fork(after_in_child=_new_index_lock)


def pack(cols: list[np.ndarray], bits: int) -> np.ndarray:
    """Pack id columns into one int64 key per row (caller guarantees ``len(cols) * bits <= 63``)."""
    if not cols:
        return np.zeros(0, dtype=np.int64)
    key = cols[0].astype(np.int64, copy=True)
    for c in cols[1:]:
        key <<= bits
        key |= c
    return key


def pack_widths(cols: list[np.ndarray], widths: tuple[int, ...]) -> np.ndarray:
    """:func:`pack` with a width per column (caller guarantees ``sum(widths) <= 63``)."""
    key = cols[0].astype(np.int64, copy=True)
    for c, w in zip(cols[1:], widths[1:]):
        key <<= w
        key |= c
    return key


def first_rows(key: np.ndarray, bits: int) -> np.ndarray:
    """Positions of the first occurrence of every distinct key (keys >= 0 below ``2**bits``), in
    key order.  With room in an int64 for the positions, (key, position) pairs are packed and
    sorted plainly — ~4x faster than np.unique's stable argsort (RDFS 100k's distinct passes)."""
    n = len(key)
    rb = max(n - 1, 1).bit_length()
    if bits + rb > 63 or n == 0:
        return np.unique(key, return_index=True)[1]
    comp = (key.astype(np.int64) << rb) | np.arange(n, dtype=np.int64)
    comp.sort()
    head = np.ones(n, dtype=bool)
    np.not_equal(comp[1:] >> rb, comp[:-1] >> rb, out=head[1:])
    return comp[head] & ((1 << rb) - 1)


def _widths(bits: "int | tuple[int, ...]", n: int) -> tuple[int, ...]:
    return (bits,) * n if isinstance(bits, int) else bits


def fits(n_cols: int, bits: int) -> int:
    """How many columns of ``bits`` bits fit into one int64 key."""
    return max(1, min(n_cols, 63 // bits))


class SortedIndex:
    """Rows of one relation sorted by the packed key of some columns, grown by merging."""

    __slots__ = ("cols", "bits", "n_rows", "keys", "order", "lock", "_kbuf", "_obuf")

    def __init__(self, cols: tuple[int, ...], bits: int):
        self.lock = threading.Lock()  # held by :meth:`Relation.index` while it extends
        self.cols = cols
        self.bits = bits
        self.n_rows = 0
        self.keys = EMPTY
        self.order = EMPTY
        # The compiled merge's buffers: ``keys``/``order`` are views of their first n_rows, the rest
        # is room for later rows (fresh arrays per merge were most of the page faults at 1M rows).
        self._kbuf: np.ndarray | None = None
        self._obuf: np.ndarray | None = None

    def extend(self, rel: "Relation") -> None:
        """Take in rows appended to ``rel`` since the last call: sort the new keys, then insert them at
        their binary-searched places (O(m log n) comparisons plus one O(n) copy; was a stable argsort
        of old and new keys together, ~4x slower at 1M rows and 100 new ones)."""
        n = rel.size
        if n == self.n_rows:
            return
        new = pack([rel.col(c)[self.n_rows:n] for c in self.cols], self.bits)
        self._take_in(new, None, n)

    def _take_in(self, new: np.ndarray, rows_of: np.ndarray | None, n: int) -> None:
        """Merge keys ``new`` of relation rows ``rows_of`` (None: the rows from :attr:`n_rows` on,
        one key each) in; ``n``: the relation's rows covered after."""
        m = len(new)
        old = len(self.keys)
        rb = max(m - 1, 1).bit_length()
        if len(self.cols) * self.bits + rb <= 63:
            # Sort (key, row) packed in one int64: a plain sort is stable by construction and
            # several times faster than a stable argsort.
            comp = (new << rb) | np.arange(m, dtype=np.int64)
            comp.sort()
            o = comp & ((1 << rb) - 1)
            new_sorted = comp >> rb
        else:
            o = np.argsort(new, kind="stable")
            new_sorted = new[o]
        # Row numbers in int32 while they fit: a third less index memory per row.
        odt = np.int32 if n <= _BOUNDS[np.dtype(np.int32)][1] else np.int64
        new_rows = (o + self.n_rows if rows_of is None else rows_of[o]).astype(odt)
        if old:
            # Merge the sorted new keys in: each goes after the stored rows of an equal key (rows stay
            # ascending within a key), found by binary search; one copy of the old arrays, no sort
            # of the whole relation (which a long recursion with small deltas paid every step).
            jit = kernels.get(m)  # (sized by the new rows: np.insert is a fast copy when they are few)
            if jit is not None:
                self._merge_in_place(jit, new_sorted, new_rows, old + m)
                self.n_rows = n
                return
            at = np.searchsorted(self.keys, new_sorted, "right")
            keys = np.insert(self.keys, at, new_sorted)
            order = np.insert(self.order.astype(odt, copy=False), at, new_rows)
        else:
            keys, order = new_sorted, new_rows
        self._kbuf = self._obuf = None
        self.keys, self.order, self.n_rows = keys, order, n

    def _merge_in_place(self, jit, new_keys: np.ndarray, new_rows: np.ndarray, n: int) -> None:
        """Merge sorted new keys in from the back, inside buffers with room for them (grown by
        half again when full; the stored order widened if rows outgrew int32).  Only an index's
        own extension writes its buffers, under its lock, before any probe of the same rows.
        ``n``: the entries after."""
        old = len(self.keys)
        kb, ob = self._kbuf, self._obuf
        if kb is None or len(kb) < n or ob.dtype != new_rows.dtype:
            cap = max(n, old + (old >> 1))
            kb, ob = np.empty(cap, np.int64), np.empty(cap, new_rows.dtype)
            kb[:old] = self.keys
            ob[:old] = self.order
        jit.merge_back(kb, ob, old, new_keys, new_rows)
        self._kbuf, self._obuf = kb, ob
        self.keys, self.order = kb[:n], ob[:n]

    def nbytes(self) -> int:
        """Bytes held, the merge buffers' spare room included."""
        if self._kbuf is not None:
            return self._kbuf.nbytes + self._obuf.nbytes
        return self.keys.nbytes + self.order.nbytes

    def trim(self) -> None:
        """Give back the merge buffers' spare room (a frozen relation's indexes grow no more)."""
        if self._kbuf is not None and len(self._kbuf) > len(self.keys):
            self.keys, self.order = self.keys.copy(), self.order.copy()
        self._kbuf = self._obuf = None

    def probe(self, probe_keys: np.ndarray, cap: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """All (probe position, row) pairs with equal keys, in probe order then row order.

        More than ``cap`` pairs raise :class:`IntermediateOverflow` before they are allocated.
        """
        jit = kernels.get(len(probe_keys))
        if jit is not None:
            lo, counts = jit.probe_counts(self.keys, np.ascontiguousarray(probe_keys, dtype=np.int64))
            total = int(counts.sum())
            if total == 0:
                return EMPTY, EMPTY
            if cap is not None and total > cap:
                raise IntermediateOverflow(total, cap)
            return jit.probe_fill(self.order, lo, counts, total)
        lo = np.searchsorted(self.keys, probe_keys, "left")
        hi = np.searchsorted(self.keys, probe_keys, "right")
        counts = hi - lo
        total = int(counts.sum())
        if total == 0:
            return EMPTY, EMPTY
        if cap is not None and total > cap:
            raise IntermediateOverflow(total, cap)
        pos = np.repeat(np.arange(len(probe_keys), dtype=np.int64), counts)
        # the k-th pair of a probe reads order[lo + k]: one repeat of (lo - first pair number)
        shift = lo - (np.cumsum(counts) - counts)
        at = np.arange(total, dtype=np.int64)
        at += np.repeat(shift, counts)
        rows = self.order[at].astype(np.int64, copy=False)  # callers index with it
        return pos, rows

    def contains(self, probe_keys: np.ndarray) -> np.ndarray:
        """Boolean mask: does any row have each probe key."""
        if len(self.keys) == 0:
            return np.zeros(len(probe_keys), dtype=bool)
        i = np.searchsorted(self.keys, probe_keys, "left")
        i = np.minimum(i, len(self.keys) - 1)
        return self.keys[i] == probe_keys


#: Partial indexes a relation keeps per (constant columns, key columns): past this many, atoms
#: with other constants probe the full index on all their bound columns.
MAX_PARTIAL = 16


class PartialIndex(SortedIndex):
    """The rows of one relation whose columns ``where`` hold given ids, sorted by the packed key of
    other columns: the index of an atom with constants (``t(?p, subPropertyOf, ?q)``) holds the
    few rows that can match, not every row of the relation.  Probing it for a key answers the
    rows a full index on (constant and key columns) answers for (the constants, that key), in
    the same order (ascending rows per key); extending it compares the new rows' ``where``
    columns and sorts only the rows that match.  RDFS 100k: the index on (subject, predicate)
    that the schema atoms probed sorted all 1.4M rows for a few hundred that match."""

    __slots__ = ("where",)

    def __init__(self, where: tuple[tuple[int, int], ...], cols: tuple[int, ...], bits: int):
        super().__init__(cols, bits)
        self.where = where

    def extend(self, rel: "Relation") -> None:
        n = rel.size
        lo = self.n_rows
        if n == lo:
            return
        at = np.flatnonzero(rel._where_mask(self.where, lo, n))
        if not len(at):
            self.n_rows = n
            return
        new = pack([rel.col(c)[lo:n][at] for c in self.cols], self.bits)
        self._take_in(new, at + lo, n)


class _Column:
    """A growable numpy column: appends write into spare capacity (grown by half again when full),
    so reading all rows is a view, not a concatenation — a long recursion with small deltas
    appends thousands of times.

    While every row appended holds one value, given as a stride-0 array (``np.broadcast_to``: the
    validity of a timeless closure, the depth the transitive plan leaves unset), the column
    stores that value once and reads as a read-only stride-0 view of it (:attr:`const`); the
    first other value writes the rows out.  TC random 10k/20k's 63.7M rows wrote 1.2 GB of
    validity and depth this way for nothing."""

    __slots__ = ("buf", "size", "tail", "const", "_shown")

    def __init__(self, dtype) -> None:
        self.buf = np.zeros(0, dtype=dtype)
        self.size = 0
        self.tail: list = []  # values appended as Python objects, written to ``buf`` on the next read
        self.const = False  # every row holds buf[0] (one element), none written out
        self._shown: tuple | None = None  # the last stride-0 view :meth:`view` made (reads are frequent)

    @property
    def dtype(self):
        return self.buf.dtype

    def append(self, v: np.ndarray) -> None:
        if self.tail:
            self.flush()
        n = len(v)
        if n == 0:
            return
        one = v.strides == (0,) or n == 1
        if self.size == 0 and v.strides == (0,):
            self.buf, self.size, self.const = np.array(v[:1], dtype=self.buf.dtype), n, True
            return
        if self.const:
            if one and v[0] == self.buf[0]:
                self.size += n
                return
            # another value: the rows are written out, with room for more
            self.buf, self.const = np.full(self.size + n + (self.size >> 1) + 16, self.buf[0], self.buf.dtype), False
        need = self.size + n
        if need > len(self.buf):
            cap = need if self.size == 0 else max(need, len(self.buf) + (len(self.buf) >> 1) + 16)
            buf = np.empty(cap, dtype=self.buf.dtype)
            buf[:self.size] = self.buf[:self.size]
            self.buf = buf
        self.buf[self.size:need] = v
        self.size = need

    def append_list(self, v: list) -> None:
        """:meth:`append` of Python values (the row-at-a-time path): kept in a list until the column
        is next read, so a thousand one-row appends cost one array write."""
        self.tail.extend(v)

    def flush(self) -> None:
        """Write the pending Python values into the array (widening a narrow column they do not fit)."""
        v = np.array(self.tail)
        self.tail = []
        dt = self.buf.dtype
        if dt.kind == "i" and dt != np.int64:
            lo, hi = _BOUNDS[dt]
            if int(v.min()) < lo or int(v.max()) > hi:
                self.widen(np.int64)
        self.append(v.astype(self.buf.dtype, copy=False))

    def widen(self, dtype) -> None:
        if self.tail:
            self.flush()
        self.buf = self.buf.astype(dtype)

    def view(self) -> np.ndarray:
        if self.tail:
            self.flush()
        if self.const:
            got = self._shown  # (the one-value buffer, its view): valid while both stay
            if got is None or got[0] is not self.buf or len(got[1]) != self.size:
                got = self._shown = (self.buf, np.broadcast_to(self.buf, (self.size,)))
            return got[1]
        return self.buf[:self.size]

    def nbytes(self) -> int:
        """Bytes of its rows (a view's nbytes counts every row it shows; a constant column holds one value)."""
        return self.buf.nbytes if self.const else self.view().nbytes

    def trim(self) -> None:
        """Give back spare capacity past a quarter of the rows (a finished relation grows no more)."""
        if self.tail:
            self.flush()
        if not self.const and len(self.buf) - self.size > self.size // 4:
            self.buf = self.buf[:self.size].copy()


class Relation:
    """An append-only columnar table: id columns, validity, depth, rule, and extra columns.

    >>> r = Relation(2); r.append([np.array([1]), np.array([2])]); r.size
    1
    """

    def __init__(self, arity: int, extra: tuple[str, ...] = ()):
        self.arity = arity
        self._cols = [_Column(np.int64) for _ in range(arity)]
        names = ("valid_from", "valid_to", "depth", "rule") + extra
        self._meta = {name: _Column(META_DTYPES.get(name, np.dtype(np.int64))) for name in names}
        self.size = 0
        self._indexes: dict[tuple, SortedIndex] = {}
        self._dedup: KeySet | None = None
        self._dedup_set: set | None = None
        self._dedup_bits: tuple[int, ...] = ()
        self.frozen = False
        self._same: dict[tuple[str, float], tuple[int, bool]] = {}  # all_equal's rows checked so far
        self._first: dict[tuple, tuple[int, int]] = {}  # holds_in's (first matching row or -1, rows scanned)

    def freeze(self) -> None:
        """No more rows: columns become read-only arrays and the dedup keys are dropped (indexes,
        which only cache an order of the rows, may still be built)."""
        for c in list(self._cols) + list(self._meta.values()):
            c.trim()
            c.buf.flags.writeable = False
        for ix in self._indexes.values():
            ix.trim()
        self._dedup, self._dedup_set, self.frozen = None, None, True

    def append(self, cols: list[np.ndarray], **meta: np.ndarray) -> None:
        """Append rows (no dedup here; see :meth:`claim_new`).  All or nothing: every column is
        converted before any is stored, so a MemoryError leaves the relation as it was."""
        if self.frozen:
            raise ValueError("a frozen relation takes no rows")
        n = len(cols[0]) if cols else len(next(iter(meta.values()), EMPTY))
        if n == 0:
            return
        new_cols = [np.asarray(c, dtype=np.int64) for c in cols]
        defaults = _DEFAULTS
        new_meta = {}
        for name, store in self._meta.items():
            v = meta.get(name)
            if v is None:  # the default in every row: one value (see _Column)
                new_meta[name] = np.broadcast_to(np.array(defaults.get(name, 0), dtype=store.dtype), (n,))
            else:
                new_meta[name] = self._narrow(name, np.asarray(v))
        for store, c in zip(self._cols, new_cols):
            store.append(c)
        for name, v in new_meta.items():
            store = self._meta[name]
            if v.dtype != store.dtype:  # a value outside the narrow type: widen the stored column
                store.widen(v.dtype)
            store.append(v)
        self.size += n

    def append_rows(self, cols: list[list[int]], meta: dict[str, list]) -> None:
        """:meth:`append` of a few rows given as Python lists per column (``meta`` names every
        per-row column but may leave out ones that take their default)."""
        if self.frozen:
            raise ValueError("a frozen relation takes no rows")
        n = len(cols[0]) if cols else len(next(iter(meta.values())))
        if n == 0:
            return
        for store, c in zip(self._cols, cols):
            store.append_list(c)
        for name, store in self._meta.items():
            v = meta.get(name)
            store.append_list(v if v is not None else [_DEFAULTS.get(name, 0)] * n)
        self.size += n

    def _narrow(self, name: str, v: np.ndarray) -> np.ndarray:
        """``v`` in the column's storage type, or in int64 when a value does not fit it."""
        dt = self._meta[name].dtype
        if v.dtype == dt:
            return v
        if dt.kind == "i" and len(v) and v.dtype.kind in "iu":
            lo, hi = _BOUNDS[dt]
            if int(v.min()) < lo or int(v.max()) > hi:
                return v.astype(np.int64)
        return v.astype(dt)

    def settle(self) -> None:
        """Write the values :meth:`append_rows` keeps as Python lists into the columns (reading a
        column does it too, but threads must not both do it)."""
        for c in self._cols:
            c.view()
        for c in self._meta.values():
            c.view()

    def col(self, i: int) -> np.ndarray:
        """Id column ``i`` (all rows; a view — rows appended later are not in it)."""
        return self._cols[i].view()

    def meta(self, name: str) -> np.ndarray:
        """A per-row column by name: valid_from, valid_to, depth, rule, or an extra column."""
        return self._meta[name].view()

    def has_meta(self, name: str) -> bool:
        return name in self._meta

    def all_equal(self, name: str, value: float) -> bool:
        """Whether every row's ``name`` column holds ``value`` (checked incrementally: rows are only
        ever appended, never changed)."""
        done, ok = self._same.get((name, value), (0, True))
        if ok and done < self.size:
            ok = bool((self.meta(name)[done:] == value).all())
        self._same[(name, value)] = (self.size, ok)
        return ok

    def holds_in(self, where: tuple[tuple[int, int], ...], lo: int, hi: int) -> bool:
        """Whether a row in [lo, hi) holds every (column, id) pair of ``where``.  From row 0 the
        first such row is remembered and only rows appended since are scanned (rows are never
        changed), so asking once per iteration costs the new rows, not the relation; a range from
        elsewhere (a delta) is scanned.  No index is built: an atom's constants asked about
        this way (:meth:`~.body.BodySolver._unmatched`) cost no sort of every row per iteration."""
        hi = min(hi, self.size)
        if hi <= lo:
            return False
        if lo > 0:
            return bool(self._where_mask(where, lo, hi).any())
        first, upto = self._first.get(where, (-1, 0))
        if first < 0 and upto < hi:
            n = self.size  # (the same for every solve of one iteration: rows are stored after them)
            hit = np.flatnonzero(self._where_mask(where, upto, n))
            first, upto = (upto + int(hit[0]) if len(hit) else -1), n
            self._first[where] = (first, upto)
        return 0 <= first < hi

    def _where_mask(self, where: tuple[tuple[int, int], ...], lo: int, hi: int) -> np.ndarray:
        hit = None
        for c, v in where:
            h = self.col(c)[lo:hi] == v
            hit = h if hit is None else hit & h
        return hit

    def index(self, cols: tuple[int, ...], bits: int) -> SortedIndex:
        """The sorted index on ``cols`` (only the leading columns that fit are packed)."""
        cols = cols[: fits(len(cols), bits)]
        return self._kept_index(cols, bits, lambda fresh: SortedIndex(cols, bits))

    def partial_index(self, where: tuple[tuple[int, int], ...], cols: tuple[int, ...], bits: int
                      ) -> PartialIndex | None:
        """The :class:`PartialIndex` of the rows whose (column, id) pairs ``where`` hold, on ``cols``
        (only the leading columns that fit are packed); None when this relation already has
        :data:`MAX_PARTIAL` of them for the same columns (each scans every new row: a thousand
        rules naming a thousand classes take the one full index instead)."""
        cols = cols[: fits(len(cols), bits)]
        shape = (tuple(c for c, _ in where), cols)

        def make(fresh: bool) -> PartialIndex | None:
            if fresh and sum(1 for k in self._indexes if k[0] == "where" and
                             (tuple(c for c, _ in k[1]), k[2]) == shape) >= MAX_PARTIAL:
                return None
            return PartialIndex(where, cols, bits)

        return self._kept_index(("where", where, cols), bits, make)

    def _kept_index(self, key: tuple, bits: int, make):
        """The index kept under ``key``, extended to every row; ``make(fresh)`` builds it when it is
        missing (``fresh``) or keyed with other bits, and may answer None (then none is kept)."""
        idx = self._indexes.get(key)
        if idx is not None and idx.bits == bits and idx.n_rows == self.size:
            return idx  # up to date: no lock
        with INDEX_LOCK:  # held briefly: find or make the index
            idx = self._indexes.get(key)
            if idx is None or idx.bits != bits:
                idx = make(idx is None)
                if idx is None:
                    return None
                self._indexes[key] = idx
        with idx.lock:  # two threads extend two indexes side by side, never one twice
            idx.extend(self)
        return idx

    def claim_new(self, key_cols: list[np.ndarray], bits: "int | tuple[int, ...]") -> np.ndarray:
        """Mask of candidates that are neither stored yet nor repeated earlier among the candidates;
        their keys are recorded at once (undo with :meth:`release` when they are not appended).

        ``key_cols`` are the candidates' identity columns (args, plus interval ranks in
        all-valid-time mode), the same columns :meth:`rekey` was given for stored rows; ``bits``
        their width (one for all, or one per column: interval ranks need far fewer bits than ids,
        which keeps a triple with its interval in one int64 key).
        """
        n = len(key_cols[0])
        widths = _widths(bits, len(key_cols))
        if sum(widths) <= 63:
            if self._dedup is None or self._dedup_bits != widths:
                raise ValueError("key width changed: call rekey() first")
            jit = kernels.get(n)
            if jit is not None:  # packed inside the kernel: no key array
                return self._dedup.add_cols(jit, tuple(key_cols), widths)
            return self._dedup.add_new(pack_widths(key_cols, widths))
        if self._dedup_set is None:
            self._dedup_set = set()
        stored = self._dedup_set
        mask = np.zeros(n, dtype=bool)
        for i, t in enumerate(zip(*[c.tolist() for c in key_cols])):
            if t not in stored:
                mask[i] = True
                stored.add(t)
        return mask

    def claim_rows(self, keys: list[tuple[int, ...]], bits: "int | tuple[int, ...]") -> list[bool]:
        """:meth:`claim_new` for candidates given as Python tuples of their identity columns."""
        widths = _widths(bits, len(keys[0])) if keys else ()
        if keys and sum(widths) <= 63:
            if self._dedup is None or self._dedup_bits != widths:
                raise ValueError("key width changed: call rekey() first")
            packed = []
            for t in keys:
                k = 0
                for c, w in zip(t, widths):
                    k = (k << w) | c
                packed.append(k)
            return self._dedup.add_list(packed)
        if self._dedup_set is None:
            self._dedup_set = set()
        stored, out = self._dedup_set, []
        for t in keys:
            out.append(t not in stored)
            stored.add(t)
        return out

    def release(self, key_cols: list[np.ndarray], bits: "int | tuple[int, ...]") -> None:
        """Forget keys claimed by :meth:`claim_new` whose rows were not appended (a budget cut)."""
        widths = _widths(bits, len(key_cols))
        if sum(widths) <= 63:
            self._dedup.discard(pack_widths(key_cols, widths))
        else:
            self._dedup_set.difference_update(zip(*[c.tolist() for c in key_cols]))

    def rekey(self, key_cols: list[np.ndarray], bits: "int | tuple[int, ...]") -> None:
        """(Re)build the dedup keys of all stored rows at key width ``bits``."""
        widths = _widths(bits, len(key_cols))
        self._dedup, self._dedup_set, self._dedup_bits = None, None, widths
        if sum(widths) <= 63:
            self._dedup = KeySet()
        self.claim_new(key_cols, widths)

    @property
    def key_bits(self) -> tuple[int, ...] | int | None:
        """The key widths the dedup keys were built with (None before :meth:`rekey`, -1 for Python tuples)."""
        if self._dedup is not None:
            return self._dedup_bits
        return -1 if self._dedup_set is not None else None

    def nbytes(self, *, indexes: bool = False) -> int:
        """Bytes held by the columns, plus the sorted indexes and dedup keys when ``indexes``."""
        total = sum(c.nbytes() for c in self._cols) + sum(c.nbytes() for c in self._meta.values())
        if indexes:
            total += sum(ix.nbytes() for ix in self._indexes.values())
            total += self._dedup.nbytes() if self._dedup is not None else 0
        return total
