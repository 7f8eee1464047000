"""The kinship reader: crowd-written family stories with [bracketed] names → kinship facts with spans.

Each kinship word (rules/kinship.toml ``[words]``) states "<holder> is <possessor>'s <word>", i.e.
``relation(possessor, holder)``.  Who is who comes from the words around it:

- the possessor: ``[A]'s`` right before the word (adjectives may come between), a possessive pronoun
  (``his``/``her`` → the nearest name before it of that gender, from the record), or ``of [A]`` after it;
- the holder: the name right after the word (``, [B]``, ``named [B]``, ``called [B]``), else the
  subject of ``[B] is/was (the) <word> of`` / ``[B] is [A]'s <word>``.

A sentence with kinship words but no reading is a reported skip (``unsupported_form``); a sentence
with no kinship word states nothing about kinship (``no_statement``).
"""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from ..core import IRI, Fact, Interval
from ..resources import data_dir
from .english.lexicon import lemma
from .english.reading import ReadFact, Reading, ReadSkip, SkipCode, SourceSpan

_TOKEN = re.compile(r"\[(?P<name>[^\]\[]+)\]|(?P<poss>'s\b|')|(?P<word>[A-Za-z]+(?:-[A-Za-z]+)*)|(?P<punct>[,;:])")
_BE = frozenset({"is", "was", "are", "were", "'s"})
_LINK = frozenset({"named", "called", "is", "was"})
#: Crowd-written text: a sentence ends at . ! ? before a capital or a [name] (not inside "t.v. with").
_SENTENCE = re.compile(r"\S.*?(?:[.!?](?=\s+[A-Z\[\"']|\s*$)|$)", re.S)


