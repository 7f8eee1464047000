"""Misspelt kinship words in crowd-written stories ("daugher", "granfather", "grandaughter").

A word is corrected only when it is certainly a typo of one kinship word: morphology (lemminflect's
lexicon) does not know it, exactly one word of the kinship lexicon (rules/kinship.toml ``[words]``, their
plurals, the possessive pronouns) is one edit away (a letter added, dropped, changed, or two neighbours
swapped), and no common function word is one edit away too ("nad" may be "had" or "and", "hs" may be
"is" or "as": not corrected).  Known words are never changed ("nice" is not "niece") but for one slip
of the copula: a two-letter word one edit from "is" that cannot follow a subject name ("us", "id") right
after a name and before a kinship complement ("[A] us the daughter of [B]", "[A] id [B]'s only
child"); and "is" where an object comes — after a verb or a preposition, before a kinship word and a
name ("[A] took is son [B]", "went fishing with is uncle [B]"), or "is" / "hid" after "being" and
before a kinship word ("did n't like being hid dad") — is "his"; "he" there is "her", the one
possessive one edit away ("[A] is taking he son [B]").  A word between a possessive pronoun
and a name that begins exactly one kinship word, four letters or more, was cut short ("his moth [B]":
mother).  "who's" before a kinship word is "whose" ("[T], who's father is [J]").  The reader keeps a
correction only when the corrected sentence states something.
"""
from __future__ import annotations

from functools import lru_cache

from lemminflect import getAllLemmas, getInflection

from .lexicon import KinshipLexicon
from .text import Kind, Tok

#: Function words a one-letter slip often comes from; a word one edit from any of them is left alone.
_FUNCTION = frozenset({"a", "an", "the", "and", "or", "but", "is", "was", "are", "were", "be", "has", "had", "have",
                       "as", "at", "in", "on", "of", "to", "for", "by", "with", "he", "she", "him", "his", "her",
                       "they", "them", "their", "it", "its", "who", "that", "this", "not", "so", "if", "did", "do",
                       "named", "name", "went", "got", "took", "saw", "met", "asked", "made", "said"})


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one insertion, deletion, substitution or adjacent swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1:]


#: Words one edit from "is" that may follow a name in a correct sentence ("[A] in the yard", "[A], as …").
_AFTER_NAME = frozenset({"in", "it", "if", "as", "his", "its", "i", "s", "ms"})


def correct(toks: list[Tok], lexicon: KinshipLexicon) -> list[Tok]:
    """The sentence's tokens with misspelt kinship words and a misspelt copula corrected (same spans)."""
    out = [correct_typo(t, lexicon) for t in toks]
    for k in range(1, len(out) - 1):
        t = out[k]
        if t.kind is Kind.WORD and len(t.text) == 2 and t.low not in _AFTER_NAME and one_edit(t.low, "is") \
                and out[k - 1].kind is Kind.NAME and _complement(out, k + 1, lexicon):
            out[k] = Tok(Kind.WORD, "is", t.start, t.end)
    for k in range(1, len(out) - 2):
        if out[k].is_word("is") and _object_slot(out[k - 1]) and out[k + 1].kind is Kind.WORD \
                and lexicon.kin(out[k + 1].text) is not None and out[k + 2].kind is Kind.NAME:
            out[k] = Tok(Kind.WORD, "his", out[k].start, out[k].end)  # "[A] took is son [B]", "with is uncle [B]"
        elif out[k].is_word("he") and _object_slot(out[k - 1]) and out[k + 1].kind is Kind.WORD \
                and lexicon.kin(out[k + 1].text) is not None and out[k + 2].kind is Kind.NAME:
            out[k] = Tok(Kind.WORD, "her", out[k].start, out[k].end)  # "[A] is taking he son [B]": one edit
        elif out[k].is_word("is", "hid") and out[k - 1].is_word("being") and out[k + 1].kind is Kind.WORD \
                and lexicon.kin(out[k + 1].text) is not None:
            out[k] = Tok(Kind.WORD, "his", out[k].start, out[k].end)  # "did n't like being hid dad"
    for k in range(1, len(out) - 1):
        t = out[k]
        if t.kind is Kind.WORD and out[k - 1].kind is Kind.WORD and out[k - 1].low in lexicon.pronouns \
                and out[k + 1].kind is Kind.NAME and lexicon.kin(t.text) is None:
            whole = _cut_short(t.low, lexicon)
            if whole is not None:
                out[k] = Tok(Kind.WORD, whole, t.start, t.end)  # "[A] made his moth [B] a gift"
    return _whose(out, lexicon)


