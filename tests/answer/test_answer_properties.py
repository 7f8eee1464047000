"""Property tests: answers agree with a brute-force reference; no plan makes the answer path raise."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from answer_support import EX, Table
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.analysis.program import Atom, Const, Rule, Var
from holokb.answer import QueryPlan, Verdict
from holokb.core import AsOf, IRI
from holokb.ingest import ExtractedRule
from holokb.kb import KnowledgeBase

ENTITIES = ("a", "b", "c")
CLASSES = ("red", "round", "big", "small")
fact_st = st.tuples(st.booleans(), st.sampled_from(ENTITIES), st.sampled_from(CLASSES))
rule_st = st.tuples(st.lists(st.tuples(st.booleans(), st.sampled_from(CLASSES)), min_size=1, max_size=2),
                    st.tuples(st.booleans(), st.sampled_from(CLASSES)))


def reference(facts, rules):
    """Naive fixpoint over (polarity, entity, class)."""
    known = {(pos, e, c) for pos, e, c in facts}
    changed = True
    while changed:
        changed = False
        for body, (hpos, hc) in rules:
            for e in ENTITIES:
                if all((p, e, c) in known for p, c in body) and (hpos, e, hc) not in known:
                    known.add((hpos, e, hc))
                    changed = True
    return known


class Story(Table):
    """Facts from a table; rules given as IR, each cited by its own sentence."""

    def __init__(self, facts, rules):
        self.sentences = [f"S{i}." for i in range(len(facts) + len(rules))]
        meanings = {f"S{i}.": ("" if pos else "not ") + f"ex:is(ex:{e}, ex:{c})."
                    for i, (pos, e, c) in enumerate(facts)}
        super().__init__(meanings)
        x = Var("x")
        self.rules = [Rule(f"r{i}", Atom(EX + "is", (x, Const(IRI(EX + hc))), not hpos),
                           tuple(Atom(EX + "is", (x, Const(IRI(EX + c))), not p) for p, c in body))
                      for i, (body, (hpos, hc)) in enumerate(rules)]
        self.first_rule = len(facts)

    def text(self) -> str:
        return " ".join(self.sentences)

    def extract(self, document):
        for e in super().extract(document):
            text = document.text
            extra = []
            for k, r in enumerate(self.rules):
                s = self.sentences[self.first_rule + k]
                at = text.index(s)
                extra.append(ExtractedRule(r, at, at + len(s)))
            yield type(e)(e.chunk_id, e.sentences, e.facts, tuple(extra), (), ())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fact_st, min_size=1, max_size=6, unique=True), st.lists(rule_st, max_size=3),
       st.sampled_from(ENTITIES), st.sampled_from(CLASSES))
def test_yes_no_answers_match_a_brute_force_closure(facts, rules, entity, cls):
    """Yes / No / conflicting / unsupported as a naive fixpoint says; an answer whose own premise is
    contested is conflicting (DS005 §6.4), never supported."""
    story = Story(facts, rules)
    with tempfile.TemporaryDirectory() as d, KnowledgeBase.open(Path(d) / "kb.db") as kb:
        kb.ingest(story.text(), doc_id="s", at=1, extractor=story)
        known = reference(facts, rules)
        plan = QueryPlan.from_json({"goal": {"subject": f"ex:{entity}", "predicate": "ex:is", "object": f"ex:{cls}"}})
        if not any(e == entity for _, e, _ in facts):
            return  # an entity the text never names is an unknown name, not a verdict
        a = kb.answer(plan, as_of=AsOf.latest())
    pos, neg = (True, entity, cls) in known, (False, entity, cls) in known
    clashing = {(e, c) for p, e, c in known if p and (False, e, c) in known}

    def statement(entry) -> tuple[str, str]:
        return entry.fact.subject.value[len(EX):], entry.fact.object.value[len(EX):]

    if a.verdict is Verdict.CONFLICTING and not (pos and neg):
        # DS005 §6.4: a premise of the chain is itself contested ("b is round" rests on "b is not red",
        # and the KB also says "b is red"): conflicting, with that clash as the pair
        assert pos or neg
        for c in a.conflicts:
            assert statement(c.fact1) == statement(c.fact2) and statement(c.fact1) in clashing
            assert {c.fact1.fact.polarity, c.fact2.fact.polarity} == {"affirm", "negate"}
    elif pos and neg:
        assert a.verdict is Verdict.CONFLICTING
    elif pos:
        assert (a.verdict, a.text) == (Verdict.SUPPORTED, "Yes")
    elif neg:
        assert (a.verdict, a.text) == (Verdict.SUPPORTED, "No")
    else:
        assert a.verdict is Verdict.UNSUPPORTED
    if a.verdict is Verdict.SUPPORTED:
        # every premise quotes one of the story's sentences, and none is contested
        assert all(s.text in story.sentences for e in a.fact_chain for s in e.evidence + e.rule_evidence)
        assert not any(statement(e) in clashing for e in a.fact_chain if e.role.value == "premise")


names = st.text(alphabet="abcdefgh ?:<>_-", min_size=1, max_size=12)
term = st.one_of(names, st.integers(-3, 3), st.booleans(), st.just({"duration": "PT5M"}), st.just("ex:a"),
                 st.just("?v"), st.just("<http://example.org/b>"))
pattern = st.fixed_dictionaries({"predicate": term}, optional={"subject": term, "object": term,
                                                               "polarity": st.sampled_from(["affirm", "negate"])})
plan_st = st.fixed_dictionaries({}, optional={
    "goal": pattern, "predicates": st.lists(term, max_size=2), "subjects": st.lists(term, max_size=2),
    "form": st.sampled_from(["yesNo", "value", "list", "count", "path"]), "world": st.sampled_from(["open", "closed"]),
    "version": st.sampled_from(["v1", "v2"]), "params": st.dictionaries(st.sampled_from(["n", "m"]), st.integers(0, 9)),
    "time": st.sampled_from([{"kind": "end"}, {"kind": "at", "at": 5}]),
    "check": st.fixed_dictionaries({"tests": st.lists(st.fixed_dictionaries({
        "left": st.one_of(st.just({"param": "n", "unit": "minutes"}), st.just("?v"), st.integers(0, 3)),
        "op": st.sampled_from([">", "=", "<="]), "right": st.one_of(st.just("?v"), st.just({"duration": "PT3M"}))}),
        min_size=1, max_size=2)})})


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory):
    story = Story([(True, "a", "red"), (False, "b", "red"), (True, "a", "round")],
                  [([(True, "round")], (True, "big"))])
    with KnowledgeBase.open(tmp_path_factory.mktemp("fuzz") / "kb.db") as kb:
        kb.ingest(story.text(), doc_id="s", at=1, extractor=story)
        yield kb


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan_st)
def test_no_plan_makes_the_answer_path_raise(small_kb, data):
    from holokb.answer import PlanError

    try:
        plan = QueryPlan.from_json(data)
    except PlanError:
        return
    a = small_kb.answer(plan, as_of=AsOf.latest())
    assert (a.verdict is Verdict.UNSUPPORTED) == (a.missing is not None)
    a.to_json_text()
