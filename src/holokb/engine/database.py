"""The engine's input: facts per predicate with validity, an opaque key and a confidence.

Facts are collected first and encoded when the closure starts: new terms get ids in
``term_sort_key`` order and each relation's rows are sorted by their ids, so the same set of
facts (whatever order it was added in) always yields the same evaluation and the same output.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.terms import Term
from ..core.time import MAX_TIME, MIN_TIME, Interval
from .dictionary import TermDictionary
from .relation import Relation

RelKey = tuple[str, bool]  # (predicate IRI, negated): negative facts never share a relation


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

    def __len__(self) -> int:
        return sum(len(v) for v in self._facts.values())

    def add(self, predicate: str, args: tuple[Term, ...], *, valid: Interval | None = None,
            key: object = None, confidence: float = 1.0, negated: bool = False) -> None:
        """Add one fact; ``key`` is returned by proofs (e.g. the ledger fact id)."""
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must lie in [0, 1], got {confidence}")
        v = valid or Interval.always()
        self._facts.setdefault((predicate, negated), []).append((tuple(args), v, key, float(confidence)))

    def predicates(self) -> list[RelKey]:
        """Relation keys with input facts, sorted."""
        return sorted(self._facts)

    def encode(self, extra: tuple[str, ...] = (), all_valid: bool = False) -> dict[RelKey, InputRows]:
        """Intern all terms and build one sorted, deduplicated relation per predicate.

        Rows with equal args are one fact (the first in sort order wins) unless ``all_valid``,
        where rows with different validity intervals stay apart."""
        self.terms.intern_sorted(t for rows in self._facts.values() for r in rows for t in r[0])
        out: dict[RelKey, InputRows] = {}
        for rk in sorted(self._facts):
            rows = self._facts[rk]
            arity = len(rows[0][0])
            if any(len(r[0]) != arity for r in rows):
                raise ValueError(f"{rk[0]}: facts of different arities")
            ids = np.array([[self.terms.lookup(t) for t in r[0]] for r in rows], dtype=np.int64).reshape(len(rows), arity)
            vf = np.array([r[1].start for r in rows], dtype=np.int64)
            vt = np.array([MAX_TIME if r[1].end is None else r[1].end for r in rows], dtype=np.int64)
            conf = np.array([r[3] for r in rows], dtype=np.float64)
            # Sort by (args, valid_from, valid_to, confidence desc): keys are opaque and unordered.
            order = np.lexsort([-conf, vt, vf] + [ids[:, c] for c in range(arity - 1, -1, -1)])
            ids, vf, vt, conf = ids[order], vf[order], vt[order], conf[order]
            keys = [rows[i][2] for i in order.tolist()]
            if len(rows) > 1:
                same = np.all(ids[1:] == ids[:-1], axis=1) if arity else np.ones(len(rows) - 1, bool)
                if all_valid:
                    same &= (vf[1:] == vf[:-1]) & (vt[1:] == vt[:-1])
                first = np.concatenate([[True], ~same])
                ids, vf, vt, conf = ids[first], vf[first], vt[first], conf[first]
                keys = [k for k, f in zip(keys, first.tolist()) if f]
            rel = Relation(arity, extra)
            meta = {"valid_from": vf, "valid_to": vt, "rule": np.full(len(vf), -1, np.int64)}
            if "prod" in extra:
                meta["prod"] = conf
            rel.append([ids[:, c] for c in range(arity)], **meta)
            out[rk] = InputRows(rel, tuple(keys))
        return out


__all__ = ["Database", "InputRows", "RelKey", "MIN_TIME"]