def sentences(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each sentence of a story."""
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]


_SKIP = frozenset({"the", "a", "an", "own", "only", "one"})
_ADJ = frozenset({"proud", "cute", "lovely", "new", "little", "older", "younger", "big", "great", "dear", "beloved"})
_SUBJECT_PRONOUNS = {"he": "male", "she": "female"}


@lru_cache(maxsize=4)
def _lexicon(path: str) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


class KinshipReader:
    """Reads kinship statements; ``genders`` (name → male/female) resolves his/her."""

    def __init__(self, lexicon: str | Path | None = None):
        self.lex = _lexicon(str(lexicon or data_dir("rules") / "kinship.toml"))
        self.ns = self.lex.get("namespace", "http://example.org/")
        self.words: dict[str, tuple[str, str]] = {k: (v[0].replace("ex:", self.ns), v[1])
                                                  for k, v in self.lex["words"].items()}
        self.pronouns: dict[str, str] = self.lex.get("pronouns", {})
        self.pending: tuple[str, str] | None = None

    def entity(self, name: str) -> IRI:
        return IRI(self.ns + re.sub(r"\W+", "_", name.strip()))

    def kin(self, word: str) -> tuple[str, str] | None:
        low = word.lower()
        hit = self.words.get(low)
        if hit is None and low.endswith("s"):
            hit = self.words.get(lemma(low, "NOUN"))
        if hit is None and low in ("children", "grandchildren"):
            hit = self.words.get(low[:-3])
        return hit

    def read(self, text: str, genders: dict[str, str]) -> Reading:
        facts: list[ReadFact] = []
        skips: list[ReadSkip] = []
        spans: list[SourceSpan] = []
        last_names: list[str] = []
        pending = None
        for i, (a, b) in enumerate(sentences(text)):
            span = SourceSpan(a, b, i)
            spans.append(span)
            toks = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(text, a, b)]
            if pending is not None and len(toks) >= 4 and toks[0][0] == "word" and toks[0][1].lower() in self.pronouns \
                    and toks[1] == ("word", "name") and toks[2][0] == "word" and toks[2][1] in ("is", "was") \
                    and toks[3][0] == "name":
                rel, owner = pending
                facts.append(ReadFact(Fact(self.entity(owner), IRI(rel), self.entity(toks[3][1])), Interval.always(), span))
                pending = None
                last_names = [toks[3][1]]
                continue
            edges, has_kin = self._edges(toks, genders, last_names)
            pending = self.pending
            names = [v for k, v in toks if k == "name"]
            if names:
                last_names = names
            for rel, possessor, holder in edges:
                facts.append(ReadFact(Fact(self.entity(possessor), IRI(rel), self.entity(holder)), Interval.always(), span))
            if not edges:
                code = SkipCode.UNSUPPORTED if has_kin else SkipCode.NO_STATEMENT
                skips.append(ReadSkip(code, span, text[a:b], "kinship words but no reading" if has_kin
                                      else "no kinship statement"))
        return Reading(tuple(facts), (), tuple(skips), tuple(spans))

    def _edges(self, toks: list[tuple[str, str]], genders: dict[str, str], before: list[str]):
        out: list[tuple[str, str, str]] = []
        has_kin = False
        self.pending = None
        for i, (kind, val) in enumerate(toks):
            if kind != "word" or (k := self.kin(val)) is None:
                continue
            has_kin = True
            rel, _ = k
            possessor = self._possessor(toks, i, genders, before)
            holder = self._holder(toks, i)
            if possessor is None and i >= 1 and toks[i - 1] == ("word", "their") and holder is not None:
                # "[A] and [B] … their mother [C]": each of them
                owners = [v for kk, v in toks[:i] if kk == "name" and v != holder] or list(before)
                out.extend((rel, o, holder) for o in owners if o != holder)
                continue
            if possessor is not None and holder is None and all(t[0] != "name" for t in toks[i + 1:]):
                self.pending = (rel, possessor)  # "… with her son. His name is [Tom]."
            j = i + 1
            if possessor is None and j + 1 < len(toks) and toks[j] == ("word", "of"):
                m = j + 1
                while m < len(toks) and toks[m][0] == "word" and toks[m][1].lower() in _SKIP | _ADJ:
                    m += 1  # "the proud grandfather of the cute [Ronald]"
                if m < len(toks) and toks[m][0] == "name" and m - j <= 3:
                    possessor = toks[m][1]  # "[B] is the <word> of [A]"
                    holder = None
            if possessor is None and out:
                p = i - 1
                while p >= 0 and toks[p][0] == "word" and toks[p][1].lower() in _SKIP:
                    p -= 1
                if p >= 0 and toks[p] == ("word", "and"):
                    possessor = out[-1][1]  # "[A]'s daughter [B] and brother [C]": the same possessor
            if possessor is None and holder is None:
                continue
            if holder is None and possessor is not None:
                holder = self._subject_holder(toks, i)
            if possessor and holder and possessor != holder:
                out.append((rel, possessor, holder))
                for more in self._more_holders(toks, i, holder):  # "their parents [S] and [B]"
                    if more != possessor:
                        out.append((rel, possessor, more))
        return out, has_kin

    def _possessor(self, toks, i: int, genders: dict[str, str], before: list[str]) -> str | None:
        j = i - 1
        while j >= 0 and toks[j][0] == "word" and toks[j][1].lower() not in self.pronouns \
                and self.kin(toks[j][1]) is None and toks[j][1].lower() not in _BE | {"and", "of", "with", "to"}:
            j -= 1  # adjectives and articles between: "[A]'s lovely daughter"
            if i - j > 4:
                return None
        if j >= 1 and toks[j][0] == "poss" and toks[j - 1][0] == "name":
            return toks[j - 1][1]
        # "[A] has a son named [B]": the possessor is the subject of has/had
        k = i - 1
        while k >= 0 and toks[k][0] == "word" and toks[k][1].lower() in _SKIP | _ADJ:
            k -= 1
        if k >= 1 and toks[k][0] == "word" and toks[k][1].lower() in ("has", "had", "have"):
            b = k - 1
            if b >= 1 and toks[b][0] == "word" and toks[b][1].lower() in ("also", "still", "now", "already"):
                b -= 1
            if b >= 1 and toks[b] == ("punct", ","):
                b -= 1  # "[C], has a son named [J]"
            if toks[b][0] == "name":
                return toks[b][1]
            if toks[b][0] == "word" and toks[b][1].lower() in _SUBJECT_PRONOUNS:
                gender = _SUBJECT_PRONOUNS[toks[b][1].lower()]  # "…, and she also has a brother named [R]"
                names = [v for kk, v in toks[:b] if kk == "name"] or list(before)
                fitting = [n for n in names if genders.get(n) == gender]
                return fitting[-1] if fitting else None
        if j >= 0 and toks[j][0] == "word" and toks[j][1].lower() in self.pronouns:
            # his/her: the sentence's subject (its first name) of that gender, else the nearest such name
            gender = self.pronouns[toks[j][1].lower()]
            names = [v for k, v in toks[:j] if k == "name"] or list(before)
            holder = self._holder(toks, i)
            fitting = [n for n in names if genders.get(n) == gender and n != holder]
            return fitting[0] if fitting else None
        if k >= 0 and toks[k][0] == "word" and toks[k][1].lower() == "with" and self._holder(toks, i):
            names = [v for kk, v in toks[:k] if kk == "name"]  # "[A] is a girl with a grandmother named [B]"
            return names[0] if names else None
        return None

    def _more_holders(self, toks, i: int, first: str) -> list[str]:
        """Names coordinated with the holder of a plural kinship word ("parents [S] and [B]")."""
        if not toks[i][1].lower().endswith("s") and toks[i][1].lower() not in ("children", "grandchildren"):
            return []
        j = next((k for k in range(i + 1, len(toks)) if toks[k] == ("name", first)), None)
        out: list[str] = []
        while j is not None and j + 2 < len(toks) and toks[j + 1] in (("word", "and"), ("punct", ",")) \
                and toks[j + 2][0] == "name":
            out.append(toks[j + 2][1])
            j += 2
        return out

    def _holder(self, toks, i: int) -> str | None:
        j = i + 1
        while j < len(toks) and (toks[j][0] == "punct" and toks[j][1] == "," or
                                 toks[j][0] == "word" and toks[j][1].lower() in _LINK):
            j += 1
        if j < len(toks) and toks[j][0] == "name" and j - i <= 3:
            return toks[j][1]
        return None

    def _subject_holder(self, toks, i: int) -> str | None:
        """"[B] is [A]'s <word>" / "[B] is the <word> of [A]": the name before the copula; "[B],
        [A]'s <word>,": the name the phrase is in apposition to."""
        j = i - 1
        while j >= 0 and toks[j][0] == "word" and toks[j][1].lower() in _SKIP:
            j -= 1
        if j >= 3 and toks[j][0] == "poss" and toks[j - 1][0] == "name" and toks[j - 2] == ("punct", ",") \
                and toks[j - 3][0] == "name":
            return toks[j - 3][1]
        if j >= 2 and toks[j][0] == "word" and toks[j][1].lower() in self.pronouns and toks[j - 1] == ("punct", ",") \
                and toks[j - 2][0] == "name":
            return toks[j - 2][1]  # "[Anna] called [Angela], her sister,"
        if j >= 0 and toks[j][0] == "name" and i + 1 < len(toks) and toks[i + 1] == ("word", "of"):
            return toks[j][1]  # "[Matthew] the uncle of [Donna]"
        j = i - 1
        while j >= 0 and not (toks[j][0] == "word" and toks[j][1].lower() in ("is", "was", "being")):
            j -= 1
            if i - j > 6:
                return None
        if j >= 1 and toks[j - 1][0] == "name":
            return toks[j - 1][1]
        return None
