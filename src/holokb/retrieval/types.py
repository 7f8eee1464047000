"""What retrieval passes around: lanes, ranked lane output, fused hits, and the source it reads."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol, Sequence

from ..core.fact import Fact
from ..core.time import AsOf


class Lane(enum.Enum):
    """A retrieval lane: lexical BM25 over chunks, the structured (alias → facts → evidence) lane,
    and the vector-symbolic lane."""

    BM25 = "bm25"
    STRUCTURED = "structured"
    VSA = "vsa"


class HitKind(enum.Enum):
    CHUNK = "chunk"
    FACT = "fact"


@dataclass(frozen=True, slots=True, order=True)
class ChunkRef:
    """A chunk of a stored document (``chunk`` empty when evidence names only the document)."""

    document: str
    chunk: str


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    """What the lanes need of a piece of evidence: where it is, its confidence and assertion time."""

    where: ChunkRef
    confidence: float
    asserted_at: int | None
    has_span: bool


@dataclass(frozen=True, slots=True)
class FactHit:
    """A fact found by a lane, with its evidence (visible at the search's AsOf)."""

    fact_id: str
    fact: Fact
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True, slots=True)
class LaneResult:
    """One lane's ranked output: chunks and facts, best first, each with the lane's own score.

    An empty result is "no signal": fusion gives it no weight at all.
    """

    lane: Lane
    chunks: tuple[tuple[ChunkRef, float], ...] = ()
    facts: tuple[tuple[FactHit, float], ...] = ()

    @property
    def has_signal(self) -> bool:
        return bool(self.chunks or self.facts)


@dataclass(frozen=True, slots=True)
class LaneRank:
    """Where one lane ranked a hit (1 = best) and the lane's own score for it."""

    lane: Lane
    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One fused hit: a chunk or a fact, its fused score in [0, 1], and which lanes found it at what rank.

    The fused score is the weighted reciprocal-rank sum divided by the best sum any item could
    reach with the lanes that had a signal (so 1.0 = ranked first by every such lane).
    """

    kind: HitKind
    score: float
    lanes: tuple[LaneRank, ...]
    chunk: ChunkRef | None = None
    fact: FactHit | None = None

    @property
    def key(self) -> tuple:
        """The stable identity used for tie-breaks: kind, then document/chunk or fact id."""
        if self.chunk is not None:
            return (self.kind.value, self.chunk.document, self.chunk.chunk)
        assert self.fact is not None
        return (self.kind.value, self.fact.fact_id, "")


class CutReason(enum.Enum):
    """Why the fused list stopped before running out of hits."""

    MAX_RESULTS = "max_results"
    MIN_SCORE = "min_score"
    CONFIDENCE_GAP = "confidence_gap"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Fused hits in order (score desc, then kind, document/chunk or fact id), the lanes that had a
    signal, and where the list was cut."""

    query: str
    profile: str
    hits: tuple[SearchHit, ...]
    lanes: tuple[LaneResult, ...]
    cut: CutReason | None = None

    @property
    def truncated(self) -> bool:
        return self.cut is CutReason.MAX_RESULTS


class RetrievalSource(Protocol):
    """What the lanes read; :mod:`holokb.ledger_search` implements it over a ledger."""

    def bm25(self, query: str, limit: int) -> Sequence[tuple[ChunkRef, float]]:
        """Chunks by BM25, best first (ties: document, chunk)."""
        ...

    def entities_by_alias(self, alias_norm: str) -> Sequence[str]:
        """Entity keys with an alias whose normalised form is exactly ``alias_norm``, sorted."""
        ...

    def facts_about(self, entity: str, as_of: AsOf, limit: int) -> Sequence[FactHit]:
        """Visible facts with ``entity`` as subject or object, in the ledger's documented order."""
        ...

    def vsa_facts(self, query: str, as_of: AsOf, limit: int) -> Sequence[tuple[FactHit, float]]:
        """Facts nearest to the query's vector, best first (empty when no query word names a term)."""
        ...
