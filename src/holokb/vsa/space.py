"""Fact and entity vectors of one snapshot (the facts visible at one AsOf).

Facts are keyed by fact id.  An entity (an IRI that is the subject or object of a fact) is the
bundle of its facts encoded with the entity itself replaced by the SELF placeholder, so two
entities are close when they take part in the same kinds of facts with the same partners
("uses libindex", "a Tool"), whatever their own names.  Entity vectors are recomputed only for
entities whose facts changed (on the next entity query).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..core.errors import HolokbError
from ..core.terms import IRI, Term
from .codebook import Codebook
from .config import VSAConfig
from .encode import FactEncoder
from .index import Neighbour, VectorIndex


class UnknownEntityError(HolokbError):
    """``similar`` was asked about an entity that no visible fact mentions."""


@dataclass(frozen=True, slots=True)
class FactRecord:
    """A fact as the index sees it: key (fact id), subject, predicate, object, negated."""

    key: str
    subject: Term
    predicate: Term
    object: Term
    negated: bool = False


class VectorSpace:
    """Fact vectors, entity vectors and the queries over them, for one :class:`VSAConfig`."""

    def __init__(self, config: VSAConfig):
        self.config = config
        self.codebook = Codebook(config)
        self.encoder = FactEncoder(self.codebook)
        self.facts = VectorIndex(self.encoder)
        self.entities = VectorIndex(self.encoder, capacity=256)
        self.records: dict[str, FactRecord] = {}
        self._members: dict[IRI, set[str]] = {}
        self._dirty: set[IRI] = set()

    # -- changes ------------------------------------------------------------------------------------

    def add(self, records: Sequence[FactRecord]) -> int:
        """Add (or replace) facts; returns how many keys were new."""
        records = [r for r in dict((r.key, r) for r in records).values()]
        if not records:
            return 0
        new = sum(1 for r in records if r.key not in self.records)
        vecs = self.encoder.encode([r.subject for r in records], [r.predicate for r in records],
                                   [r.object for r in records], [r.negated for r in records])
        self.facts.add([r.key for r in records], vecs)
        for r in records:
            old = self.records.get(r.key)
            if old is not None:
                self._unlink(old)
            self.records[r.key] = r
            for e in _entities_of(r):
                self._members.setdefault(e, set()).add(r.key)
                self._dirty.add(e)
        return new

    def remove(self, keys: Iterable[str]) -> int:
        """Remove facts by key; returns how many were present."""
        gone = [self.records.pop(k) for k in keys if k in self.records]
        self.facts.remove([r.key for r in gone])
        for r in gone:
            self._unlink(r)
        return len(gone)

    def _unlink(self, r: FactRecord) -> None:
        for e in _entities_of(r):
            m = self._members.get(e)
            if m is not None:
                m.discard(r.key)
                if not m:
                    del self._members[e]
                self._dirty.add(e)

    def restore(self, records: Sequence[FactRecord], keys: Sequence[str], vectors: np.ndarray,
                entity_keys: Sequence[str] = (), entity_vectors: np.ndarray | None = None) -> int:
        """Fill an empty space from cached vectors, checked against ``records`` (the facts visible
        now): cached vectors of current facts are reused (a fact's vector depends only on its
        content, i.e. its id), missing ones are encoded, cached ones no longer visible are dropped.
        Cached entity vectors are used only when the cached facts are exactly the current ones.
        Returns how many facts had to be encoded."""
        if self.records:
            raise ValueError("restore needs an empty space")
        current = {r.key: r for r in records}
        cached = {k: i for i, k in enumerate(keys)}
        reuse = sorted(k for k in current if k in cached)
        if reuse:
            self.facts.add(reuse, vectors[[cached[k] for k in reuse]])
        for r in current.values():
            for e in _entities_of(r):
                self._members.setdefault(e, set()).add(r.key)
        self.records = dict(current)
        missing = [current[k] for k in sorted(current) if k not in cached]
        if missing:
            vecs = self.encoder.encode([r.subject for r in missing], [r.predicate for r in missing],
                                       [r.object for r in missing], [r.negated for r in missing])
            self.facts.add([r.key for r in missing], vecs)
        same = not missing and len(reuse) == len(cached)
        if same and entity_vectors is not None and set(entity_keys) == {e.value for e in self._members}:
            self.entities.add(list(entity_keys), entity_vectors)
        else:
            self._dirty = set(self._members)
        return len(missing)

    @property
    def entities_fresh(self) -> bool:
        """Whether every entity vector is up to date (nothing to recompute)."""
        return not self._dirty

    # -- entities -----------------------------------------------------------------------------------

    def has_entity(self, entity: IRI) -> bool:
        return entity in self._members

    def entity_vector(self, entity: IRI) -> np.ndarray:
        self.refresh_entities()
        if entity.value not in self.entities:
            raise UnknownEntityError(f"no visible fact mentions {entity.value}")
        return self.entities.vector(entity.value)

    def refresh_entities(self) -> None:
        """Recompute the vectors of entities whose facts changed since the last entity query."""
        if not self._dirty:
            return
        dirty = sorted(self._dirty, key=lambda e: e.value)
        self._dirty.clear()
        gone = [e.value for e in dirty if e not in self._members]
        self.entities.remove(gone)
        live = [e for e in dirty if e in self._members]
        for lo in range(0, len(live), 512):
            part = live[lo:lo + 512]
            self.entities.add([e.value for e in part], self._entity_vectors(part))

    def _entity_vectors(self, entities: Sequence[IRI]) -> np.ndarray:
        s, p, o, neg, bounds = [], [], [], [], [0]
        for e in entities:
            for key in sorted(self._members[e]):
                r = self.records[key]
                s.append(_placeholder(r.subject, e))
                p.append(r.predicate)
                o.append(_placeholder(r.object, e))
                neg.append(r.negated)
            bounds.append(len(s))
        vecs = self.encoder.encode(s, p, o, neg)
        return np.stack([self.encoder.bundle(vecs[bounds[i]:bounds[i + 1]], tiebreak=e)
                         for i, e in enumerate(entities)])

    # -- queries ------------------------------------------------------------------------------------

    def similar_entities(self, entity: IRI, k: int) -> tuple[Neighbour, ...]:
        """Entities whose facts have the closest structure to ``entity``'s (itself excluded)."""
        q = self.entity_vector(entity)
        return self.entities.search(q, k, exclude=(entity.value,))

    def entity_facts_query(self, entity: IRI) -> np.ndarray:
        """A query close to ``entity``'s own facts and to facts sharing their parts."""
        keys = sorted(self._members.get(entity, ()))
        if not keys:
            raise UnknownEntityError(f"no visible fact mentions {entity.value}")
        return self.encoder.bundle(self.facts.vectors(keys), tiebreak=entity)

    def similar_facts(self, query: np.ndarray, k: int, *, exclude: Iterable[str] = ()) -> tuple[Neighbour, ...]:
        return self.facts.search(query, k, exclude=exclude)

    def term_query(self, terms: Sequence[Term]) -> np.ndarray:
        return self.encoder.term_query(terms)


def _entities_of(r: FactRecord) -> list[IRI]:
    return [t for t in dict.fromkeys((r.subject, r.object)) if isinstance(t, IRI)]


def _placeholder(t: Term, entity: IRI) -> Term:
    return _SELF if t == entity else t


#: Stands for "the entity itself" in its own facts (an IRI no KB uses: the codebook hashes it).
_SELF = IRI("urn:holokb:vsa:self")
