"""The answer path over fused retrieval: the same answers as the baseline, and under a tight fact cap
the facts the lanes found relevant are the ones kept."""
from __future__ import annotations

import pytest

from holokb import AsOf, KnowledgeBase
from holokb.answer.answering import AnswerOptions
from holokb.answer.retrieve import FactRequest, RetrievalRequest, StructuredRetriever
from holokb.core import IRI, RDF_TYPE
from holokb.fused_retrieval import FusedRetriever

EX = "http://example.org/"
NOISE = " ".join(f"Person{i} is green." for i in range(30))


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    k = KnowledgeBase.open(tmp_path_factory.mktemp("fused") / "kb.db")
    k.ingest(NOISE, doc_id="a-noise", at=1000)
    # Last in source order, and the premise is about another entity than the question's subject.
    k.ingest("Bob is big. If Bob is big then the cat is red.", doc_id="zz-bob", at=1001)
    yield k
    k.close()


def test_fused_retrieval_returns_the_complete_set_in_another_order(kb):
    req = RetrievalRequest(AsOf.latest(), (FactRequest(IRI(RDF_TYPE)),), question="Is the cat red?")
    base = StructuredRetriever().retrieve(kb.ledger, req)
    fused = FusedRetriever(kb.ledger).retrieve(kb.ledger, req)
    assert sorted(v.span_id for v in fused.facts) == sorted(v.span_id for v in base.facts)
    assert fused.facts[0].fact.subject == IRI(EX + "Bob")
    assert base.facts[0].fact.subject != IRI(EX + "Bob")
    assert fused == FusedRetriever(kb.ledger).retrieve(kb.ledger, req)  # deterministic


def test_under_a_tight_cap_the_fused_order_keeps_the_answer(kb):
    tight = AnswerOptions(limit_facts=2)
    fused = kb.answer("The cat is red.", as_of=AsOf.latest(), options=tight, retriever=FusedRetriever(kb.ledger))
    base = kb.answer("The cat is red.", as_of=AsOf.latest(), options=tight)
    full = kb.answer("The cat is red.", as_of=AsOf.latest())
    assert (full.verdict.value, full.text) == ("supported", "Yes")
    assert (fused.verdict.value, fused.text) == ("supported", "Yes")
    assert base.text != "Yes"  # the baseline's order spends the cap on the noise
