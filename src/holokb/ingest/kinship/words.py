"""Word classes and word-level helpers of the kinship reader: function words that bound a kinship
phrase, morphology tests (lemminflect) for modifiers, compound kinship words, and how a person shows."""
from __future__ import annotations

from functools import lru_cache

from .lexicon import KinshipLexicon, KinWord
from .story import Person, Unnamed
from .text import Kind, Tok

ARTICLES = frozenset({"the", "a", "an", "one", "own", "only", "other", "two", "three", "both"})
#: Words that open a new noun phrase ("a friend", "his neighbor"): a name given after one is that phrase's.
DETERMINERS = frozenset({"a", "an", "the", "his", "her", "their", "its", "my", "our", "your"})
BE = frozenset({"is", "was", "are", "were", "be", "been", "being", "'s"})
HAVE = frozenset({"has", "had", "have", "having"})
ADVERBS = frozenset({"also", "still", "now", "already", "just", "recently", "really", "actually", "truly",
                      "happily", "finally", "got", "even", "always", "never", "not"})
#: Words that end a run of modifiers in front of a kinship word (what is left is the determiner).
STOP = BE | HAVE | frozenset({"and", "or", "but", "of", "with", "to", "for", "from", "by", "at", "in", "on",
                                 "about", "that", "who", "whose", "which", "named", "called", "than", "as",
                                 "so", "because", "while", "when", "if", "then", "he", "she", "they", "him",
                                 "them", "it", "we", "i", "you", "visit", "see", "saw", "met", "took", "take"})
#: Words allowed between a kinship word and its holder's name ("his son, named [B]").
BRIDGE = frozenset({"named", "names", "called", "namely", "is", "was", "who", "whose", "name", "that", "he", "she",
                     "has", "had", "also", "by", "the", "of"})
SUBORDINATORS = frozenset({"while", "when", "after", "before", "as", "since", "although", "though", "because",
                           "once", "if", "until", "whenever"})
MODALS = frozenset({"could", "would", "should", "can", "will", "may", "might", "must", "did", "does", "do"})
NAMING = frozenset({"named", "called", "namely", "name", "names"})
#: Words that may open a main clause before its subject ("So [A] and her sister [B] …").
CONNECTIVES = frozenset({"so", "then", "and", "but", "later", "today", "yesterday", "meanwhile", "afterwards",
                          "eventually", "soon"})


def is_name(t: Tok | None) -> bool:
    return t is not None and t.kind is Kind.NAME


#: Function words a sentence may start with (morphology has no entry for them).
CLOSED = frozenset({"the", "a", "an", "and", "but", "or", "nor", "if", "so", "as", "his", "her", "their", "he", "she",
                     "they", "it", "we", "i", "you", "my", "our", "its", "your", "after", "before", "when", "while",
                     "since", "because", "although", "though", "once", "unless", "until", "on", "in", "at", "for",
                     "with", "to", "from", "of", "by", "about", "this", "that", "these", "those", "there", "here",
                     "who", "what", "which", "where", "why", "how", "every", "each", "all", "some", "no", "not",
                     "both", "either", "neither", "upon", "during", "without", "within", "into", "onto", "than", "despite"})


def is_unknown(p: Person) -> bool:
    return isinstance(p, str) and p.startswith("?")


@lru_cache(maxsize=65536)
def known_word(low: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(low))


@lru_cache(maxsize=65536)
def modifier(low: str) -> bool:
    """A word morphology knows as an adjective or adverb (also when it is a noun or verb too: "close",
    "once"), for the words of an apposition before a kinship word."""
    from lemminflect import getAllLemmas

    pos = getAllLemmas(low)
    return "ADJ" in pos or "ADV" in pos


def adjective(low: str) -> bool:
    """A word morphology knows as an adjective and not as a noun ("proud", "amazing"), or one of the
    adjectives that are also nouns seen before names ("lovely", "little")."""
    from lemminflect import getAllLemmas

    pos = getAllLemmas(low)
    return "ADJ" in pos and "NOUN" not in pos or low in ("lovely", "little")


def merge_compounds(toks: list[Tok], lex: KinshipLexicon) -> list[Tok]:
    """"grand parent" → grandparent, "first born" → firstborn, "father in law" → father-in-law (one
    kinship word): two words whose concatenation is a kinship word."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind is Kind.WORD and i + 1 < len(toks) and toks[i + 1].kind is Kind.WORD \
                and not lex.kin(t.low) and lex.kin(t.low + toks[i + 1].low):
            n = toks[i + 1]
            out.append(Tok(Kind.WORD, t.low + n.low, t.start, n.end))
            i += 2
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        prefix = lex.data.get("generation_prefix", {}).get(t.low) if t.kind is Kind.WORD else None
        if prefix and nxt is not None and nxt.kind is Kind.WORD and lex.kin(nxt.text) is not None \
                and lex.kin(nxt.text).relation in prefix:
            out.append(Tok(Kind.WORD, t.low + "-" + nxt.low, t.start, nxt.end))  # "great aunt": not an aunt
            i += 2
            continue
        if t.kind is Kind.WORD and i + 2 < len(toks) and toks[i + 1].is_word("in") and toks[i + 2].is_word("law", "laws") \
                and lex.kin(t.low + "-in-law"):
            out.append(Tok(Kind.WORD, t.low + "-in-law", t.start, toks[i + 2].end))
            i += 3
            continue
        out.append(t)
        i += 1
    return out


def through(p: Person, kin: KinWord) -> Unnamed:
    """The person ``kin`` of ``p`` names ("his sister" → Unnamed(his referent, (sibling,)))."""
    if isinstance(p, Unnamed):
        return Unnamed(p.anchor, p.path + (kin.relation,), kin.gender)
    return Unnamed(p, (kin.relation,), kin.gender)


def show_person(p: Person) -> str:
    return p if isinstance(p, str) else f"{p.anchor}'s " + "'s ".join(r.rsplit(":", 1)[-1] for r in p.path)
