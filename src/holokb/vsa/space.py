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
from .codebook import Codebook, TermTable
from .config import VSAConfig
from .encode import FactEncoder
from .index import Neighbour, VectorIndex
from .structure import Components


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
    """Fact vectors, entity vectors and the queries over them, for one :class:`VSAConfig`.

    Terms are numbered once (:class:`TermTable`); each fact row carries its components' term ids, so
    an entity's facts are found through the index's postings (no per-entity sets to keep) and queries
    carry their components for the structural search (structure.py)."""

    def __init__(self, config: VSAConfig):
        self.config = config
        self.codebook = Codebook(config)
        self.encoder = FactEncoder(self.codebook)
        self.facts = VectorIndex(self.encoder)
        self.entities = VectorIndex(self.encoder, capacity=256)
        self.records: dict[str, FactRecord] = {}
        self.terms = TermTable()
        self._self_id = int(self.terms.ids([_SELF])[0])
        self._dirty: set[int] = set()
        self._all_dirty = False
        # HRR: every term's codebook bits by term id (dim/8 bytes a term), for scoring from term ids.
        self._words = np.zeros((0, config.dim // 64), dtype=np.uint64)
        self._words_n = 0

    def _term_words(self) -> np.ndarray | None:
        """The codebook bits of every numbered term (HRR; None for HDC, whose terms are too wide to keep)."""
        if self.encoder.hdc:
            return None
        have, need = self._words_n, len(self.terms)
        if need > have:
            if need > len(self._words):
                grown = np.empty((max(need, 2 * len(self._words)), self._words.shape[1]), dtype=np.uint64)
                grown[:have] = self._words[:have]
                self._words = grown
            self._words[have:need] = self.codebook.words(self.terms.terms[have:need], cache=False)
            self._words_n = need
        return self._words

    # -- changes ------------------------------------------------------------------------------------

    def add(self, records: Sequence[FactRecord]) -> int:
        """Add (or replace) facts; returns how many keys were new."""
        records = list(dict((r.key, r) for r in records).values())
        if not records:
            return 0
        known = self.records
        new = sum(1 for r in records if r.key not in known) if known else len(records)
        replaced = [known[r.key] for r in records if r.key in known] if new < len(records) else []
        comps = self._components(records)
        if replaced:
            self._touch(self._components(replaced))
            vecs, norms = self.encoder.encode_ids(comps, self.terms.terms, words=self._term_words())
            self.facts.add([r.key for r in records], vecs, comps, norms)
        else:  # all new: encoded straight into the index's rows
            words = self._term_words()
            self.facts.append([r.key for r in records], comps,
                              lambda out, lengths: self.encoder.encode_ids(comps, self.terms.terms, out, lengths, words))
        known.update((r.key, r) for r in records)
        self._touch(comps)
        return new

    def remove(self, keys: Iterable[str]) -> int:
        """Remove facts by key; returns how many were present."""
        gone = [self.records.pop(k) for k in keys if k in self.records]
        if gone:
            self.facts.remove([r.key for r in gone])
            self._touch(self._components(gone))
        return len(gone)

    def _components(self, records: Sequence[FactRecord]) -> np.ndarray:
        ids = self.terms.ids
        neg = np.fromiter((r.negated for r in records), dtype=bool, count=len(records))
        return np.stack([ids([r.subject for r in records]), ids([r.predicate for r in records]) * 2 + neg,
                         ids([r.object for r in records])], axis=1)

    def _touch(self, comps: np.ndarray) -> None:
        """Entity vectors of the subjects and objects of these facts are stale."""
        if not self._all_dirty:
            self._dirty.update(np.unique(comps[:, [0, 2]]).tolist())

    def restore(self, records: Sequence[FactRecord], keys: Sequence[str], vectors: np.ndarray,
                entity_keys: Sequence[str] = (), entity_vectors: np.ndarray | None = None,
                norms: np.ndarray | None = None) -> int:
        """Fill an empty space from cached vectors, checked against ``records`` (the facts visible
        now): cached vectors of current facts are reused (a fact's vector depends only on its
        content, i.e. its id), missing ones are encoded, cached ones no longer visible are dropped.
        Cached entity vectors are used only when the cached facts are exactly the current ones.
        HRR vectors are reused only with their cached lengths (``norms``).  Returns how many facts
        had to be encoded."""
        if self.records:
            raise ValueError("restore needs an empty space")
        current = {r.key: r for r in records}
        cached = {k: i for i, k in enumerate(keys)} if (norms is not None or self.encoder.hdc) else {}
        reuse = sorted(k for k in current if k in cached)
        if reuse:
            at = [cached[k] for k in reuse]
            self.facts.add(reuse, vectors[at], self._components([current[k] for k in reuse]),
                           None if norms is None else norms[at])
        self.records = dict(current)
        missing = [current[k] for k in sorted(current) if k not in cached]
        if missing:
            comps = self._components(missing)
            vecs, fresh_norms = self.encoder.encode_ids(comps, self.terms.terms, words=self._term_words())
            self.facts.add([r.key for r in missing], vecs, comps, fresh_norms)
        same = not missing and len(reuse) == len(keys)
        if same and entity_vectors is not None and set(entity_keys) == {e.value for e in self._entity_terms()}:
            self.entities.add(list(entity_keys), entity_vectors)
        else:
            self._all_dirty = True
        return len(missing)

    @property
    def entities_fresh(self) -> bool:
        """Whether every entity vector is up to date (nothing to recompute)."""
        return not self._dirty and not self._all_dirty

    # -- entities -----------------------------------------------------------------------------------

    def _entity_terms(self) -> list[IRI]:
        """Every IRI that a visible fact has as subject or object."""
        n = len(self.facts._keys)
        live = self.facts._comp[:n][self.facts._alive[:n]]
        terms = self.terms.terms
        return [terms[i] for i in np.unique(live[:, [0, 2]]).tolist()  # type: ignore[misc]
                if i != self._self_id and isinstance(terms[i], IRI)]

    def _member_keys(self, tid: int) -> list[str]:
        """Keys of the visible facts with term ``tid`` as subject or object, sorted."""
        ids = np.asarray([tid], dtype=np.int64)
        return sorted(set(self.facts.rows_with(0, ids)) | set(self.facts.rows_with(2, ids)))

    def has_entity(self, entity: IRI) -> bool:
        tid = self.terms.get(entity)
        return tid is not None and tid != self._self_id and bool(self._member_keys(tid))

    def entity_vector(self, entity: IRI) -> np.ndarray:
        self.refresh_entities()
        if entity.value not in self.entities:
            raise UnknownEntityError(f"no visible fact mentions {entity.value}")
        return self.entities.vector(entity.value)

    def refresh_entities(self) -> None:
        """Recompute the vectors of entities whose facts changed since the last entity query."""
        if self._all_dirty:
            dirty_ids = sorted(set(range(len(self.terms))) - {self._self_id})
        elif self._dirty:
            dirty_ids = sorted(self._dirty - {self._self_id})
        else:
            return
        self._dirty.clear()
        self._all_dirty = False
        candidates = [(self.terms.terms[i], i) for i in dirty_ids if isinstance(self.terms.terms[i], IRI)]
        live = {i for _t, i in candidates if self._member_keys(i)}
        gone = [t.value for t, i in candidates if i not in live and t.value in self.entities]  # type: ignore[union-attr]
        self.entities.remove(gone)
        fresh = sorted((t for t, i in candidates if i in live), key=lambda e: e.value)  # type: ignore[union-attr]
        for lo in range(0, len(fresh), 512):
            part = fresh[lo:lo + 512]
            self.entities.add([e.value for e in part], self._entity_vectors(part))  # type: ignore[union-attr]

    def _entity_vectors(self, entities: Sequence[IRI]) -> np.ndarray:
        s, p, o, neg, bounds = [], [], [], [], [0]
        for e in entities:
            for key in self._member_keys(self.terms.get(e)):  # type: ignore[arg-type]
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

    def entity_facts_query(self, entity: IRI) -> Query:
        """A query close to ``entity``'s own facts and to facts sharing their parts."""
        tid = self.terms.get(entity)
        keys = self._member_keys(tid) if tid is not None else []
        if not keys:
            raise UnknownEntityError(f"no visible fact mentions {entity.value}")
        vector = self.encoder.bundle(self.facts.vectors(keys), tiebreak=entity)
        comps = self.facts._comp[[self.facts._row[k] for k in keys]]
        return self._query(vector, [np.unique(comps[:, r]) for r in range(3)])

    def term_query(self, terms: Sequence[Term]) -> Query:
        """A query close to every fact that mentions any of ``terms`` in any role."""
        vector = self.encoder.term_query(terms)
        ids = np.unique(self.terms.ids(terms))  # numbering a term no fact has is harmless: no postings
        return self._query(vector, [ids, ids * 2, ids])

    def _query(self, vector: np.ndarray, per_role: list[np.ndarray]) -> Query:
        role = np.concatenate([np.full(len(ids), r, dtype=np.int8) for r, ids in enumerate(per_role)])
        ids = np.concatenate(per_role).astype(np.int64)
        weight = self.encoder.component_weights(vector, role, ids, self.terms.terms)
        words = self._term_words()
        dots = None if words is None else self.encoder.term_dots(vector, words)
        return Query(vector, Components(role, ids, weight, dots))

    def similar_facts(self, query: Query | np.ndarray, k: int, *, exclude: Iterable[str] = (),
                      above: float | None = None) -> tuple[Neighbour, ...]:
        """The ``k`` facts nearest to ``query``; with ``above``, hits scoring below it may be left out."""
        if isinstance(query, Query):
            return self.facts.search(query.vector, k, exclude=exclude, components=query.components, above=above)
        return self.facts.search(query, k, exclude=exclude, above=above)


@dataclass(frozen=True, slots=True)
class Query:
    """A query vector and the components it was built from (what the structural search needs)."""

    vector: np.ndarray
    components: Components


def _placeholder(t: Term, entity: IRI) -> Term:
    return _SELF if t == entity else t


#: Stands for "the entity itself" in its own facts (an IRI no KB uses: the codebook hashes it).
_SELF = IRI("urn:holokb:vsa:self")
