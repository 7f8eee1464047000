"""Tokens of controlled English with exact character spans, typed by the lexicon and by morphology.

Closed-class words come from the lexicon's ``[closed]`` table; every other word gets a terminal that
names the parts of speech morphology allows for it (``W_NV``: lower case, noun or verb), so the
grammar can place open words without a hand-written word list.  Morphology is lemminflect's
(lemmas and inflections from a lexicon built for the job; unknown words fall back to its rules).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from lark import Token
from lark.lexer import Lexer

from ...resources import data_dir

_TOKEN = re.compile(r"""
    (?P<TIME>\d{1,2}:\d{2}(?![\d:]))
  | (?P<DATE>\d{4}-\d{2}-\d{2}(?!\d))
  | (?P<VERSION>[vV]\d+(?:\.\d+)*(?!\w|\.\d))
  | (?P<NUMBER>\d+(?:\.\d+)?(?!\w|\.\d))
  | (?P<ID>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Za-z]+\d+[A-Za-z0-9]*)
  | (?P<NOT>n't(?![A-Za-z])|[Nn]on-(?=[A-Za-z]))
  | (?P<BE>'(?:re|m)(?![A-Za-z]))
  | (?P<POSS>'s?(?![A-Za-z]))
  | (?P<WORD>[A-Za-z]+(?=n't(?![A-Za-z]))|[A-Za-z]+(?:-[A-Za-z]+)*)
  | (?P<COMMA>,)
  | (?P<COLON>:)
  | (?P<PERIOD>[.;])
  | (?P<EXCL>!)
  | (?P<QMARK>\?)
  | (?P<SPACE>\s+)
""", re.X)


#: Words after which "'s" is "is" ("it's red"), never a possessive.
_IS_AFTER = frozenset({"it", "he", "she", "that", "there", "what", "who", "everyone", "everything", "someone",
                       "something", "nobody", "nothing"})


@dataclass(frozen=True, slots=True)
class Word:
    """One token: terminal type, text, ``[start, end)`` offsets into the text it came from."""

    type: str
    text: str
    start: int
    end: int


class LexError(ValueError):
    """A character no token starts with; ``pos`` is its offset."""

    def __init__(self, pos: int, char: str):
        super().__init__(f"unexpected character {char!r} at offset {pos}")
        self.pos = pos
        self.char = char


@dataclass(frozen=True)
class Lexicon:
    """The closed-class words, units and vocabulary tables of one or more lexicon files."""

    closed: dict[str, str]
    units: dict[str, str]
    namespace: str
    tables: dict[str, dict] = field(default_factory=dict)

    @staticmethod
    def load(paths: tuple[Path, ...] = ()) -> "Lexicon":
        """The shipped lexicon (grammar/english.toml) extended by ``paths`` (later files win)."""
        return _load(tuple(str(p) for p in paths))

    def table(self, name: str) -> dict:
        return self.tables.get(name, {})

    def expand(self, name: str) -> str:
        """``ex:foo`` → the namespace's IRI; full IRIs pass through."""
        if name.startswith("ex:"):
            return self.namespace + name[3:]
        return name

    def tokens(self, text: str, offset: int = 0) -> list[Word]:
        """The tokens of ``text`` (offsets shifted by ``offset``); raises :class:`LexError`."""
        out: list[Word] = []
        pos = 0
        text = text.replace("\u2019", "'")  # a typographic apostrophe ("isn’t"): one character for one
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise LexError(offset + pos, text[pos])
            kind = m.lastgroup
            s = m.group()
            if kind == "WORD":
                kind = self.word_type(s)
                if not out and kind.startswith("C_") and text[m.end():].lstrip(" ").startswith(",") \
                        and (_adverb_only(s.lower()) or s.lower() in self.table("openers").get("words", ())):
                    kind = "CONNECTIVE"  # "Sadly, the cat is ill.": not a name in a list of subjects
            elif kind == "POSS" and s == "'s" and out and out[-1].text.lower() in _IS_AFTER:
                kind = "BE"  # "it's", "he's", "that's": the copula, not a possessive
            if s.lower() == "single" and out and out[-1].type == "EVERY":
                kind = "SPACE"  # "every single cat": every cat (not the class Single)
            elif kind == "_ADV" and out and out[-1].type in ("_ADV", "AND", "A"):
                # "is also quite young", "green and also kind", "a rather big person": it adds nothing
                kind = "SPACE"
            elif kind == "ALTHOUGH" and out and out[-1].text.lower() == "even":
                out.pop()  # "even though": though
            if kind != "SPACE":
                out.append(Word(kind, s, offset + m.start(), offset + m.end()))
            pos = m.end()
        return out

    def word_type(self, word: str) -> str:
        low = word.lower()
        closed = self.closed.get(low)
        if closed is not None:
            return closed
        if lemma(low, "NOUN") in self.units and not word[0].isupper():
            return "UNIT"
        if low.endswith("ly") and not word[0].isupper() and _adverb_only(low):
            return "ADVLY"  # "quickly", "definitely": no form reads an adverb the lexicon does not list
        return ("C_" if word[0].isupper() else "W_") + pos_flags(low)


@lru_cache(maxsize=None)
def _load(paths: tuple[str, ...]) -> Lexicon:
    closed: dict[str, str] = {}
    units: dict[str, str] = {}
    tables: dict[str, dict] = {}
    namespace = ""
    for p in (str(data_dir("grammar") / "english.toml"),) + paths:
        with open(p, "rb") as f:
            data = tomllib.load(f)
        namespace = data.get("namespace", namespace)
        closed.update(data.get("closed", {}))
        units.update(data.get("units", {}))
        for k, v in data.items():
            if isinstance(v, dict) and k not in ("closed", "units"):
                tables.setdefault(k, {}).update(v)
    return Lexicon(closed, units, namespace, tables)


@lru_cache(maxsize=65536)
def pos_flags(low: str) -> str:
    """``A``/``N``/``V`` (sorted) for the parts of speech lemminflect knows for a word, else ``X``."""
    from lemminflect import getAllLemmas

    tags = getAllLemmas(low)
    flags = set()
    for t in tags:
        if t in ("ADJ", "ADV"):
            flags.add("A")
        elif t in ("NOUN", "PROPN"):
            flags.add("N")
        elif t in ("VERB", "AUX"):
            flags.add("V")
    if "V" in flags and low.endswith("ed"):
        flags.add("A")  # a past participle also works as an adjective: "Yann is bored."
    return "".join(sorted(flags)) or "X"


@lru_cache(maxsize=65536)
def _adverb_only(low: str) -> bool:
    """Whether morphology knows ``low`` only as an adverb ("sadly", "therefore"; not "today", a noun too)."""
    from lemminflect import getAllLemmas

    return set(getAllLemmas(low)) == {"ADV"}


@lru_cache(maxsize=65536)
def lemma(word: str, upos: str) -> str:
    """The lemma of ``word`` as part of speech ``upos`` (NOUN, VERB, ADJ); unknown words by rule."""
    from lemminflect import getLemma

    low = word.lower()
    got = getLemma(low, upos=upos, lemmatize_oov=True)
    return got[0] if got else low


@lru_cache(maxsize=65536)
def is_plural(word: str) -> bool:
    """Whether ``word`` is a plural noun form ("mice", "cats"; not "sheep" read as singular)."""
    from lemminflect import getAllLemmas, getInflection

    low = word.lower()
    nouns = getAllLemmas(low).get("NOUN")
    if not nouns:
        return low.endswith("s") and not low.endswith("ss") and pos_flags(low) == "X"
    return any(low != n and low in getInflection(n, "NNS") for n in nouns)


@lru_cache(maxsize=65536)
def third_person(verb_lemma: str) -> str:
    """"chase" → "chases" (the form predicates are named by)."""
    from lemminflect import getInflection

    got = getInflection(verb_lemma, "VBZ")
    return got[0] if got else verb_lemma + "s"


class TokenFeed(Lexer):
    """Feeds pre-made :class:`Word` tokens to lark (the text to parse is the token list)."""

    def __init__(self, conf):  # lark passes its lexer configuration
        pass

    def lex(self, data):  # type: ignore[override]
        for i, w in enumerate(data):
            yield Token(w.type, w.text, start_pos=w.start, end_pos=w.end, line=1, column=i + 1)
