"""Term dictionary: core terms ↔ dense int64 ids, plus the comparable value of literal ids.

The physical layer only ever sees ids.  A caller (the ledger) may pre-seed ids it already has;
otherwise :meth:`TermDictionary.intern_sorted` hands out ids in ``term_sort_key`` order so
that the same set of terms always gets the same ids, whatever order facts arrived in.

Literal values for comparisons live in parallel numpy columns: a ``kind`` code and either a
float64 (numbers, compared as doubles: integers beyond 2**53 lose precision) or an int64 (unix ms
for dateTime/date, ms for day-time durations, months for year-month durations).  Values of
different kinds are incomparable: comparing them is false, never an error.
"""
from __future__ import annotations

from decimal import Decimal
from itertools import islice

import numpy as np

from ..core.terms import IRI, DateTimeValue, DateValue, Literal, Term
from ..core.time import Duration

#: Value kinds (``TermDictionary.kind``).
KIND_NONE, KIND_NUMBER, KIND_TIME, KIND_DAYTIME, KIND_YEARMONTH, KIND_STRING, KIND_BOOL = range(7)


def identity_key(t: Term) -> tuple | int:
    """The key under which two terms are the same term (literals by typed value, not lexical form).
    An integer literal's key is the int itself (no other key is an int: the rest are tuples), so the
    fused small-delta loop (:mod:`.rowloop`) finds a computed integer's id with one dict lookup."""
    if isinstance(t, IRI):
        return ("I", t.value)
    v = t.value
    if type(v) is int:
        return v
    # type name keeps True apart from 1 and 1 apart from 1.0 (Python hashes them equal).
    return ("L", type(v).__name__, v, t.lang or "")


#: Integers below this magnitude are kept exactly in the int64 value column (products of two stay exact
#: in int64 when both are below 2**31; the vectorised path checks).
_INT_FAST = 2**62


def _value_of(t: Term) -> tuple[int, float, int]:
    if isinstance(t, IRI):
        return KIND_NONE, 0.0, 0
    v = t.value
    if isinstance(v, bool):
        return KIND_BOOL, float(v), int(v)
    if isinstance(v, int) and -_INT_FAST < v < _INT_FAST:
        return KIND_NUMBER, float(v), v  # the exact value too: integer arithmetic runs vectorised
    if isinstance(v, (int, float, Decimal)):
        return KIND_NUMBER, float(v), 0
    if isinstance(v, (DateTimeValue, DateValue)):
        return KIND_TIME, 0.0, v.ms
    if isinstance(v, Duration):
        if v.months == 0:
            return KIND_DAYTIME, 0.0, v.ms
        if v.ms == 0:
            return KIND_YEARMONTH, 0.0, v.months
        return KIND_NONE, 0.0, 0  # mixed durations have no total order (XSD 3.3.6.2)
    if isinstance(v, str):
        return KIND_STRING, 0.0, 0
    return KIND_NONE, 0.0, 0


