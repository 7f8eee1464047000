"""Sentences and tokens of a crowd-written family story, with exact character offsets.

Crowd-written text drops periods and spaces: "... her mother [Myrna] [Myrna] has ...", "... his son
[Elliott] dearly.Brandon shared ...", "... to dinner [Dwight] took his son ...".  A sentence therefore
also ends between two bracketed names with only spaces between them, at a period glued to a capital
word, and before a name that follows a noun-only word when a verb follows the name (morphology says
which words can be verbs: lemminflect's lexicon, not a word list).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Callable


class Kind(str, Enum):
    NAME = "name"      # [Bracketed] entity
    POSS = "poss"      # 's, ' (possessive marker)
    WORD = "word"
    PUNCT = "punct"    # , ; : ( ) and sentence-final marks inside a sentence


@dataclass(frozen=True, slots=True)
class Tok:
    kind: Kind
    text: str          # the name without brackets, or the word as written
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()

    def is_word(self, *words: str) -> bool:
        return self.kind is Kind.WORD and self.text.lower() in words


_TOKEN = re.compile(r"\[(?P<name>[^\]\[]+)\]|(?P<poss>[’']s\b|[’'](?=\s|[A-Za-z]))|(?P<word>[A-Za-z]+(?:-[A-Za-z]+)*)"
                    r"|(?P<punct>[,;:()!?.])")
_END = re.compile(r"[.!?]+(?=\s+[A-Z\[\"'(]|\s*$)|(?<=[a-z]{2})\.(?=[A-Z][a-z])|\](?=\s+\[)"
                  r"|(?<=[a-z]{2})(?=\s+(?:He|She|They|His|Her|Their)\s)")


def tokens(text: str, start: int, end: int) -> list[Tok]:
    out = []
    for m in _TOKEN.finditer(text, start, end):
        k = m.lastgroup
        if k == "name":
            out.append(Tok(Kind.NAME, m.group("name").strip(), m.start(), m.end()))
        elif k == "poss":
            out.append(Tok(Kind.POSS, m.group(), m.start(), m.end()))
        elif k == "word":
            out.append(Tok(Kind.WORD, m.group(), m.start(), m.end()))
        else:
            out.append(Tok(Kind.PUNCT, m.group(), m.start(), m.end()))
    return out


def sentences(text: str, names_a_person: Callable[[str], bool] = lambda w: False) -> list[tuple[int, int]]:
    """``[start, end)`` of each sentence of a story (trimmed of surrounding space); a word for which
    ``names_a_person`` holds ("brother") never ends a sentence before a name."""
    cuts = [0]
    for m in _END.finditer(text):
        if text[m.start()] == "]" and _complement_follows(text, m.start()):
            continue
        cuts.append(m.end())
    cuts.append(len(text))
    spans: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:]):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            spans.extend(_split_run_on(text, a, b, names_a_person))
    return spans


_OBJECT_THEN_POSSESSIVE = re.compile(r"\s+\[[^\]\[]+\][’']s\b")
_WORD_BEFORE_NAME = re.compile(r"([A-Za-z]+)\s+\[[^\]\[]+$")


def _complement_follows(text: str, end: int) -> bool:
    """"… which makes [Michael] [Marci]'s uncle": an object and its complement, one sentence — two
    names in a row are cut apart unless the first follows a verb that takes an object complement
    (make, call, consider: lemminflect's lemma) and the second owns a noun."""
    if not _OBJECT_THEN_POSSESSIVE.match(text, end + 1):
        return False
    start = text.rfind("[", 0, end)
    m = _WORD_BEFORE_NAME.search(text, max(0, start - 40), end)
    if m is None:
        return False
    return complement_verb(m.group(1).lower())


@lru_cache(maxsize=4096)
def complement_verb(word: str) -> bool:
    """Whether ``word`` is a form of a verb whose object takes a noun complement (make, call, …)."""
    from lemminflect import getAllLemmas

    return any(lem in _COMPLEMENT_VERBS for lem in getAllLemmas(word).get("VERB", ()))


#: Verbs whose object takes a noun complement ("makes [A] [B]'s uncle", "calls [A] her son").
_COMPLEMENT_VERBS = frozenset({"make", "call", "consider", "name", "declare"})


def _split_run_on(text: str, a: int, b: int, names_a_person: Callable[[str], bool]) -> list[tuple[int, int]]:
    """Cut "... to dinner [Dwight] took his son ..." before the name: a noun-only word, the name, a verb."""
    toks = tokens(text, a, b)
    out = []
    start = a
    for i in range(1, len(toks) - 1):
        t, prev, nxt = toks[i], toks[i - 1], toks[i + 1]
        if t.kind is Kind.NAME and prev.kind is Kind.WORD and prev.text.islower() and nxt.kind is Kind.WORD \
                and nxt.text.islower() and noun_only(prev.low) and finite_verb(nxt.low) and t.start > start \
                and not _possessed(toks, i - 1) and not names_a_person(prev.low) \
                and prev.low not in ("that", "which", "who", "whom", "than"):  # "… dreamed that [B] was …"
            out.append((start, prev.end))
            start = t.start
        elif t.kind is Kind.NAME and names_a_person(prev.low) and t.start > start and _predicate_before(toks, i) \
                and nxt.kind is not Kind.POSS:
            # "[L] is [B]'s grandmother [J] is frustrated …": L holds the word, so [J] opens the next sentence
            out.append((start, prev.end))
            start = t.start
    out.append((start, b))
    return out


_BE = frozenset({"is", "was"})


def _predicate_before(toks: list[Tok], i: int) -> bool:
    """Whether the tokens before ``i`` are "[X] is [Y]'s (modifiers) <word>", with nothing after the word."""
    return i >= 5 and toks[0].kind is Kind.NAME and toks[1].kind is Kind.WORD and toks[1].low in _BE \
        and toks[2].kind is Kind.NAME and toks[3].kind is Kind.POSS \
        and all(t.kind is Kind.WORD for t in toks[4:i])


_POSSESSIVE = frozenset({"his", "her", "their", "my", "your", "our", "its"})


def _possessed(toks: list[Tok], i: int) -> bool:
    """"his friend [Bob] took …": the noun belongs to someone, so the name is in apposition to it."""
    for k in range(i - 1, max(-1, i - 4), -1):
        t = toks[k]
        if t.kind is Kind.POSS or t.kind is Kind.WORD and t.low in _POSSESSIVE:
            return True
        if t.kind is not Kind.WORD:
            return False
    return False


@lru_cache(maxsize=65536)
def noun_only(word: str) -> bool:
    """A word morphology knows only as a noun ("dinner", "world"; not "store", which is also a verb)."""
    from lemminflect import getAllLemmas

    pos = set(getAllLemmas(word))
    return pos == {"NOUN"}


@lru_cache(maxsize=65536)
def finite_verb(word: str) -> bool:
    """A past-tense or third-person verb form ("took", "likes", "is"), which can start a predicate."""
    from lemminflect import getAllLemmas, getInflection

    lemmas = getAllLemmas(word).get("VERB") or getAllLemmas(word).get("AUX")
    if not lemmas:
        return False
    lem = lemmas[0]
    forms = set(getInflection(lem, tag="VBD") or ()) | set(getInflection(lem, tag="VBZ") or ())
    return word in forms
