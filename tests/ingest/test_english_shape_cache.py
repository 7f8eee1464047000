"""Parse trees are shared by every reader of the grammar, keyed by the sentence's token types: a reader
that meets a shape first parsed for other words must read exactly what a reader with no cache reads."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from holokb.ingest.english import reader as english

NAMES = ["the bear", "the cat", "Bob", "Anne", "the young mouse"]
ADJECTIVES = ["red", "big", "round", "kind", "not green"]
VERBS = ["chases", "likes", "does not see", "visits"]

sentence = st.one_of(
    st.builds(lambda n, a: f"{n[0].upper()}{n[1:]} is {a}.", st.sampled_from(NAMES), st.sampled_from(ADJECTIVES)),
    st.builds(lambda n, v, m: f"{n[0].upper()}{n[1:]} {v} {m}.", st.sampled_from(NAMES), st.sampled_from(VERBS),
              st.sampled_from(NAMES)),
    st.builds(lambda a, b: f"If something is {a} then it is {b}.", st.sampled_from(ADJECTIVES),
              st.sampled_from(ADJECTIVES)),
)


def _cold_reading(text: str):
    shapes = english.EnglishReader()._shapes
    saved = dict(shapes)
    shapes.clear()
    try:
        return english.EnglishReader().read(text)
    finally:
        shapes.clear()
        shapes.update(saved)


@settings(max_examples=40, deadline=None)
@given(st.lists(sentence, min_size=1, max_size=6), st.lists(sentence, min_size=1, max_size=6))
def test_a_shared_parse_is_rebound_to_each_sentences_own_words(warm_up, sentences):
    english.EnglishReader().read(" ".join(warm_up))  # fills the shared cache with these shapes
    text = " ".join(sentences)
    assert english.EnglishReader().read(text) == _cold_reading(text)


def test_readers_of_one_grammar_share_their_parses():
    a, b = english.EnglishReader(), english.EnglishReader()
    a.read("The bear is red.")
    assert b._shapes is a._shapes and len(b._shapes) >= 1


def test_warm_shapes_parses_each_shape_once_across_processes():
    """warm_shapes fills the shape cache from a pool (each distinct shape once); readings after it are
    the readings a cold reader gives, and a second warm-up finds nothing left to parse."""
    from holokb.ingest.english import EnglishReader
    from holokb.ingest.english.reader import sentences, warm_shapes

    texts = ["The cat is big. Bob chases the cat. If something is big then it is not red.",
             "The dog is big. Anne chases the dog. Every dog is an animal. Blorp the zibble!"]
    reader = EnglishReader()
    reader._shapes.clear()
    cold = [reader.read(t) for t in texts]
    reader._shapes.clear()
    shapes = {tuple(w.type for w in reader.tokens(t[a:b], a)) for t in texts for a, b in sentences(t)}
    assert warm_shapes(reader, texts, 2) == len(shapes)
    assert warm_shapes(reader, texts, 2) == 1  # only "Blorp the zibble!", which does not parse, is tried again
    assert [reader.read(t) for t in texts] == cold
