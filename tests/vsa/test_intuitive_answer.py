"""Answers over the candidate set the index proposes agree with answers over complete retrieval."""
from __future__ import annotations

import pytest

from holokb import AsOf, KnowledgeBase
from holokb.answer import Verdict
from holokb.intuition import LoopSettings, LoopStop, Strategy

STORY = ("Bob is big. Bob is round. The cat chases Bob. If someone is big and round then they are kind. "
         "If someone chases Bob then they are red. Anne is not kind. If something is kind then it is not cold.")
NOISE = " ".join(f"Person{i} is green. Person{i} is quiet. Person{i} likes the dog." for i in range(25))
QUESTIONS = ["Bob is kind.", "Bob is cold.", "The cat is red.", "Anne is kind.", "Bob is not cold.", "Dave is big.",
             "Person3 is green."]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    k = KnowledgeBase.open(tmp_path_factory.mktemp("pw") / "kb.db")
    k.ingest(STORY, doc_id="story", at=1000)
    k.ingest(NOISE, doc_id="noise", at=1001)
    yield k
    k.close()


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("strategy", ["hdc", "hrr"])
def test_the_same_verdict_as_complete_retrieval_on_fewer_facts(kb, question, strategy):
    base = kb.answer_with_intuition(question, as_of=AsOf.latest(), settings=LoopSettings(Strategy.NONE))
    got = kb.answer_with_intuition(question, as_of=AsOf.latest(),
                                   settings=LoopSettings(Strategy(strategy), initial=4, step=4, max_rounds=8))
    assert (got.answer.verdict, got.answer.text) == (base.answer.verdict, base.answer.text)
    if got.stop is LoopStop.DECIDED:
        assert got.candidates < got.kb_facts / 4 and got.answer.fact_chain
    assert len(got.rounds) >= 1 and got.rounds == tuple(sorted(got.rounds))


def test_the_known_answers(kb):
    s = LoopSettings(Strategy.HDC, initial=4, step=4)
    texts = {q: kb.answer_with_intuition(q, as_of=AsOf.latest(), settings=s).answer.text for q in QUESTIONS[:4]}
    assert texts == {"Bob is kind.": "Yes", "Bob is cold.": "No", "The cat is red.": "Yes", "Anne is kind.": "No"}


@pytest.mark.parametrize("third", [
    # the same statement denied: the final check reads every (Bob, rdf:type) fact from the ledger
    "Bob is not big.",
    # young -> round -> not big: the negation needs facts and rules the first candidate does not bring
    "Round people are not big. Bob is young. Young people are round.",
])
def test_a_clash_outside_the_candidate_set_is_never_answered_from_the_subset(tmp_path, third):
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.ingest("Bob is big. Bob is round.", doc_id="a", at=1000)
        kb.ingest(NOISE, doc_id="noise", at=1001)
        kb.ingest(third, doc_id="b", at=1002)
        base = kb.answer_with_intuition("Bob is big.", as_of=AsOf.latest(), settings=LoopSettings(Strategy.NONE))
        got = kb.answer_with_intuition("Bob is big.", as_of=AsOf.latest(),
                                       settings=LoopSettings(Strategy.HDC, initial=1, step=1, max_rounds=1))
        assert base.answer.verdict is Verdict.CONFLICTING
        assert got.answer.verdict is Verdict.CONFLICTING
