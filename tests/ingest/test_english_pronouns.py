"""A sentence-initial pronoun refers back only when gender and number agree with its one candidate
(lexicon [genders]; a name's gender is what the text gave it: "Bob is a man.", or a pronoun already
resolved to it); disagreement or several candidates is refused (unresolved_reference), never guessed."""
from __future__ import annotations

import pytest

from holokb.ingest.english import EnglishReader
from holokb.ingest.english.reading import describe_fact, describe_rule

ROWS = [
    ('Bob is big. He is red.', 'Big(Bob) | Red(Bob)'),
    ('Bob is a man. He is red.', 'Man(Bob) | Red(Bob)'),
    ('Bob is a man. She is red.', 'Man(Bob) | skip:unresolved_reference'),
    ('Bob is big. He is red. She is kind.', 'Big(Bob) | Red(Bob) | skip:unresolved_reference'),
    ('Mary is a woman. She is red.', 'Woman(Mary) | Red(Mary)'),
    ('The bear is big. It is red.', 'Big(bear) | Red(bear)'),
    ('The bear is big. He is red.', 'Big(bear) | skip:unresolved_reference'),
    ('The man is big. He is red.', 'Big(man) | Red(man)'),
    ('The man is big. It is red.', 'Big(man) | skip:unresolved_reference'),
    ('The woman is big. He is red.', 'Big(woman) | skip:unresolved_reference'),
    ('Bob is big. They are red.', 'Big(Bob) | skip:unresolved_reference'),
    ('Bob and Dave are big. They are red.', 'Big(Bob) | Big(Dave) | Red(Bob) | Red(Dave)'),
    ('Cats are big. They are red.', 'Cat(?x) -> Big(?x) | Cat(?x) -> Red(?x)'),
    ('Cats are big. It is red.', 'Cat(?x) -> Big(?x) | skip:unresolved_reference'),
    ('A cat is big. It is red.', 'Cat(?x) -> Big(?x) | Cat(?x) -> Red(?x)'),
    ('The cat and the dog are big. He is red.', 'Big(cat) | Big(dog) | skip:unresolved_reference'),
]


@pytest.fixture(scope="module")
def reader() -> EnglishReader:
    return EnglishReader()


@pytest.mark.parametrize("text,expected", ROWS, ids=[r[0][:48] for r in ROWS])
def test_pronoun_agreement(reader, text, expected):
    got = reader.read(text)
    readings = [describe_fact(f) for f in got.facts] + [describe_rule(r) for r in got.rules]
    readings += [f"skip:{s.code.value}" for s in got.skips]
    assert sorted(readings) == sorted(e.strip() for e in expected.split(" | "))
    for s in got.skips:  # a refusal names the pronoun's sentence by its exact span
        assert text[s.span.start:s.span.end] == s.text and s.text.split()[0] in ("He", "She", "It", "They")

