"""The answer path's retrieval (DS005 §5.3) ranked by the fused lanes of :mod:`holokb.retrieval`.

:class:`FusedRetriever` keeps the answer path's contract — every visible fact matching a request is
returned unless ``limit_facts`` cuts the list — by asking the structured baseline for the complete set,
and only changes the order: facts the fused search (BM25, structured, VSA lanes over the plan's
question) found come first, by their best fused rank (a fact hit's own rank, or the rank of a chunk
that evidences it), then the rest in the baseline's order.  So when the cap cuts, it keeps what the
lanes found relevant; when it does not, the answer is the baseline's.

>>> # kb.answer(question, as_of=..., retriever=FusedRetriever(kb.ledger))
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .answer.contract import AnswerLimit
from .answer.retrieve import Retrieval, RetrievalRequest, StructuredRetriever
from .core import AsOf, HolokbError
from .ledger import FactView, Ledger
from .ledger_search import LedgerSource
from .retrieval import HitKind, RetrievalProfile, load_profile, search
from .vsa import VSAConfig


@dataclass(frozen=True, slots=True)
class FusedRanks:
    """Best fused rank (0 = best) of the facts and of the chunks the search found."""

    facts: dict[str, int]
    chunks: dict[tuple[str, str], int]

    def of(self, v: FactView) -> int | None:
        """A fact's rank: its own, else the best rank of a chunk that evidences it."""
        best = self.facts.get(v.fact_id)
        for e in v.evidence:
            r = self.chunks.get((e.document, e.chunk or ""))
            if r is not None and (best is None or r < best):
                best = r
        return best


class FusedRetriever:
    """Complete retrieval per request, ordered by the fused search over the question (see module doc)."""

    def __init__(self, ledger: Ledger, profile: RetrievalProfile | None = None):
        self.profile = profile or load_profile("default")
        v = self.profile.vsa
        self.source = LedgerSource(ledger, VSAConfig.default(v.representation, dim=v.dim, seed=v.seed))
        self.baseline = StructuredRetriever()

    def rank(self, question: str | None, as_of: AsOf) -> FusedRanks:
        """The fused search's ranks for the question (empty without a usable question)."""
        facts: dict[str, int] = {}
        chunks: dict[tuple[str, str], int] = {}
        if not question:
            return FusedRanks(facts, chunks)
        try:
            result = search(self.source, question, as_of=as_of, profile=self.profile)
        except HolokbError:
            return FusedRanks(facts, chunks)  # an empty or overlong question: no lane signal
        for i, h in enumerate(result.hits):
            if h.kind is HitKind.FACT and h.fact is not None:
                facts.setdefault(h.fact.fact_id, i)
            elif h.chunk is not None:
                chunks.setdefault((h.chunk.document, h.chunk.chunk), i)
        return FusedRanks(facts, chunks)

    def retrieve(self, ledger: Ledger, request: RetrievalRequest) -> Retrieval:
        full = self.baseline.retrieve(ledger, replace(request, limit_facts=1 << 62))
        ranks = self.rank(request.question, request.as_of)
        order = {v.span_id: i for i, v in enumerate(full.facts)}

        def key(v: FactView) -> tuple:
            r = ranks.of(v)
            return (r is None, r if r is not None else 0, order[v.span_id])

        ranked = sorted(full.facts, key=key)
        if len(ranked) > request.limit_facts:
            return Retrieval(tuple(ranked[:request.limit_facts]), True, AnswerLimit.MAX_FACTS)
        return Retrieval(tuple(ranked))
