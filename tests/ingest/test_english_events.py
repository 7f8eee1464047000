"""The reader's give events (three roles at the sentence's story instant) and object pronouns."""
from __future__ import annotations

from holokb.ingest.english import EnglishReader

EX = "http://example.org/"


def _facts(text: str):
    reading = EnglishReader().read(text, story_times=list(range(1, text.count("\n") + 2)))
    # event names are "event/<instant>/<digest of the role fillers>": keep the instant
    return reading, {(_event(f.fact.subject.value[len(EX):]), f.fact.predicate.value[len(EX):],
                      getattr(f.fact.object, "value", None), f.valid.start) for f in reading.facts}


def _event(local: str) -> str:
    return local.rsplit("/", 1)[0] if local.startswith("event/") else local


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


def test_two_stories_never_share_an_event():
    """Events at the same instant in different stories are different entities unless their roles are
    the same (a KB holding both must not join one story's giver with the other's thing)."""
    a, _ = _facts("Ida handed the pear to Jon.")
    b, _ = _facts("Kim received the fig.")
    c, _ = _facts("Ida handed the pear to Jon.")
    ev = [{f.fact.subject for f in r.facts if f.fact.subject.value.startswith(EX + "event/")} for r in (a, b, c)]
    assert len(ev[0]) == len(ev[1]) == 1 and ev[0] != ev[1] and ev[0] == ev[2]
