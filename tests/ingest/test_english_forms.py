"""The controlled-English reader, one row per sentence form (tests/ingest/english_forms.tsv)."""
from __future__ import annotations

from pathlib import Path

import pytest

from holokb.ingest.english import EnglishReader, SkipCode
from holokb.ingest.english.reading import describe, describe_fact

ROWS = [line.split("\t") for line in (Path(__file__).parent / "english_forms.tsv").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def reader() -> EnglishReader:
    return EnglishReader()


@pytest.mark.parametrize("sentence,expected", ROWS, ids=[r[0][:40] for r in ROWS])
def test_sentence_form(reader, sentence, expected):
    got = reader.read(sentence)
    assert sorted(describe(got)) == sorted(e.strip() for e in expected.split(" | "))
    whole = {(s.start, s.end) for s in got.sentences}
    for f in got.facts:  # every fact cites the whole sentence it came from
        assert (f.span.start, f.span.end) in whole
        assert len(whole) > 1 or sentence[f.span.start:f.span.end] == sentence.strip()
    for s in got.skips:  # and so does every refusal
        assert (s.span.start, s.span.end) in whole and sentence[s.span.start:s.span.end] == s.text


def test_every_sentence_of_kb_docs_is_read_or_a_reported_heading(reader):
    from holokb.resources import data_dir

    for doc in sorted((data_dir("kb") / "docs").glob("*.txt")):
        text = doc.read_text(encoding="utf-8")
        got = reader.read(text)
        assert all(s.code is SkipCode.NO_STATEMENT for s in got.skips), [(s.text, s.detail) for s in got.skips]
        cited = {(f.span.start, f.span.end) for f in got.facts} | {(s.span.start, s.span.end) for s in got.skips}
        assert cited == {(s.start, s.end) for s in got.sentences}, doc.name  # nothing silently dropped


def test_day_log_valid_times_follow_the_narrative(reader):
    from holokb.core import format_ms
    from holokb.resources import data_dir

    got = reader.read((data_dir("kb") / "docs" / "day-log.txt").read_text(encoding="utf-8"))
    alice = [(describe_fact(f), format_ms(f.valid.start), format_ms(f.valid.end)) for f in got.facts
             if "Alice" in describe_fact(f)]
    assert alice == [
        ("locatedIn(Alice, Lab)", "2026-01-01T09:00:00Z", "2026-01-01T12:30:00Z"),
        ("locatedIn(Alice, Cafeteria)", "2026-01-01T12:30:00Z", "2026-01-01T13:15:00Z"),
        ("locatedIn(Alice, Lab)", "2026-01-01T13:15:00Z", "2026-01-01T18:00:00Z"),
    ]


def test_spans_are_offsets_into_the_whole_text(reader):
    text = "Bob is big.  \n\nThe cat chases the dog. Blorp!"
    got = reader.read(text)
    assert [text[f.span.start:f.span.end] for f in got.facts] == ["Bob is big.", "The cat chases the dog."]
    assert [text[s.span.start:s.span.end] for s in got.skips] == ["Blorp!"]


@pytest.mark.parametrize("text,expected", [
    ("The bear is big. It is also red.", ["Big(bear)", "Red(bear)"]),
    ("Bob likes the cat. He is red.", ["likes(Bob, cat)", "Red(Bob)"]),
    ("The cat and the dog are big. They are red.", ["Big(cat)", "Big(dog)", "Red(cat)", "Red(dog)"]),
    # which one? refused, never guessed
    ("The bear sees the cat. It is red.", ["sees(bear, cat)", "skip:unresolved_reference"]),
    ("The cat and the dog are big. It is red.", ["Big(cat)", "Big(dog)", "skip:unresolved_reference"]),
    ("The bear is big. Zorp blick the of. It is red.", ["Big(bear)", "skip:unparsed", "skip:unresolved_reference"]),
    ("Round people are young. It is red.", ["Round(?x) -> Young(?x)", "skip:unsupported_form"]),
])
def test_a_pronoun_starting_a_sentence_is_the_one_subject_before_it(reader, text, expected):
    assert sorted(describe(reader.read(text))) == sorted(expected)
