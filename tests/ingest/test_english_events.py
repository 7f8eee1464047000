"""The reader's give events (three roles at the sentence's story instant) and object pronouns."""
from __future__ import annotations

from holokb.ingest.english import EnglishReader

EX = "http://example.org/"


def _facts(text: str):
    reading = EnglishReader().read(text, story_times=list(range(1, text.count("\n") + 2)))
    return reading, {(f.fact.subject.value[len(EX):], f.fact.predicate.value[len(EX):],
                      getattr(f.fact.object, "value", None), f.valid.start) for f in reading.facts}


def test_give_and_receive_are_one_kind_of_event():
    _, facts = _facts("Ida handed the pear to Jon.\nJon received the fig from Ida.")
    assert {("event/1", "giver", EX + "Ida", 1), ("event/1", "given", EX + "pear", 1),
            ("event/1", "recipient", EX + "Jon", 1)} <= facts
    assert {("event/2", "recipient", EX + "Jon", 2), ("event/2", "given", EX + "fig", 2),
            ("event/2", "giver", EX + "Ida", 2)} <= facts
    assert ("Jon", "carries", EX + "fig", 2) in facts


def test_object_pronoun_is_never_its_clause_subject():
    """"Then he gave it to Jon.": "it" is the thing taken before, not "he"; without an object before
    it the sentence is skipped, never read as giving the giver away."""
    reading, facts = _facts("Ida took the pear.\nIda went to the barn.\nThen she gave it to Jon.")
    assert ("event/3", "given", EX + "pear", 3) in facts and not reading.skips
    reading, facts = _facts("Ida went to the barn.\nThen she gave it to Jon.")
    assert not any(p == "given" for _, p, _, _ in facts)
    assert [s.text for s in reading.skips] == ["Then she gave it to Jon."]