class TermDictionary:
    """Bidirectional map between terms and int64 ids, with value columns for literal ids.

    >>> d = TermDictionary(); i = d.intern(Literal.of(3)); d.term(i)
    Literal(lexical='3', datatype='http://www.w3.org/2001/XMLSchema#integer', lang=None)
    """

    __slots__ = ("_ids", "_terms", "_bound", "_kind", "_num", "_ms", "_pending", "_isint", "_const", "_seeded",
                 "_lazy", "_lazy_written", "_lazy_built")

    def __init__(self) -> None:
        self._ids: dict[tuple, int] = {}
        self._terms: dict[int, Term] = {}
        self._bound = 0
        self._kind = np.zeros(0, dtype=np.int8)
        self._num = np.zeros(0, dtype=np.float64)
        self._ms = np.zeros(0, dtype=np.int64)
        self._isint = np.zeros(0, dtype=bool)
        self._pending: list[int] = []
        self._const: dict[Term, int] = {}
        self._seeded: set[int] = set()  # ids a caller chose (:meth:`seed`); every other id was minted here
        # Integers minted by :meth:`intern_int_lazy`: id -> value, the Literal built on first :meth:`term`
        # (a 100k-step recursion mints 100k integers; building each Literal costs more than the step).
        # Entries stay (the fused loop reads values here) and arrive in id order, so the ones whose value
        # columns are unwritten are the last ``len(_lazy) - _lazy_written``; ``_lazy_built`` have a Literal.
        self._lazy: dict[int, int] = {}
        self._lazy_written = 0
        self._lazy_built = 0

    def __len__(self) -> int:
        return len(self._terms) + len(self._lazy) - self._lazy_built

    @property
    def id_bound(self) -> int:
        """One past the largest id in use (ids lie in ``range(id_bound)``)."""
        return max(self._bound, 1)

    def seed(self, term: Term, term_id: int) -> None:
        """Register ``term`` under an id chosen by the caller (e.g. the ledger's term id)."""
        key = identity_key(term)
        if term_id < 0 or term_id >= 2**40:
            raise ValueError(f"term ids must lie in [0, 2**40), got {term_id}")
        old = self._ids.get(key)
        if old is not None and old != term_id:
            raise ValueError(f"{term} already has id {old}, not {term_id}")
        if term_id in self._lazy:
            self.term(term_id)
        if term_id in self._terms and identity_key(self._terms[term_id]) != key:
            raise ValueError(f"id {term_id} already names {self._terms[term_id]}")
        self._add(key, term, term_id)
        self._seeded.add(term_id)

    def seed_many(self, term_ids: list[int], terms: list[Term]) -> None:
        """:meth:`seed` of each (id, term) pair, in order; into an empty dictionary as a few bulk
        updates (an input's 26.6k terms: one call each was ~3 us of Python apiece)."""
        if self._bound or self._lazy or not term_ids:
            for t, i in zip(terms, term_ids):
                self.seed(t, i)
            return
        keys = [identity_key(t) for t in terms]
        ids = dict(zip(keys, term_ids))
        if (len(ids) != len(keys) or len(set(term_ids)) != len(term_ids) or len(terms) != len(term_ids)
                or min(term_ids) < 0 or max(term_ids) >= 2**40):
            for t, i in zip(terms, term_ids):  # a clash or a bad id: seed's own error, at the same pair
                self.seed(t, i)
            return
        self._ids = ids
        self._terms = dict(zip(term_ids, terms))
        self._bound = max(term_ids) + 1
        self._pending.extend(i for i, t in zip(term_ids, terms) if isinstance(t, Literal))
        self._seeded.update(term_ids)

    def is_seeded(self, term_id: int) -> bool:
        """Whether ``term_id`` was chosen by a caller (:meth:`seed`) rather than minted by :meth:`intern`."""
        return term_id in self._seeded

    def intern(self, term: Term) -> int:
        """The id of ``term``, handing out the next free id if it is new."""
        key = identity_key(term)
        i = self._ids.get(key)
        if i is None:
            i = self._bound
            self._add(key, term, i)
        return i

    def _add(self, key: tuple, term: Term, i: int) -> None:
        self._ids[key] = i
        self._terms[i] = term
        self._bound = max(self._bound, i + 1)
        if isinstance(term, Literal):
            self._pending.append(i)

    def intern_const(self, term: Term) -> int:
        """:meth:`intern` for a rule's constants, asked once per step: remembered by the term."""
        i = self._const.get(term)
        if i is None:
            i = self._const[term] = self.intern(term)
        return i

    def intern_sorted(self, terms) -> None:
        """Intern the new ones among ``terms`` in ``term_sort_key`` order (deterministic ids)."""
        from ..core.terms import term_sort_key

        fresh = {}
        for t in terms:
            k = identity_key(t)
            if k not in self._ids and k not in fresh:
                fresh[k] = t
        for t in sorted(fresh.values(), key=term_sort_key):
            self.intern(t)

    def lookup(self, term: Term) -> int | None:
        """The id of ``term`` or None when it was never interned."""
        return self._ids.get(identity_key(term))

    def term(self, term_id: int) -> Term:
        """The term with id ``term_id``."""
        term_id = int(term_id)
        t = self._terms.get(term_id)
        if t is None:
            v = self._lazy.get(term_id)
            if v is not None:
                t = self._terms[term_id] = Literal.of(v)
                self._lazy_built += 1
        if t is None:
            raise KeyError(term_id)
        return t

    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(kind int8, number float64, ms int64) columns indexed by id, grown as literals arrive."""
        n = self._bound
        if len(self._kind) < n:  # grow with spare room: a long recursion mints one term per step
            grow = max(n - len(self._kind), len(self._kind) // 2 + 64)
            self._kind = np.concatenate([self._kind, np.zeros(grow, np.int8)])
            self._num = np.concatenate([self._num, np.zeros(grow, np.float64)])
            self._ms = np.concatenate([self._ms, np.zeros(grow, np.int64)])
            self._isint = np.concatenate([self._isint, np.zeros(grow, bool)])
        for i in self._pending:
            self._kind[i], self._num[i], self._ms[i] = _value_of(self._terms[i])
            v = self._terms[i].value  # type: ignore[union-attr]
            self._isint[i] = isinstance(v, int) and not isinstance(v, bool) and -_INT_FAST < v < _INT_FAST
        self._pending.clear()
        k = len(self._lazy) - self._lazy_written
        if k:  # lazy integers: all exact (intern_int_lazy takes only those), in bulk; the newest k
            new = list(islice(reversed(self._lazy.items()), k))
            ids = np.fromiter((i for i, _ in new), np.int64, k)
            vals = np.fromiter((v for _, v in new), np.int64, k)
            self._kind[ids], self._num[ids], self._ms[ids], self._isint[ids] = KIND_NUMBER, vals, vals, True
            self._lazy_written = len(self._lazy)
        return self._kind, self._num, self._ms

    def integers(self) -> tuple[np.ndarray, np.ndarray]:
        """(is an integer literal held exactly, its int64 value) columns indexed by id."""
        _, _, ms = self.values()
        return self._isint, ms

    def intern_ints(self, values: np.ndarray) -> np.ndarray:
        """Ids of the integer literals with these int64 values (new ones interned), per row."""
        known = self._ids
        if len(values) <= 8:  # a small delta: a Python loop beats np.unique's sort
            return np.array([self.intern_int(v) for v in values.tolist()], dtype=np.int64)
        uniq, inv = np.unique(values, return_inverse=True)
        out = np.empty(len(uniq), dtype=np.int64)
        for k, v in enumerate(uniq.tolist()):
            i = known.get(v)  # identity_key of Literal.of(v), without building it
            out[k] = i if i is not None else self.intern(Literal.of(v))
        return out[inv.reshape(-1)]

    def intern_int_lazy(self, v: int) -> int:
        """:meth:`intern_int` that defers building the Literal of a new ``v`` (|v| < 2**62) to the
        first :meth:`term` of its id: same id, same value columns."""
        key = v  # identity_key of Literal.of(v)
        i = self._ids.get(key)
        if i is None:
            if not -_INT_FAST < v < _INT_FAST:
                return self.intern_int(v)
            i = self._bound
            self._ids[key] = i
            self._bound = i + 1
            self._lazy[i] = v
        return i

    def lazy_int_parts(self) -> dict:
        """What code minting integers inline needs (the fused loop's generated code, :mod:`.rowloop`):
        ``IDS`` (key -> id; an integer is its own key) and ``LAZY`` (id -> value of the integers minted
        lazily, which code may also read).  A new ``v`` with |v| < 2**62 then gets the id ``_bound``
        (which moves up by one) and ``IDS[v] = i; LAZY[i] = v``: :meth:`intern_int_lazy`."""
        return {"IDS": self._ids, "LAZY": self._lazy}

    def lazy_int_minter(self, cache: dict[int, int]):
        """A function ``v -> id`` doing :meth:`intern_int_lazy` (one call, no method lookup: the row
        path mints an integer per step) that also records ``cache[id] = v`` for |v| < 2**62."""
        ids, lazy, fast = self._ids, self._lazy, _INT_FAST

        def mint(v: int) -> int:
            if not -fast < v < fast:
                return self.intern_int(v)
            i = ids.get(v)  # v is its own identity_key
            if i is None:
                i = self._bound
                ids[v] = i
                self._bound = i + 1
                lazy[i] = v
            cache[i] = v
            return i

        return mint

    def intern_int(self, v: int) -> int:
        """The id of the integer literal ``v`` (interned if new), without building the literal when known."""
        key = v  # identity_key of Literal.of(v), known without parsing it back
        i = self._ids.get(key)
        if i is None:
            i = self._bound
            self._add(key, Literal.of(v), i)
        return i
