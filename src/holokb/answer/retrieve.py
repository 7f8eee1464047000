"""Candidate retrieval for answering (DS005 §5.3), behind the :class:`Retriever` protocol.

Derivation asks for facts by :class:`FactRequest` (predicate, optional subject, optional object)
and reasons over what comes back, so a retriever's contract is **completeness up to the cap**:
every fact visible at the AsOf that matches a request (and passes the version filter) is
returned unless ``limit_facts`` cuts the ranked list, and then ``truncated`` is set.  Other lanes
(BM25, vectors, fusion — ``holokb.retrieval``) may add facts and change the ranking; they may not
silently drop requested facts, because a missing premise can turn a proof into a wrong "No".

Version filter (DS005 §4.4 rule 1): with a version, a fact whose ``version`` qualifier differs is
dropped; a fact without a ``version`` qualifier is version-independent and stays.

Ranking (deterministic): predicate named by the plan first, then subject named by the plan,
higher confidence (max over evidence), source order (document, chunk, character start), fact
id, span id.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..core.limits import Limits
from ..core.terms import IRI, Literal, Term
from ..core.time import AsOf
from ..ledger import FactView, Ledger
from .contract import AnswerLimit


@dataclass(frozen=True, slots=True)
class FactRequest:
    """All visible facts of ``predicate`` (with this subject / object when given)."""

    predicate: IRI
    subject: IRI | Literal | None = None
    object: Term | None = None


@dataclass(frozen=True, slots=True)
class RetrievalRequest:
    """What to retrieve, with the plan's ranking hints and caps."""

    as_of: AsOf
    requests: tuple[FactRequest, ...]
    predicates: tuple[IRI, ...] = ()
    subjects: tuple[Term, ...] = ()
    version: str | None = None
    limit_facts: int = 10_000
    question: str | None = None


@dataclass(frozen=True, slots=True)
class Retrieval:
    """Ranked candidate facts; ``truncated`` when ``limit_facts`` cut the list."""

    facts: tuple[FactView, ...]
    truncated: bool = False
    limit_hit: AnswerLimit | None = None


class Retriever(Protocol):
    """Finds candidate facts for a plan (see the module docstring for the contract)."""

    def retrieve(self, ledger: Ledger, request: RetrievalRequest) -> Retrieval: ...


def version_of(v: FactView) -> str | None:
    for k, t in v.fact.qualifiers:
        if k == "version" and isinstance(t, Literal):
            return t.lexical
    return None


def rank_key(v: FactView, predicates: frozenset[IRI], subjects: frozenset[Term]) -> tuple:
    conf = max((e.confidence for e in v.evidence), default=1.0)
    src = min(((e.document, e.chunk or "", e.char_start if e.char_start is not None else -1) for e in v.evidence),
              default=("\uffff", "", 0))
    return (v.fact.predicate not in predicates, v.fact.subject not in subjects, -conf, src, v.fact_id, v.span_id)


class StructuredRetriever:
    """The DS005 §5.3 baseline: ledger lookups per request, version filter, ranking, cap."""

    def retrieve(self, ledger: Ledger, request: RetrievalRequest) -> Retrieval:
        seen: dict[str, FactView] = {}
        for r in request.requests:
            subject = r.subject if isinstance(r.subject, IRI) else None
            if r.subject is not None and subject is None:
                continue  # a literal subject never matches a stored fact
            page = ledger.facts(request.as_of, about=subject, predicate=r.predicate, obj=r.object,
                                limits=Limits(max_results=None))
            for v in page:
                if request.version is not None:
                    ver = version_of(v)
                    if ver is not None and ver != request.version:
                        continue
                seen.setdefault(v.span_id, v)
        preds, subs = frozenset(request.predicates), frozenset(request.subjects)
        ranked = sorted(seen.values(), key=lambda v: rank_key(v, preds, subs))
        if len(ranked) > request.limit_facts:
            return Retrieval(tuple(ranked[:request.limit_facts]), True, AnswerLimit.MAX_FACTS)
        return Retrieval(tuple(ranked))
