"""Questions in controlled English → QueryPlan, and the planner and reader never raise on any text."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from holokb.answer.english_planner import EnglishPlanner
from holokb.answer.plan import AnswerForm, QueryPlan, Unplannable, World, YesWhen
from holokb.ingest.english import EnglishReader

EX = "http://example.org/"


@pytest.fixture(scope="module")
def planner() -> EnglishPlanner:
    return EnglishPlanner()


@pytest.mark.parametrize("text,subject,predicate,obj,polarity", [
    ("Bob is green.", "Bob", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "Green", "affirm"),
    ("Is Bob green?", "Bob", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "Green", "affirm"),
    ("Is the cat not big?", "cat", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "Big", "negate"),
    ("The bald eagle does not chase the dog.", "baldEagle", EX + "chases", "dog", "negate"),
    ("Does the cat chase the dog?", "cat", EX + "chases", "dog", "affirm"),
])
def test_yes_no_plans(planner, text, subject, predicate, obj, polarity):
    plan = planner.plan(text)
    assert isinstance(plan, QueryPlan)
    g = plan.goal
    assert (g.subject.term.value, g.predicate.term.value, g.object.term.value, g.polarity) == (
        EX + subject, predicate, EX + obj, polarity)
    assert plan.answer_form is AnswerForm.YES_NO and plan.world is World.OPEN


def test_ds005_judgement_question(planner):
    plan = planner.plan("If a user is inactive for 20 minutes in v2.0, is their session valid?")
    assert isinstance(plan, QueryPlan)
    assert plan.version == "2.0"
    assert plan.param("inactiveFor").lexical == "PT20M"
    assert plan.goal.predicate.term.value == EX + "expiresAfter"
    assert plan.check.yes_when is YesWhen.FAILS and plan.check.tests[0].op == ">"
    unversioned = planner.plan("If a user is inactive for 10 minutes, is their session valid?")
    assert unversioned.version is None and unversioned.param("inactiveFor").lexical == "PT10M"
    assert QueryPlan.from_json(plan.to_json()) == plan


@pytest.mark.parametrize("text", ["", "   ", "Blorp?", "x" * 5000, "Where is the the?", "If Bob, is?"])
def test_unplannable_questions_say_why(planner, text):
    assert isinstance(planner.plan(text), Unplannable)


_words = st.sampled_from(["Bob", "is", "not", "big", "the", "cat", "chases", "If", "then", "it", "and", "all",
                          "things", "are", "someone", ",", ".", "?", "v2.0", "15", "minutes", "At", "09:00",
                          "is", "either", "or", "'s", "does", "a", "mouse", "Mice", "afraid", "of"])


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(_words, max_size=14).map(" ".join)))
def test_reader_and_planner_never_raise(text):
    reader = _reader()
    got = reader.read(text)
    assert all(0 <= s.span.start <= s.span.end <= len(text) for s in got.skips)
    assert all(0 <= f.span.start <= f.span.end <= len(text) for f in got.facts)
    plan = EnglishPlanner(reader).plan(text)
    assert isinstance(plan, (QueryPlan, Unplannable))


_READER: list[EnglishReader] = []


def _reader() -> EnglishReader:
    if not _READER:
        _READER.append(EnglishReader())
    return _READER[0]
