"""Retrieval and similarity over a ledger: the :class:`RetrievalSource` the lanes read, and ``similar``.

The seam between :mod:`holokb.ledger`/:mod:`holokb.vectors` and :mod:`holokb.retrieval` /
:mod:`holokb.vsa`, which know neither SQL nor files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .core import AsOf, Fact, IRI, Limits
from .ledger import FactView, Ledger
from .retrieval import ChunkRef, EvidenceRef, FactHit
from .vectors import DEFAULT_VECTORS, IndexInfo, VectorCache
from .vsa import FactRecord, Neighbour, UnknownEntityError, VSAConfig, VectorSpace
from .vsa.lexicon import TermLexicon


def evidence_refs(v: FactView) -> tuple[EvidenceRef, ...]:
    return tuple(EvidenceRef(ChunkRef(e.document, e.chunk or ""), e.confidence, e.asserted_at,
                             e.char_start is not None) for e in v.evidence)


def fact_of(r: FactRecord) -> Fact:
    return Fact(r.subject, r.predicate, r.object, (), "negate" if r.negated else "affirm")  # type: ignore[arg-type]


class LedgerSource:
    """The lanes' view of one ledger (BM25 via FTS5, aliases, visible facts, the vector space)."""

    def __init__(self, ledger: Ledger, config: VSAConfig, *, vectors: VectorCache | None = None):
        self.ledger = ledger
        self.config = config
        self.vectors = vectors or DEFAULT_VECTORS
        self._lexicons: dict[int, TermLexicon] = {}
        self.info: IndexInfo | None = None

    def bm25(self, query: str, limit: int) -> list[tuple[ChunkRef, float]]:
        return [(ChunkRef(h.document, h.chunk), h.score) for h in self.ledger.search_chunks(query, limit=limit)]

    def entities_by_alias(self, alias_norm: str) -> list[str]:
        return [e.value for e in self.ledger.entities_by_alias(alias_norm)]

    def facts_about(self, entity: str, as_of: AsOf, limit: int) -> list[FactHit]:
        iri = IRI(entity)
        lim = Limits(max_results=limit)
        views = list(self.ledger.facts(as_of, about=iri, limits=lim)) + list(self.ledger.facts(as_of, obj=iri, limits=lim))
        out: dict[str, FactHit] = {}
        for v in views:
            if v.fact_id not in out:
                out[v.fact_id] = FactHit(v.fact_id, v.fact, evidence_refs(v))
        return list(out.values())[:limit]

    def space(self, as_of: AsOf) -> VectorSpace:
        space, self.info = self.vectors.space(self.ledger, self.config, as_of)
        return space

    def lexicon(self, space: VectorSpace) -> TermLexicon:
        # Rebuilt when the space's fact set changed (keyed by identity and size; cheap next to encoding).
        key = id(space) ^ (len(space.records) << 32)
        lex = self._lexicons.get(key)
        if lex is None:
            lex = TermLexicon(t for r in space.records.values() for t in (r.subject, r.predicate, r.object))
            self._lexicons = {key: lex}
        return lex

    def vsa_facts(self, query: str, as_of: AsOf, limit: int) -> list[tuple[FactHit, float]]:
        space = self.space(as_of)
        terms = self.lexicon(space).lookup(query)
        if not terms or not space.records:
            return []
        floor = space.encoder.noise_floor()
        hits = space.similar_facts(space.term_query(terms), limit, above=floor)
        return [(self.fact_hit(space, h.key, as_of), h.score) for h in hits if h.score > floor]

    def fact_hit(self, space: VectorSpace, key: str, as_of: AsOf) -> FactHit:
        r = space.records[key]
        fact = fact_of(r)
        ev: tuple[EvidenceRef, ...] = ()
        if isinstance(r.subject, IRI) and isinstance(r.predicate, IRI):
            for v in self.ledger.facts(as_of, about=r.subject, predicate=r.predicate, obj=r.object,
                                       limits=Limits(max_results=None)):
                if v.fact_id == key:
                    ev += evidence_refs(v)
        return FactHit(key, fact, ev)


@dataclass(frozen=True, slots=True)
class SimilarEntity:
    """An entity close to the one asked about, with its similarity."""

    entity: IRI
    score: float


@dataclass(frozen=True, slots=True)
class SimilarFact:
    """A fact close to the entity's facts, with its similarity."""

    fact_id: str
    fact: Fact
    score: float


@dataclass(frozen=True, slots=True)
class Similar:
    """What ``similar`` found: entities or facts (best first, ties by key) and how the index was had."""

    entity: IRI
    entities: tuple[SimilarEntity, ...]
    facts: tuple[SimilarFact, ...]
    index: IndexInfo


def similar(source: LedgerSource, entity: IRI, *, as_of: AsOf, k: int, facts: bool = False) -> Similar:
    """The ``k`` entities (or facts) whose structure is closest to ``entity``'s at ``as_of``."""
    space = source.space(as_of)
    if not space.has_entity(entity):
        raise UnknownEntityError(f"unknown entity {entity.value}: no fact visible at this time mentions it")
    info = source.info
    assert info is not None
    if facts:
        hits: Sequence[Neighbour] = space.similar_facts(space.entity_facts_query(entity), k)
        found = tuple(SimilarFact(h.key, fact_of(space.records[h.key]), h.score) for h in hits)
        return Similar(entity, (), found, info)
    fresh = space.entities_fresh
    hits = space.similar_entities(entity, k)
    if not fresh:
        source.vectors.persist(source.ledger, space, as_of)
    return Similar(entity, tuple(SimilarEntity(IRI(h.key), h.score) for h in hits), (), info)
