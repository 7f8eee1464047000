"""Sentences whose parses mean different things are refused with their span; parses that mean the
same (or that the grammar's priorities rank) are read (holokb.ingest.english.parses)."""
from __future__ import annotations

import pytest

from holokb.ingest.english import EnglishReader, SkipCode
from holokb.ingest.english.meaning import Context
from holokb.ingest.english.reading import describe_fact

AMBIGUOUS = "If Bob likes the cat and the dog and the mouse is red then Bob is big."


@pytest.fixture(scope="module")
def reader() -> EnglishReader:
    return EnglishReader()


def test_an_ambiguous_sentence_is_refused_with_its_span_and_its_neighbours_are_read(reader):
    text = f"Bob is big. {AMBIGUOUS} The cat is red."
    got = reader.read(text)
    assert sorted(describe_fact(f) for f in got.facts) == ["Big(Bob)", "Red(cat)"]
    assert not got.rules
    [skip] = got.skips
    assert skip.code is SkipCode.AMBIGUOUS and "different readings" in skip.detail
    assert text[skip.span.start:skip.span.end] == AMBIGUOUS


def test_each_reading_of_the_ambiguous_sentence_is_a_parse_of_it(reader):
    # The refusal is not a parse failure: the sentence has (at least) two parses, and spelling out either
    # reading gives a sentence with one parse that is read.
    trees = reader.parse(reader.tokens(AMBIGUOUS))
    assert len(trees) == 2
    for text in ("If Bob likes the cat and Bob likes the dog and the mouse is red then Bob is big.",
                 "If Bob likes the cat and the dog is red and the mouse is red then Bob is big."):
        assert len(reader.parse(reader.tokens(text))) == 1
        got = reader.read(text)
        assert len(got.rules) == 1 and not got.skips


def test_parses_that_mean_the_same_are_one_reading(reader):
    # "is cold" (adjective or class noun) and "is not rough" (negated copula or negated adjective) parse
    # several ways; the reader folds them into one tree and reads the sentence.
    got = reader.read("Bob is cold. Fiona is not rough. The office is west of the garden.")
    assert not got.skips
    assert sorted(describe_fact(f) for f in got.facts) == ["Cold(Bob)", "not Rough(Fiona)", "westOf(office, garden)"]


def test_a_question_subject_runs_up_to_its_preposition(reader):
    # "Is the red square above the triangle?" is not "is the red square-above the triangle" (q_be_prep.1).
    m = reader.read_sentence("Is the red square above the triangle?", 0, Context(), questions=True)
    assert not hasattr(m, "code"), m
    [(p, _)] = m.props
    assert (p.subject.value.rsplit("/", 1)[-1], p.object.value.rsplit("/", 1)[-1]) == ("redSquare", "triangle")


def test_a_refused_sentence_leaves_no_context_behind(reader):
    ctx = Context()
    before = ctx.key()
    skip = reader.read_sentence(AMBIGUOUS, 0, ctx)
    assert skip.code is SkipCode.AMBIGUOUS and ctx.key() == before
