"""Misspelt kinship words and copulas (ingest/kinship/typos.py): corrected only when certain."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from holokb.ingest.english.reading import describe_fact
from holokb.ingest.kinship import KinshipReader
from holokb.ingest.kinship.typos import one_edit

F, M = "female", "male"
ROWS = [
    ("[Ann] took her daugher [Bea] out.", {"Ann": F, "Bea": F}, ["child(Ann, Bea)"]),
    ("[Ann] is [Bob]'s granfather.", {"Ann": M}, ["grandparent(Bob, Ann)"]),
    ("[Ann] is [Bob]'s grandaughter.", {"Ann": F}, ["grandchild(Bob, Ann)"]),
    ("[Ann] us the daughter of [Bob].", {"Ann": F}, ["child(Bob, Ann)"]),
    ("[Ann] id [Bob]'s only child.", {"Ann": F}, ["child(Bob, Ann)"]),
    # not certain, or not a typo: left alone
    ("[Bob] nad a son [Carl].", {"Bob": M}, []),            # "had" or "and"
    ("[Ann] met her nice [Bea].", {"Ann": F}, []),           # "nice" is a word
    ("[Ann] us the best.", {"Ann": F}, []),                  # no kinship complement after it
    ("[Ann] in the kitchen with her son [Carl].", {"Ann": F}, ["child(Ann, Carl)"]),
    ("[Ann] told us the story of her son [Carl].", {"Ann": F}, ["child(Ann, Carl)"]),
    ("[Ann] met her sondra [Bea].", {"Ann": F}, []),         # two edits from anything
    # "is" for "his" where an object comes: after a verb or a preposition, before "<kinship word> [B]"
    ("[Dan] took is son [Bob] to the zoo.", {"Dan": M, "Bob": M}, ["child(Dan, Bob)"]),
    ("[Dan] went fishing with is uncle [Bob].", {"Dan": M, "Bob": M}, ["uncleOrAunt(Dan, Bob)"]),
    ("[Dan] is taking is son [Bob] camping.", {"Dan": M, "Bob": M}, ["child(Dan, Bob)"]),
    ("[Dan] is son of [Eve].", {"Dan": M, "Eve": F}, ["child(Eve, Dan)"]),
    ("[Dan] said it is son [Bob] who called.", {"Dan": M, "Bob": M}, []),   # "said" may take a clause
    ("[Dan] took is son to the zoo.", {"Dan": M}, []),                        # no name after the word
    ("The man she married is son [Bob].", {"Bob": M}, []),                     # nobody named for "his"
    ("[Bob] figured [Dan] did n't like being hid dad.", {"Bob": M, "Dan": M}, ["parent(Bob, Dan)"]),
    ("[Bob] saw that [Dan] hid dad's keys.", {"Bob": M, "Dan": M}, []),        # "hid" a verb: no "being"
    # "he" where an object comes, before "<kinship word> [B]": "her", one edit away ("his" is two)
    ("[Ann] is taking he son [Bob] to the park.", {"Ann": F, "Bob": M}, ["child(Ann, Bob)"]),
    ("[Ann] went shopping with he daughter [Bea].", {"Ann": F, "Bea": F}, ["child(Ann, Bea)"]),
    ("[Ann] said he son [Bob] was late.", {"Ann": F, "Bob": M}, []),          # "said" may take a clause
    ("[Ann] and he son [Bob] left.", {"Ann": F, "Bob": M}, []),                # no object slot after "and"
    # a word cut short between a possessive pronoun and a name: the one kinship word it begins
    ("[Dan] made his moth [Eve] a card.", {"Dan": M, "Eve": F}, ["parent(Dan, Eve)"]),
    ("[Dan] baked his broth [Bob] a cake.", {"Dan": M, "Bob": M}, ["sibling(Dan, Bob)"]),
    ("[Dan] took his gran [Eve] out.", {"Dan": M, "Eve": F}, []),             # grandma or grandmother …
    ("[Dan] saw a moth near [Eve].", {"Dan": M, "Eve": F}, []),               # not after a possessive
    ("[Dan] made his soup for [Eve].", {"Dan": M, "Eve": F}, []),             # begins no kinship word
    # "who's" before a kinship word: "whose" ("who is father is" is no English)
    ("[Kev] went out with [Tess], who's father is [Jim].", {"Tess": F, "Jim": M}, ["parent(Tess, Jim)"]),
    ("[Kev] went out with [Tess], who\u2019s father is [Jim].", {"Tess": F, "Jim": M}, ["parent(Tess, Jim)"]),
    ("[Ann] met [Bea], who's the daughter of [Carl].", {"Bea": F}, ["child(Carl, Bea)"]),   # "who is the …"
    ("[Ann] met [Bea], who's daughter of [Carl].", {"Bea": F}, ["child(Carl, Bea)"]),  # "who is daughter of"
    ("[Ann] met [Bea], who's happy.", {"Bea": F}, []),
]


@pytest.mark.parametrize("story,genders,expected", ROWS, ids=[r[0][:40] for r in ROWS])
def test_typo_rows(story, genders, expected):
    got = KinshipReader().read(story, genders)
    assert sorted(describe_fact(f) for f in got.facts) == sorted(expected)


def test_corrections_can_be_switched_off():
    assert KinshipReader(typos=False).read("[Ann] took her daugher [Bea] out.", {"Ann": F}).facts == ()
    assert KinshipReader(typos=False).read("[Ann] us the daughter of [Bob].", {}).facts == ()


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance (edits and adjacent swaps), by dynamic programming."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@settings(max_examples=30, deadline=None)
@given(st.text("abds", max_size=6), st.text("abds", max_size=6))
def test_one_edit_is_distance_one(a, b):
    assert one_edit(a, b) == (_distance(a, b) == 1) == one_edit(b, a)
