"""The engine's input: facts per predicate with validity, an opaque key and a confidence.

Facts are collected first and encoded when the closure starts: new terms get ids in
``term_sort_key`` order and each relation's rows are sorted by their ids, so the same set of
facts (whatever order it was added in) always yields the same evaluation and the same output.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from ..core.terms import Term
from ..core.time import MAX_TIME, MIN_TIME, Interval
from .dictionary import TermDictionary
from .relation import Relation

RelKey = tuple[str, bool]  # (predicate IRI, negated): negative facts never share a relation


@dataclass(frozen=True, slots=True, eq=False)
class KeyColumn:
    """Fact keys of input rows as int codes and a decoder: key ``i`` is ``decode(codes[i])``, built when
    asked for.  A proof names few input rows, and one key object per input row (100k for LUBM) costs
    more than the closure's use of them; a caller that knows what the codes are (the ledger's row ids)
    reads :attr:`codes` directly.  ``tag`` says what the codes are to such a caller (opaque here).
    A negative code ``c`` is the key object ``extra[-1 - c]`` (facts added one by one with their keys)."""

    codes: np.ndarray
    decode: Callable[[int], object]
    tag: object = None
    extra: tuple = ()

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: int) -> object:
        c = int(self.codes[i])
        return self.extra[-1 - c] if c < 0 else self.decode(c)

    def __iter__(self) -> Iterator[object]:
        decode, extra = self.decode, self.extra
        return (extra[-1 - c] if c < 0 else decode(c) for c in self.codes.tolist())

    def take(self, index: np.ndarray) -> "KeyColumn":
        """The keys at ``index`` (positions or a boolean mask), same decoder."""
        return KeyColumn(self.codes[index], self.decode, self.tag, self.extra)


@dataclass(frozen=True, slots=True)
class InputRows:
    """Encoded input rows of one relation (sorted, duplicates removed) with their fact keys."""

    relation: Relation
    keys: tuple


class Database:
    """Input facts for the engine.

    >>> from holokb.core import IRI
    >>> db = Database(); db.add("ex:edge", (IRI("http://e/a"), IRI("http://e/b"))); len(db)
    1
    """

    def __init__(self, terms: TermDictionary | None = None):
        self.terms = terms if terms is not None else TermDictionary()
        self._facts: dict[RelKey, list] = {}
        self._bulk: dict[RelKey, list] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self._facts.values())

    def add(self, predicate: str, args: tuple[Term, ...], *, valid: Interval | None = None,
            key: object = None, confidence: float = 1.0, negated: bool = False) -> None:
        """Add one fact; ``key`` is returned by proofs (e.g. the ledger fact id)."""
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must lie in [0, 1], got {confidence}")
        v = valid or Interval.always()
        self._facts.setdefault((predicate, negated), []).append((tuple(args), v, key, float(confidence)))

    def add_ids(self, predicate: str, columns, *, valid_from=None, valid_to=None, confidence=None,
                keys=None, negated: bool = False) -> None:
        """Add many facts already encoded with this database's term ids (one int64 array per arg).

        ``valid_to`` uses ``MAX_TIME`` for an open end; ``keys`` is an optional array of fact keys, or a
        :class:`KeyColumn` (kept as codes: a relation whose rows all come with key columns of one decoder
        keeps its keys as one :class:`KeyColumn`).
        """
        cols = [np.asarray(c, dtype=np.int64) for c in columns]
        n = len(cols[0]) if cols else 0
        if any(len(c) != n for c in cols):
            raise ValueError("columns of different lengths")
        bound = self.terms.id_bound
        for c in cols:
            if n and (int(c.min()) < 0 or int(c.max()) >= bound):
                raise ValueError(f"{predicate}: ids outside the term dictionary")
        vf = np.full(n, MIN_TIME, np.int64) if valid_from is None else np.asarray(valid_from, np.int64)
        vt = np.full(n, MAX_TIME, np.int64) if valid_to is None else np.asarray(valid_to, np.int64)
        if np.any(vt <= vf):
            raise ValueError(f"{predicate}: empty or inverted validity interval")
        conf = np.ones(n) if confidence is None else np.asarray(confidence, np.float64)
        ks = None if keys is None else keys if isinstance(keys, KeyColumn) else list(keys)
        if ks is not None and len(ks) != n:
            raise ValueError(f"{predicate}: {len(ks)} keys for {n} facts")
        self._bulk.setdefault((predicate, negated), []).append((np.stack(cols, axis=1) if cols else np.zeros((n, 0), np.int64), vf, vt, conf, ks))

    def items(self):
        """Every fact added as ``(relation key, args)``, relations sorted, then in insertion order."""
        for rk in self.predicates():
            for r in self._facts.get(rk, []):
                yield rk, r[0]
            for b in self._bulk.get(rk, []):
                for row in b[0].tolist():
                    yield rk, tuple(self.terms.term(i) for i in row)

    def rows(self):
        """Every fact added as ``(relation key, args, valid, key, confidence)``, relations sorted."""
        for rk in self.predicates():
            for args, valid, key, conf in self._facts.get(rk, []):
                yield rk, args, valid, key, conf
            for ids, vf, vt, conf, keys in self._bulk.get(rk, []):
                ks = keys if keys is not None else [None] * len(vf)
                for row, f, t, c, k in zip(ids.tolist(), vf.tolist(), vt.tolist(), conf.tolist(), ks):
                    args = tuple(self.terms.term(i) for i in row)
                    yield rk, args, Interval(f, None if t == MAX_TIME else t), k, c

    def predicates(self) -> list[RelKey]:
        """Relation keys with input facts, sorted."""
        return sorted(set(self._facts) | set(self._bulk))

    def encode(self, extra: tuple[str, ...] = ()) -> dict[RelKey, InputRows]:
        """Intern all terms and build one sorted, deduplicated relation per predicate.

        Rows with equal args and validity are one row (the first in sort order wins: highest
        confidence); rows of different validity intervals stay apart."""
        self.terms.intern_sorted(t for rows in self._facts.values() for r in rows for t in r[0])
        out: dict[RelKey, InputRows] = {}
        for rk in self.predicates():
            rows = self._facts.get(rk, [])
            bulk = self._bulk.get(rk, [])
            arity = len(rows[0][0]) if rows else bulk[0][0].shape[1]
            if any(len(r[0]) != arity for r in rows) or any(b[0].shape[1] != arity for b in bulk):
                raise ValueError(f"{rk[0]}: facts of different arities")
            ids = np.array([[self.terms.lookup(t) for t in r[0]] for r in rows], dtype=np.int64).reshape(len(rows), arity)
            vf = np.array([r[1].start for r in rows], dtype=np.int64)
            vt = np.array([MAX_TIME if r[1].end is None else r[1].end for r in rows], dtype=np.int64)
            conf = np.array([r[3] for r in rows], dtype=np.float64)
            column = _one_key_column(rows, bulk)
            keys_all = [r[2] for r in rows]
            if bulk:
                ids = np.concatenate([ids] + [b[0] for b in bulk])
                vf = np.concatenate([vf] + [b[1] for b in bulk])
                vt = np.concatenate([vt] + [b[2] for b in bulk])
                conf = np.concatenate([conf] + [b[3] for b in bulk])
                if column is None:
                    for b in bulk:
                        keys_all.extend(b[4] if b[4] is not None else [None] * len(b[1]))
            # Sort by (args, valid_from, valid_to, confidence desc): keys are opaque and unordered.
            order = np.lexsort([-conf, vt, vf] + [ids[:, c] for c in range(arity - 1, -1, -1)])
            ids, vf, vt, conf = ids[order], vf[order], vt[order], conf[order]
            keys = column.take(order) if column is not None else [keys_all[i] for i in order.tolist()]
            if len(ids) > 1:
                same = np.all(ids[1:] == ids[:-1], axis=1) if arity else np.ones(len(ids) - 1, bool)
                same &= (vf[1:] == vf[:-1]) & (vt[1:] == vt[:-1])
                first = np.concatenate([[True], ~same])
                ids, vf, vt, conf = ids[first], vf[first], vt[first], conf[first]
                keys = keys.take(first) if isinstance(keys, KeyColumn) else \
                    [k for k, f in zip(keys, first.tolist()) if f]
            rel = Relation(arity, extra)
            # one interval for every row (a timeless input): stored once (relation._Column)
            meta = {"valid_from": _one_value(vf), "valid_to": _one_value(vt),
                    "rule": np.broadcast_to(np.int64(-1), (len(vf),))}
            if "prod" in extra:
                meta["prod"] = conf
            rel.append([ids[:, c] for c in range(arity)], **meta)
            out[rk] = InputRows(rel, keys if isinstance(keys, KeyColumn) else tuple(keys))
        return out


def _one_value(a: np.ndarray) -> np.ndarray:
    """``a`` as a stride-0 view of its first value when every value is that one, else ``a``."""
    return np.broadcast_to(a[:1], a.shape) if len(a) and bool((a == a[0]).all()) else a


def _one_key_column(rows: list, bulk: list) -> KeyColumn | None:
    """The relation's keys (the one-by-one facts' first, then the bulk parts', as its rows are
    concatenated) as one :class:`KeyColumn` when every bulk part came with a key column of the same
    decoder and tag and none has extra keys; otherwise None (keys are then one object per row)."""
    if not bulk:
        return None
    parts = [b[4] for b in bulk]
    first = parts[0]
    if not all(isinstance(k, KeyColumn) and k.decode is first.decode and k.tag is first.tag and not k.extra
               for k in parts):
        return None
    codes = [np.arange(-1, -1 - len(rows), -1, dtype=np.int64)] + [np.asarray(k.codes, dtype=np.int64) for k in parts]
    return KeyColumn(np.concatenate(codes), first.decode, first.tag, tuple(r[2] for r in rows))


__all__ = ["Database", "InputRows", "KeyColumn", "RelKey", "MIN_TIME"]