def _whose(toks: list[Tok], lexicon: KinshipLexicon) -> list[Tok]:
    """"who's" before a kinship word is "whose" ("[T], who's father is [J]"): "who is father is" is no
    English, so the contraction cannot be meant; before "<word> of" it is ("who's daughter of [C]").
    One token for the two, over both spans."""
    out: list[Tok] = []
    k = 0
    while k < len(toks):
        t = toks[k]
        if t.is_word("who") and k + 2 < len(toks) and toks[k + 1].kind is Kind.POSS \
                and toks[k + 1].text[1:] == "s" and toks[k + 2].kind is Kind.WORD \
                and lexicon.kin(toks[k + 2].text) is not None and not (k + 3 < len(toks) and toks[k + 3].is_word("of")):
            out.append(Tok(Kind.WORD, "whose", t.start, toks[k + 1].end))
            k += 2
            continue
        out.append(t)
        k += 1
    return out


def _cut_short(low: str, lexicon: KinshipLexicon) -> str | None:
    """The one kinship word ``low`` (four letters or more) begins, for a word cut short between a
    possessive pronoun and a name, the place of a person ("his moth [B]": mother); else None."""
    if len(low) < 4:
        return None
    hits = [w for w in lexicon.words if w.startswith(low) and w != low and "-" not in w]
    return hits[0] if len(hits) == 1 else None


#: Prepositions after which a noun phrase, never a copula, comes ("went fishing with is uncle [B]").
_PREPOSITIONS = frozenset({"with", "to", "for", "from", "at", "by", "about", "without", "like"})


def _object_slot(prev: Tok) -> bool:
    """Whether the token before "is" takes an object there: a preposition, or a verb other than an
    auxiliary ("took", "taking", "visited"), so "is <kinship word> [B]" is a slip of "his"."""
    if prev.kind is not Kind.WORD:
        return False
    if prev.low in _PREPOSITIONS:
        return True
    if prev.low in _AUXILIARIES:
        return False
    return "VERB" in getAllLemmas(prev.low)


#: Verbs after which "is" may be a copula or an auxiliary ("what it has is son …" is not a slip).
_AUXILIARIES = frozenset({"is", "was", "are", "were", "be", "been", "being", "am", "has", "had", "have", "having",
                          "will", "would", "can", "could", "may", "might", "must", "shall", "should", "does", "do",
                          "did", "named", "name", "called", "said", "says", "think", "thinks", "thought"})


def _complement(toks: list[Tok], k: int, lexicon: KinshipLexicon) -> bool:
    """Whether a kinship complement starts at ``k``: "the / a / an …", "[B]'s …", up to a kinship word."""
    if toks[k].kind is Kind.NAME:
        k += 1
        if k >= len(toks) or toks[k].kind is not Kind.POSS:
            return False
    elif not toks[k].is_word("the", "a", "an"):
        return False
    end = min(len(toks), k + 5)
    return any(t.kind is Kind.WORD and lexicon.kin(t.text) is not None for t in toks[k + 1:end])


def correct_typo(tok: Tok, lexicon: KinshipLexicon) -> Tok:
    """``tok`` with a misspelt kinship word corrected (same span), else ``tok`` itself."""
    if tok.kind is not Kind.WORD or len(tok.text) < 3 or tok.text.isupper():
        return tok
    fixed = _correction(tok.text.lower(), lexicon)
    return tok if fixed is None else Tok(Kind.WORD, fixed, tok.start, tok.end)


@lru_cache(maxsize=65536)
def _correction(low: str, lexicon: KinshipLexicon) -> str | None:
    targets = _targets(lexicon)
    if low in targets or getAllLemmas(low) or any(one_edit(low, f) for f in _FUNCTION):
        return None
    hits = [w for w in targets if one_edit(low, w)]
    return hits[0] if len(hits) == 1 else None


@lru_cache(maxsize=4)
def _targets(lexicon: KinshipLexicon) -> frozenset[str]:
    out = set(lexicon.words) | set(lexicon.pronouns)
    for w in lexicon.words:
        if "-" not in w:
            out.update(getInflection(w, "NNS") or ())
    return frozenset(out)
