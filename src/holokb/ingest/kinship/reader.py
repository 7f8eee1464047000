"""The kinship reader: crowd-written family stories with [bracketed] names → kinship facts with spans.

Each kinship word (rules/kinship.toml ``[words]``) states "<holder> is <possessor>'s <word>", i.e.
``relation(possessor, holder)``.  Per kinship phrase the reader finds

- the possessor: ``[A]'s`` before the word (adjectives may come between), a possessive pronoun
  (his/her → an antecedent of that gender, see below), ``their`` (each member of the group), the
  subject of ``has/had a <word>`` or of ``… with a <word> named``, ``<word> of [A]`` / ``<word> to
  [A]``, or an earlier kinship phrase ("his sister's son": the sister, an unnamed person);
- the holder: the name after the word (``, [B]``, ``named [B]``, ``called [B]``), the subject of
  ``[B] is (the) <word> of …`` / ``[B] is [A]'s <word>``, the name the phrase is in apposition to
  (``[B], [A]'s <word>,``), or the name a later sentence gives ("… her son. His name is [Tom].").

A phrase through an unnamed person ("her daughter's son [W]") states the relation the rule file
composes along the path (child then child: grandchild), or nothing when it composes to no single
relation.  Couples and births without a kinship word ("[A] and [B] are married", "the couple
welcomed [C] into the world") use the word lists of ``[events]``.

Coreference: a possessive pronoun refers to a person of its gender mentioned before it in the
sentence — else in the previous sentence — other than the phrase's own holder.  With one such person
the statement is certain; with several it is a :class:`ReadChoice` (the sentence's subject first, or
the antecedent of the same pronoun earlier in the sentence), and an answer must hold in every
reading.  A statement whose word's gender contradicts the record's gender of its holder ("[Ann]
took her grandson [Donna]") keeps its relation when the sentence names the possessor itself (the
record decides the gender, as it does for the answer word); through a pronoun resolved outside the
sentence it is skipped (``gender_mismatch``): the mismatch may mean the pronoun was misread.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ...core import IRI, Fact, Interval
from ...resources import data_dir
from ..english.reading import ReadFact, Reading, ReadSkip, SkipCode, SourceSpan
from .compose import compose, inverse
from .lexicon import KinshipLexicon, KinWord, kinship_lexicon
from .story import Person, ReadChoice, StoryReading, Unnamed
from .text import Kind, Tok, complement_verb, finite_verb, sentences, tokens
from .typos import correct

_ARTICLES = frozenset({"the", "a", "an", "one", "own", "only", "other", "two", "three", "both"})
_BE = frozenset({"is", "was", "are", "were", "be", "been", "being", "'s"})
_HAVE = frozenset({"has", "had", "have", "having"})
_ADVERBS = frozenset({"also", "still", "now", "already", "just", "recently", "really", "actually", "truly",
                      "happily", "finally", "got", "even", "always", "never", "not"})
#: Words that end a run of modifiers in front of a kinship word (what is left is the determiner).
_STOP = _BE | _HAVE | frozenset({"and", "or", "but", "of", "with", "to", "for", "from", "by", "at", "in", "on",
                                 "about", "that", "who", "whose", "which", "named", "called", "than", "as",
                                 "so", "because", "while", "when", "if", "then", "he", "she", "they", "him",
                                 "them", "it", "we", "i", "you", "visit", "see", "saw", "met", "took", "take"})
#: Words allowed between a kinship word and its holder's name ("his son, named [B]").
_BRIDGE = frozenset({"named", "names", "called", "namely", "is", "was", "who", "whose", "name", "that", "he", "she",
                     "has", "had", "also", "by", "the", "of"})
_SUBORDINATORS = frozenset({"while", "when", "after", "before", "as", "since", "although", "though", "because",
                           "once", "if", "until", "whenever"})
_MODALS = frozenset({"could", "would", "should", "can", "will", "may", "might", "must", "did", "does", "do"})
_NAMING = frozenset({"named", "called", "namely", "name", "names"})
_SHOWN = frozenset({"she", "he", "it", "they"})
#: Words that may open a main clause before its subject ("So [A] and her sister [B] …").
_CONNECTIVES = frozenset({"so", "then", "and", "but", "later", "today", "yesterday", "meanwhile", "afterwards",
                          "eventually", "soon"})


def _is_name(t: Tok | None) -> bool:
    return t is not None and t.kind is Kind.NAME


@dataclass
class _Phrase:
    """One kinship word in a sentence and what the reader found for it."""

    pos: int
    kin: KinWord
    word: str
    start: int = 0                                   # first token of the phrase (determiner)
    holders: list[str] = field(default_factory=list)
    possessors: list[Person] = field(default_factory=list)   # readings, preferred first
    group: bool = False                              # possessors are a group (all hold), not readings
    reason: str = ""

    def person(self) -> Person | None:
        """Who this phrase names: its holder, else an unnamed person reached from a named possessor."""
        if self.holders:
            return self.holders[0]
        if len(self.possessors) == 1:
            return _through(self.possessors[0], self.kin)
        return None


@dataclass
class _Context:
    """What the sentences so far leave for the next one: its subject, its people, a holder to come."""

    subject: list[Person] = field(default_factory=list)
    mentions: list[Person] = field(default_factory=list)
    pending: _Phrase | None = None
    couple: list[str] = field(default_factory=list)
    owned: dict = field(default_factory=dict)   # person → holders of the phrases they certainly own
    groups: list = field(default_factory=list)  # the groups of people the sentence named ("their")


class KinshipReader:
    """Reads kinship statements; ``genders`` (name → male/female, from the record) resolves pronouns.

    ``strict=True`` makes every pronoun with two possible antecedents a choice; the default demotes
    a name that only owns a phrase inside the subject ("[C]'s son [A] … his wife": A, not C) and the
    holders of the antecedent's own phrases ("[M] and his son [T] … his wife": M, not T)."""

    def __init__(self, lexicon: str | Path | None = None, *, rules: str | Path | None = None, strict: bool = False,
                 typos: bool = True):
        self.lexicon: KinshipLexicon = kinship_lexicon(str(lexicon) if lexicon else None)
        self.lex = self.lexicon.data
        self.ns = self.lexicon.ns
        self.rules = str(rules or data_dir("rules") / "kinship.hkr")
        self.strict = strict
        self.typos = typos

    # -- public --------------------------------------------------------------------------------
    def entity(self, name: str) -> IRI:
        return IRI(self.ns + re.sub(r"\W+", "_", name.strip()))

    def kin(self, word: str) -> tuple[str, str] | None:
        k = self.lexicon.kin(word)
        return None if k is None else (self.lexicon.iri(k.relation), k.gender)

    def read(self, text: str, genders: dict[str, str]) -> Reading:
        """The preferred reading (every pronoun to its most likely antecedent)."""
        return self.read_story(text, genders).preferred()

    def read_story(self, text: str, genders: dict[str, str]) -> StoryReading:
        """Every statement of the story, with the pronouns that have several readings as choices."""
        facts: list[ReadFact] = []
        choices: list[ReadChoice] = []
        skips: list[ReadSkip] = []
        spans: list[SourceSpan] = []
        ctx = _Context()
        for i, (a, b) in enumerate(sentences(text, self._names_a_person)):
            span = SourceSpan(a, b, i)
            spans.append(span)
            toks = tokens(text, a, b)
            fixed = correct(toks, self.lexicon) if self.typos else toks
            if fixed != toks:
                # a corrected kinship word is kept only when the corrected sentence states something
                before = copy.deepcopy(ctx)
                s = _Sentence(self, fixed, genders, ctx)
                stated = s.read()
                if not stated:
                    ctx = before
                    s = _Sentence(self, toks, genders, ctx)
                    stated = s.read()
            else:
                s = _Sentence(self, toks, genders, ctx)
                stated = s.read()
            problems = []
            got = 0
            for rel, possessors, holder, word, reason in stated:
                options = []
                for p in possessors:
                    opt = self._facts(rel, p, holder, span)
                    if opt not in options:
                        options.append(opt)
                mismatch = self._gender_mismatch(word, holder, genders)
                if mismatch and not s.names_all(possessors):
                    problems.append(mismatch)
                    continue
                if len(options) == 1:
                    # "… her son. Her son is named [J].": the pending phrase and this one state it once
                    facts.extend(f for f in options[0] if all(f.fact != g.fact for g in facts))
                    got += bool(options[0])
                elif options:
                    choices.append(ReadChoice(tuple(options), span, reason))
                    got += 1
            if problems:
                skips.append(ReadSkip(SkipCode.UNSUPPORTED, span, text[a:b], "gender_mismatch: " + "; ".join(problems)))
            elif not got:
                kin = s.kin_words or s.blocked
                code = SkipCode.UNSUPPORTED if kin else SkipCode.NO_STATEMENT
                skips.append(ReadSkip(code, span, text[a:b], "kinship words but no reading" if kin
                                      else "no kinship statement"))
        return StoryReading(tuple(facts), tuple(choices), tuple(skips), tuple(spans))

    # -- helpers -------------------------------------------------------------------------------
    def _names_a_person(self, word: str) -> bool:
        return self.lexicon.kin(word) is not None or word in self.lexicon.person_nouns

    def _facts(self, rel: str, possessor: Person, holder: Person, span: SourceSpan) -> tuple[ReadFact, ...]:
        iri = self.lexicon.iri(rel)
        if isinstance(holder, Unnamed):
            # "[A]'s mother is the child of [B]": from B through the mother back to A, composed by the rules
            if isinstance(possessor, str):
                possessor = Unnamed(possessor, (), "")
            if possessor.anchor == holder.anchor:
                return ()
            back = tuple(inverse(self.lexicon.iri(r), self.rules) for r in reversed(holder.path))
            if any(b is None for b in back):
                return ()
            path = tuple(self.lexicon.iri(r) for r in possessor.path) + (iri,) + back
            got = compose(path, self.rules)
            if len(got) != 1:
                return ()
            return (ReadFact(Fact(self.entity(possessor.anchor), IRI(got[0]), self.entity(holder.anchor)),
                             Interval.always(), span),)
        if isinstance(possessor, str):
            if possessor == holder:
                return ()
            return (ReadFact(Fact(self.entity(possessor), IRI(iri), self.entity(holder)), Interval.always(), span),)
        if possessor.anchor == holder:
            return ()
        path = tuple(self.lexicon.iri(r) for r in possessor.path) + (iri,)
        got = compose(path, self.rules)
        if not got and len(path) == 2:
            # the rules compose no relation through the one unnamed person ("his uncle's wife [A]"): both
            # steps are stated through that person, for the closure (and a default rule, cited) to use
            via = self.entity(f"{possessor.anchor}'s {possessor.path[0].rsplit(':', 1)[-1]}")
            return (ReadFact(Fact(self.entity(possessor.anchor), IRI(path[0]), via), Interval.always(), span),
                    ReadFact(Fact(via, IRI(iri), self.entity(holder)), Interval.always(), span))
        if len(got) != 1:
            return ()
        return (ReadFact(Fact(self.entity(possessor.anchor), IRI(got[0]), self.entity(holder)), Interval.always(), span),)

    def _gender_mismatch(self, word: str, holder: str, genders: dict[str, str]) -> str | None:
        k = self.lexicon.kin(word)
        want = k.gender if k is not None else ""
        have = genders.get(holder, "")
        if want and have and want != have:
            return f"'{word}' is {want} but the record says {holder} is {have}"
        return None


class _Sentence:
    """One sentence: its tokens, the people mentioned so far, and the kinship phrases found."""

    def __init__(self, reader: KinshipReader, toks: list[Tok], genders: dict[str, str], ctx: _Context):
        self.r = reader
        self.lex = reader.lexicon
        self.toks = _merge_compounds(toks, self.lex)
        self.genders = genders
        self.ctx = ctx
        self.phrases: list[_Phrase] = []
        compares = self._counterfactual()
        # "her step son", "[A] is not [B]'s mother": kinship words that state nothing here
        self.blocked: set[int] = {i for i, t in enumerate(self.toks) if i >= 1 and t.kind is Kind.WORD
                                  and self.lex.kin(t.text) and self.toks[i - 1].low in self.lex.other_kin}
        self.blocked |= {i for i, t in enumerate(self.toks) if t.kind is Kind.WORD and self.lex.kin(t.text)
                         and self._negated(i)}
        self.kin_words = [i for i, t in enumerate(self.toks) if t.kind is Kind.WORD and self.lex.kin(t.text)
                          and not (i + 1 < len(self.toks) and self.toks[i + 1].kind is Kind.WORD
                                   and self.lex.kin(self.toks[i + 1].text))  # "twin sister": one word
                          and i not in compares and i not in self.blocked]
        self.subject: list[Person] = []
        self.resolved: dict[int, list[Person]] = {}   # pronoun position → readings
        self.out: list[tuple[str, tuple[Person, ...], str, str, str]] = []
        self.pending_before = ctx.pending   # a holder to come from an earlier sentence

    def _counterfactual(self) -> set[int]:
        """Positions in a clause that only compares ("raising him as if he were her own child",
        rules/kinship.toml ``[counterfactual]``): to the clause's end, they state nothing."""
        out: set[int] = set()
        spec = self.lex.data.get("counterfactual", {})
        belief = frozenset(spec.get("belief", ()))
        subjunctive = frozenset(spec.get("subjunctive", ()))
        for k, t in enumerate(self.toks):
            m = k + 1 + self.w(k + 1, "that")
            if t.kind is Kind.WORD and (t.low in belief and self.w(m + 1, *_BE)
                                        or t.low in subjunctive and self.w(m + 1, "were")) \
                    and self.t(m) is not None and (self.t(m).kind is Kind.NAME or self.t(m).low in self.lex.subject_pronouns):
                e = k + 1
                while e < len(self.toks) and self.toks[e].kind is not Kind.PUNCT:
                    out.add(e)
                    e += 1
        for opener in spec.get("openers", ()):
            n = len(opener)
            for k in range(len(self.toks) - n + 1):
                if all(self.toks[k + m].low == w for m, w in enumerate(opener)):
                    e = k + n
                    while e < len(self.toks) and self.toks[e].kind is not Kind.PUNCT:
                        out.add(e)
                        e += 1
        return out

    def _negator(self, k: int) -> bool:
        """A negation word at ``k``: "not", "never" (rules/kinship.toml ``[negation]``), or the "t" of
        "isn't" / "is n't" (tokens "n" "'" "t"); "not only / just" is no negation."""
        t = self.t(k)
        if t is None or t.kind is not Kind.WORD:
            return False
        if t.low == "t":
            return k >= 2 and self.toks[k - 1].text == "'" and self.toks[k - 2].low.endswith("n")
        return t.low in self.lex.negators and not self.w(k + 1, "only", "just", "merely", "simply")

    def _negated(self, i: int) -> bool:
        """Whether the kinship word at ``i`` is the complement of a negated copula: "[A] is not [B]'s
        mother", "[A] and [B] are not siblings", "[A] was never his wife", "[A] isn't the sister of
        [B]" — walking left over the phrase's determiner, modifiers and possessors to the verb.  A
        phrase with its holder's name after it is a description, not the complement ("… invited her
        son, but not his wife [B]": B is his wife)."""
        k = i - 1
        while k >= 0 and i - k <= 5 and self.toks[k].kind is Kind.WORD and (
                self.toks[k].low in _ARTICLES | {"no", "any"} or _adjective(self.toks[k].low)):
            k -= 1
        if k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in _HAVE:
            # "[A] has no brother named [B]", "[A] does not have a son named [B]"
            return any(self._negator(x) for x in range(max(0, k - 2), i))
        if self._holder_right(i):
            return False
        neg = False
        k = i - 1
        while k >= 0 and i - k <= 10:
            t = self.toks[k]
            if self._negator(k):
                neg = True
            elif t.kind is Kind.WORD and t.low in ("isn", "wasn", "aren", "weren") and neg:
                return True
            elif t.kind is Kind.WORD and t.low in _BE:
                return neg
            elif t.kind is Kind.POSS or t.kind is Kind.NAME and self.t(k + 1) is not None \
                    and self.t(k + 1).kind is Kind.POSS:
                pass  # "[B]'s", "mother's": a possessor inside the phrase
            elif t.kind is Kind.WORD and (t.low in _ARTICLES or t.low in self.lex.pronouns or t.low in _ADVERBS
                                          or t.low in ("longer", "n") or self.lex.kin(t.text)
                                          or t.low not in _STOP and _modifier(t.low)):
                pass
            else:
                return neg and t.kind is Kind.WORD and t.low in ("and", "but")  # "…, and not the aunt of [C]"
            k -= 1
        return False

    def _negated_clause(self, k: int) -> bool:
        """A negation word earlier in the clause of token ``k`` ("[A] and [B] are not married", "[A]
        never married [B]")."""
        b = k - 1
        while b >= 0 and self.toks[b].kind is not Kind.PUNCT:
            if self._negator(b):
                return True
            b -= 1
        return False

    # -- small token helpers ---------------------------------------------------------------------
    def names_all(self, people) -> bool:
        """Whether the sentence itself names every one of ``people`` (in brackets)."""
        here = {t.text for t in self.toks if t.kind is Kind.NAME}
        return all(isinstance(p, str) and p in here for p in people)

    def t(self, i: int) -> Tok | None:
        return self.toks[i] if 0 <= i < len(self.toks) else None

    def w(self, i: int, *words: str) -> bool:
        t = self.t(i)
        return t is not None and t.is_word(*words)

    def gender(self, p: Person) -> str:
        return p.gender if isinstance(p, Unnamed) else self.genders.get(p, "")

    def fits(self, p: Person, gender: str) -> bool:
        """Whether a pronoun of ``gender`` can refer to ``p`` (a person without brackets may be anyone)."""
        return self.gender(p) == gender or _unknown(p)

    def plain_name(self, k: int) -> str | None:
        """"?Brandon" for a capitalised word no dictionary knows ("dearly.Brandon shared …", "his
        daughter Alice gave birth"): a person the record does not name, who may be a pronoun's antecedent."""
        t = self.t(k)
        if t is None or t.kind is not Kind.WORD or not t.text[:1].isupper() or t.low in _CLOSED or t.text.isupper():
            return None  # "straight C's", "TV": not names
        if self.lex.kin(t.text) or t.low in self.lex.pronouns or t.low in self.lex.subject_pronouns:
            return None
        if _known_word(t.low):
            return None
        prev, nxt = self.t(k - 1), self.t(k + 1)
        clause = prev is not None and prev.low in _SUBORDINATORS | {"and", "but", "or", "so"} and nxt is not None \
            and nxt.kind is Kind.WORD and finite_verb(nxt.low)  # "When Rachel had her son [M], …"
        if prev is not None and prev.kind is Kind.WORD and (prev.low in _CLOSED or prev.low in ("last", "next")) \
                and not clause:
            return None  # "on Saturday", "to Mexico", "the Cavaliers"
        subject_like = prev is None or prev.kind is Kind.PUNCT or self.kin_at(k - 1) is not None
        if subject_like or nxt is not None and (nxt.kind is Kind.POSS or nxt.kind is Kind.WORD and finite_verb(nxt.low)):
            return "?" + t.text
        return None

    def plain_person(self, k: int) -> str | None:
        """"?Micheal" for a capitalised word in a name's place that the record does not bracket: right
        after a kinship word inside the sentence ("her son Micheal", "her father in law Rod, …") or
        owning a kinship word ("Micheal's father [Jason]").  Capitals inside a sentence mark names in
        English, so a dictionary word counts too ("Rod"); the person links the story's people."""
        t = self.t(k)
        if t is None or t.kind is not Kind.WORD or not t.text[:1].isupper() or t.text.isupper():
            return None  # "A", "TV": not names
        low = t.low
        if low in _CLOSED or self.lex.kin(t.text) or low in self.lex.pronouns or low in self.lex.subject_pronouns \
                or low in self.lex.person_nouns:
            return None
        after_kin = k >= 1 and (self.kin_at(k - 1) is not None or self.w(k - 1, *_NAMING) or
                                k >= 2 and self.t(k - 1).text == "," and self.kin_at(k - 2) is not None)
        nxt = self.t(k + 1)
        owns_kin = False
        if nxt is not None and nxt.kind is Kind.POSS:  # "Jesse's older brother", not "straight C's to his father"
            m = k + 2
            while m < min(k + 5, len(self.toks)) and self.kin_at(m) is None and self.toks[m].kind is Kind.WORD \
                    and self.toks[m].low not in _CLOSED:
                m += 1
            owns_kin = self.kin_at(m) is not None
        return "?" + t.text if after_kin or owns_kin else None

    def kin_at(self, i: int) -> KinWord | None:
        t = self.t(i)
        if t is None or t.kind is not Kind.WORD or i in getattr(self, "blocked", ()):
            return None
        return self.lex.kin(t.text)

    # -- the sentence ----------------------------------------------------------------------------
    def read(self):
        ctx = self.ctx
        if ctx.pending is not None:
            self._pending_named()
        self.subject = self._subject()
        for i in self.kin_words:
            self._phrase(i)
        self._events()
        self._naming_later()
        self._leave_context()
        return self.out

    def emit(self, ph: _Phrase, holder: str, possessors: list[Person], group: bool, reason: str = "") -> None:
        if group:
            for p in possessors:
                if p != holder:
                    self.out.append((ph.kin.relation, (p,), holder, ph.word, ""))
        elif possessors:
            opts = tuple(p for p in possessors if p != holder) or tuple(possessors)
            self.out.append((ph.kin.relation, opts, holder, ph.word, reason))

    # -- subject -----------------------------------------------------------------------------------
    def _subject(self) -> list[Person]:
        toks = self.toks
        i = 0
        while i < min(len(toks), 4) and toks[i].kind is Kind.WORD and toks[i].low not in self.lex.subject_pronouns \
                and toks[i].low not in self.lex.pronouns and not self.kin_at(i) and toks[i].low not in ("the", "they"):
            if self.plain_name(i):
                return [self.plain_name(i)]
            i += 1
        if i < len(toks) and toks[i].kind is Kind.PUNCT:
            i += 1
        t = self.t(i)
        if t is None:
            return []
        if t.kind is Kind.NAME:
            nxt = self.t(i + 1)
            if nxt is not None and nxt.kind is Kind.POSS:
                j = i + 2
                while self.t(j) is not None and self.t(j).kind is Kind.WORD and not self.kin_at(j) and j < i + 5:
                    j += 1
                if self.kin_at(j):
                    h = self._holder_right(j)
                    if h:
                        return [h[0]]
                    return [Unnamed(t.text, (self.kin_at(j).relation,), self.kin_at(j).gender)]
                return [t.text]
            if self.w(i + 1, "and") and _is_name(self.t(i + 2)):
                return [t.text, self.t(i + 2).text]
            return [t.text]
        if t.low in self.lex.subject_pronouns:
            got = self._antecedents(i, self.lex.subject_pronouns[t.low], exclude=(), subject_first=True)
            self.resolved[i] = got
            return got[:1] if len(got) == 1 else []
        if t.low in ("they",) or (t.low == "the" and self.w(i + 1, *self.lex.group_words)):
            return list(self.ctx.couple or [p for p in self.ctx.subject if isinstance(p, str)])
        return []

    # -- one kinship phrase -----------------------------------------------------------------------
    def _phrase(self, i: int) -> None:
        kin = self.kin_at(i)
        assert kin is not None
        ph = _Phrase(i, kin, self.toks[i].text)
        self.phrases.append(ph)
        # the determiner: walk left over modifiers ("[A]'s lovely little daughter")
        j = i - 1
        while j >= 0 and self.toks[j].kind is Kind.WORD and self.toks[j].low not in _STOP \
                and self.toks[j].low not in self.lex.pronouns and self.toks[j].low not in self.lex.plural_pronouns \
                and (not self.kin_at(j) or j == i - 1 and j not in self.kin_words) and i - j <= 5:
            j -= 1
            if self.t(j) is not None and self.t(j).text == "," and j < i - 1 and self.t(j - 1) is not None \
                    and self.t(j - 1).kind is Kind.WORD and not self.kin_at(j - 1) and self.t(j - 1).low not in _STOP \
                    and self.t(j - 1).low not in _ARTICLES and self.t(j - 2) is not None \
                    and self.t(j - 2).low in _ARTICLES | self.lex.pronouns.keys():
                j -= 1  # coordinated adjectives: "the drunken, deadbeat uncle of [P]"
        det = self.t(j)
        ph.start = j + 1  # the determiner is not part of the phrase unless it names the possessor
        holders = self._holder_right(i)
        if det is not None and det.low in _HAVE and self._have_phrase(ph, i, j, holders):
            return
        if det is not None and det.kind is Kind.POSS and j >= 1:
            owner = self.t(j - 1)
            ph.start = j - 1
            if owner.kind is Kind.NAME:
                ph.possessors = [owner.text]
            elif self.plain_person(j - 1) is not None:
                ph.possessors = [self.plain_person(j - 1)]  # "Micheal's father [Jason]"
            elif self.kin_at(j - 1):
                prev = next((p for p in self.phrases if p.pos == j - 1), None)
                if prev is not None:  # "his sister's son": through an unnamed person, for each reading of "his"
                    ph.possessors = [prev.holders[0]] if prev.holders else [
                        _through(p, prev.kin) for p in prev.possessors]
                    ph.group, ph.reason = prev.group, prev.reason
                ph.start = prev.start if prev is not None else j - 1
        elif det is not None and det.kind is Kind.NAME and j == i - 1 and not _is_name(self.t(i + 1)) \
                and not self.w(i + 1, "of", "to"):
            ph.possessors = [det.text]  # "[Dorothy], [Dan] mother, likes …", "[Alma] father"
            ph.start = j
        elif det is not None and det.low in self.lex.pronouns:
            ph.start = j
            holder = holders[0] if holders else self._holder_left(ph)
            ex = tuple(holders) + ((holder,) if holder else ())
            ph.possessors = self._antecedents(j, self.lex.pronouns[det.low], exclude=ex)
            obj = self.t(j - 2)
            if self.w(j - 1, "and") and obj is not None and obj.kind is Kind.WORD \
                    and self.lex.object_pronouns.get(obj.low) == self.lex.pronouns[det.low] \
                    and self.w(j - 3, "with", "for", "at", "to", "from", "by") and self._one_clause(j - 2):
                # "She … lunch with her and her husband": the object's own kin; the object is not the
                # subject of its own clause (that would be "herself")
                ph.possessors = self._antecedents(j, self.lex.pronouns[det.low], exclude=ex + tuple(self.subject))
            self.resolved[j] = list(ph.possessors)
            ph.reason = f"'{det.text}' may refer to " + " or ".join(_show(p) for p in ph.possessors)
        elif det is not None and det.low in self.lex.plural_pronouns:
            ph.start = j
            ph.possessors = self._group_before(j)
            ph.group = True
        elif det is not None and det.low == "whose" and j >= 1:
            b = j - 1 if self.t(j - 1).text != "," else j - 2
            if _is_name(self.t(b)):
                ph.possessors = [self.t(b).text]  # "[G], whose husband is named [J], …"
                ph.start = j
        elif det is not None and det.low in _HAVE:
            ph.possessors, ph.group = self._has_subject(j)
        elif det is not None and det.low in ("for", "as") and j >= 2 and self._have_for(ph, j):
            return
        elif det is not None and det.low == "with" and (self._named_after(i) or j == i - 1 and holders):
            ph.possessors = [p for p in self.subject if isinstance(p, str)][:1]
        elif det is not None and det.low == "of" and j >= 1:
            outer = next((p for p in self.phrases if p.pos < j and p.pos >= j - 4), None)
            if outer is not None and outer.holders:
                ph.possessors = [outer.holders[0]]  # "[B] is the mother of a son named [X]"
        if not ph.possessors:
            # a pronoun inside "<word> of her <word2>" is not the phrase's own holder ("[A] is the
            # sister of her grandson": not A's grandson — the clause's subject would be "herself")
            owners, group = self._of_owner(i, tuple(holders) or tuple(h for h in [self._holder_left(ph)] if h))
            if owners:
                ph.possessors, ph.group = owners, group
                if len(owners) > 1 and not group:
                    ph.reason = "the owner may be " + " or ".join(_show(p) for p in owners)
                if holders and holders[0] in owners:
                    holders = []
        if not ph.possessors and det is not None and det.low == "and" and j == i - 1 and j == 1 and holders \
                and _is_name(self.t(0)) and holders[0] != self.t(0).text:
            ph.possessors = [self.t(0).text]  # "[Ann] and husband [Bob] disagree …"
        if not ph.possessors and det is not None and det.text == "," and self.phrases[:-1] \
                and self.phrases[-2].kin.plural and not self.phrases[-2].holders and self.phrases[-2].possessors \
                and all(x.kind is Kind.WORD for x in self.toks[self.phrases[-2].pos + 1:j]):
            before = self.phrases[-2]  # "[P] has two young children, a son named [F] and a daughter …"
            ph.possessors, ph.group, ph.reason = list(before.possessors), before.group, before.reason
        if not ph.possessors and det is not None and (det.low == "and" or det.text == ",") and self.phrases[:-1]:
            before = self.phrases[-2]
            b = j - 1
            while self.t(b) is not None and self.t(b).text == ",":
                b -= 1
            if before.holders and self.t(b) is not None and self.t(b).text == before.holders[-1]:
                ph.possessors, ph.group = list(before.possessors), before.group  # "[D]'s daughter [T] and brother [W]"
        if not ph.possessors:
            self._plural_predicate(ph)
            return
        if not holders and self._owns_next(i):
            return  # "[R] is [J]'s mom's brother": the mother is an unnamed step to the brother, not R
        if not holders and self.t(i + 1) is not None and self.t(i + 1).kind is Kind.POSS:
            self.ctx.pending = ph  # "[A] is [B]'s mother's friend": A is not the mother (a name may follow:
            return                 # "… at her grandfather's cabin. His name was [J].")
        if not holders:
            h = self._holder_left(ph)
            holders = [h] if h else []
            names = [p for p in self.subject if isinstance(p, str)]
            if h is not None and ph.kin.plural and len(names) >= 2 and h in names and self.w(1, "and") \
                    and _is_name(self.t(0)) and _is_name(self.t(2)) and self.w(3, *_BE):
                holders = names  # "[A] and [B] are the parents of [C]": each of them
        ph.holders = holders
        if not holders:
            self.ctx.pending = ph  # "… with her son. His name is [Tom]."
            return
        for h in holders:
            self.emit(ph, h, ph.possessors, ph.group, ph.reason)

    def _have_phrase(self, ph: _Phrase, i: int, j: int, holders: list[str]) -> bool:
        """Phrases after "have" that name the holder elsewhere: "[G] has a great father relationship
        with [J]" (G is J's father), "[M] is happy to have such a great daughter in/as/like [A]" (A is
        M's daughter; "a daughter like [A]" without "such" may be someone else), "[N] is happy to have
        [B] for/as a mother" (B is N's mother).  True when the phrase was read (or cannot be)."""
        subject, group = self._has_subject(j)
        one = subject[0] if len(subject) == 1 and not group and isinstance(subject[0], str) else None
        if self.w(i + 1, "relationship", "relationships", "bond") and self.w(i + 2, "with"):
            m = i + 3
            while self.t(m) is not None and self.t(m).kind is Kind.WORD and m <= i + 6 \
                    and (self.t(m).low in _ARTICLES or _adjective(self.t(m).low)):
                m += 1
            if one is not None and _is_name(self.t(m)) and self.t(m).text != one:
                ph.possessors, ph.holders = [self.t(m).text], [one]
                self.emit(ph, one, ph.possessors, False)
            return True
        if not holders and self.w(i + 1, "like", "in", "as") and _is_name(self.t(i + 2)) \
                and any(self.w(k, "such") for k in range(j + 1, i)) and one is not None:
            ph.possessors, ph.holders = [one], [self.t(i + 2).text]
            self.emit(ph, ph.holders[0], ph.possessors, False)
            return True
        return False

    def _have_for(self, ph: _Phrase, j: int) -> bool:
        """"[N] is happy to have [B] for a mother": B is N's mother."""
        if not (self.w(j, "for", "as") and _is_name(self.t(j - 1)) and self.t(j - 2) is not None
                and self.t(j - 2).low in _HAVE and all(self.w(k, *_ARTICLES) or self.t(k).kind is Kind.WORD
                                                       and _adjective(self.t(k).low) for k in range(j + 1, ph.pos))):
            return False
        subject, group = self._has_subject(j - 2)
        if len(subject) == 1 and not group and isinstance(subject[0], str) and subject[0] != self.t(j - 1).text:
            ph.possessors, ph.holders = [subject[0]], [self.t(j - 1).text]
            self.emit(ph, ph.holders[0], ph.possessors, False)
        return True

    def _before_apposition(self, b: int) -> int:
        """The name before an appositive noun phrase that ends with the comma at ``b`` ("[C], a tall
        man, is …" → the position of [C]); ``b`` when there is none (a kinship word inside is read as such)."""
        c = b - 1
        while c >= 0 and self.toks[c].kind in (Kind.WORD, Kind.NAME) and self.kin_at(c) is None and b - c <= 8:
            c -= 1
        if c >= 1 and c < b - 2 and self.toks[c].text == "," and self.toks[c + 1].low in ("a", "an") \
                and self.toks[c - 1].kind is Kind.NAME:
            return c - 1
        return b

    def _owns_next(self, i: int) -> bool:
        """Whether the kinship word at ``i`` is the possessor of the next one ("mom's (older) brother")."""
        if self.t(i + 1) is None or self.t(i + 1).kind is not Kind.POSS:
            return False
        k = i + 2
        while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k) \
                and _adjective(self.t(k).low) and k < i + 5:
            k += 1
        return self.kin_at(k) is not None

    def _one_clause(self, k: int) -> bool:
        """Whether tokens before ``k`` are one clause with the sentence's subject: no other name, no
        kinship word, no infinitive or subordinate clause ("… invited her mother to spend a day with
        her": "her" is in the mother's clause)."""
        return not any(t.kind is Kind.NAME and t.text not in self.subject or t.kind is Kind.PUNCT
                       or t.kind is Kind.WORD and (t.low in ("to", "who", "that", "because", "so", "and")
                                               or t.low in _SUBORDINATORS or self.kin_at(x) is not None)
                       for x, t in enumerate(self.toks[1:k], 1))

    def _named_after(self, i: int) -> bool:
        return any(self.w(k, *_NAMING) and _is_name(self.t(k + 1)) for k in range(i + 1, min(i + 7, len(self.toks))))

    def _holder_right(self, i: int) -> list[str]:
        """The name right after the kinship word ("[A]'s son, [B]", "a son named [B]"), with names
        coordinated to it for a plural word ("his daughters [S] and [T]")."""
        toks = self.toks
        j = i + 1
        if self.t(j) is not None and self.t(j).kind is Kind.POSS and (self.w(j + 1, "name") or
                                                                      (self.t(j + 1) and self.t(j + 1).text == ",")):
            j += 1  # "[A]'s father's name is [B]", "her grandson's, [J], party"
        run = j
        kin = self.kin_at(i)
        if kin is not None and kin.plural and (self.w(j, "are", "were") or self.t(j) is not None
                                               and self.t(j).text == ":") and _is_name(self.t(j + 1)) \
                and not (self.t(j + 2) is not None and self.t(j + 2).kind is Kind.POSS):
            j += 1  # "[S]'s parents are [P] and [R]", "two sisters: [B] and [C]" (not "… are [P]'s friends")
        while j < len(toks) and j - run < 6 and (toks[j].text == "," or toks[j].is_word(*_BRIDGE)):
            j += 1
        words = [t for t in toks[run:j] if t.kind is Kind.WORD]
        if any(t.is_word("he", "she", "has", "had", "by", "the", "of") for t in words) and not any(
                t.is_word(*_NAMING) for t in words):
            return []  # "… her son, she has …": not a naming run
        if j < len(toks) and toks[j].kind is Kind.WORD:
            plain = self.plain_person(j)
            if plain is not None:
                return [plain]  # "her son Micheal"
        if j >= len(toks) or toks[j].kind is not Kind.NAME:
            return []
        if toks[j - 1].text == "," and self.toks[0].low in _SUBORDINATORS and self.t(j + 1) is not None \
                and self.t(j + 1).kind is Kind.WORD and (finite_verb(self.t(j + 1).low) or self.t(j + 1).low in _MODALS):
            return []  # "While watching his son, [A] could n't help …": [A] is the main clause's subject
        if self.t(j + 1) is not None and self.t(j + 1).kind is Kind.POSS and toks[j - 1].kind is Kind.WORD \
                and toks[j - 1].low in _BE:
            return []  # "[A]'s son is [B]'s friend": the son is someone of B's, not B
        if self.t(j + 1) is not None and self.t(j + 1).kind is Kind.POSS and toks[j - 1].text == ",":
            k = j + 2
            while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k) and k < j + 5:
                k += 1
            if self.kin_at(k):
                inner = self._holder_right(k)
                if inner:
                    return inner[:1]  # "a son, [Theresa]'s brother [Kevin]": in apposition, the holder is Kevin
        out = [toks[j].text]
        if kin is not None and kin.plural:
            k = j
            while k + 2 < len(toks) and (toks[k + 1].is_word("and") or toks[k + 1].text == ",") and \
                    (toks[k + 2].kind is Kind.NAME or (toks[k + 2].is_word("and") and _is_name(self.t(k + 3)))):
                k = k + 2 if toks[k + 2].kind is Kind.NAME else k + 3
                out.append(toks[k].text)
        return out

    def _holder_left(self, ph: _Phrase) -> str | None:
        """"[B] is (the) <word> of …", "[B] is [A]'s <word>", "[B], [A]'s <word>,", "[B] who is …"."""
        s = ph.start
        if s >= 2 and self.t(s - 1).text == "," and _is_name(self.t(s - 2)):
            return self.t(s - 2).text  # apposition
        if s >= 2 and _is_name(self.t(s - 1)) and self.t(s).kind is Kind.NAME and self.t(s - 2).kind is Kind.WORD \
                and complement_verb(self.t(s - 2).low):
            return self.t(s - 1).text  # "… which makes [Michael] [Marci]'s uncle": the object
        if s >= 1 and _is_name(self.t(s - 1)) and self.w(s, "the") and self.w(ph.pos + 1, "of"):
            return self.t(s - 1).text  # "[Matthew] the uncle of [Donna]"
        own = s >= 1 and self.toks[s].low in self.lex.pronouns
        if own and _is_name(self.t(s - 1)) and (s == 1 or self.t(s - 2).kind is Kind.PUNCT or self.w(
                s - 2, "and", "so", "but", "then", *_SUBORDINATORS)) and self.t(ph.pos + 1) is not None \
                and self.t(ph.pos + 1).kind is Kind.WORD and (finite_verb(self.t(ph.pos + 1).low)
                                                             or self.t(ph.pos + 1).low in _MODALS):
            return self.t(s - 1).text  # "… so [John] his son had to help him": a subject in apposition
        if own and s >= 2 and _is_name(self.t(s - 1)) and self.w(s - 2, "for", "with", "to", "at", "from", "by") \
                and (self.t(ph.pos + 1) is None or self.t(ph.pos + 1).kind is Kind.PUNCT):
            return self.t(s - 1).text  # "… something special for [Shantel] his wife.": in apposition
        obj = self.t(s - 1)
        if own and s >= 2 and obj.kind is Kind.WORD and obj.low in self.lex.object_pronouns \
                and self.t(s - 2).kind is Kind.WORD and complement_verb(self.t(s - 2).low):
            got = self._antecedents(s - 1, self.lex.object_pronouns[obj.low], ())
            if len(got) == 1 and isinstance(got[0], str):
                return got[0]  # "[D], who calls him her handsome son": the object
            return None
        k = s - 1
        while k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in _ARTICLES | _ADVERBS | {"of"}:
            k -= 1
        if k >= 1 and self.toks[k].kind is Kind.POSS and self.toks[k].text[-1:] == "s" \
                and self.toks[k - 1].low in self.lex.subject_pronouns:
            return self._named_at(k - 1)  # "since she's his daughter": "'s" is "is"
        if k >= 1 and self.toks[k].is_word("and") and self.w(ph.pos + 1, "of", "to"):
            b = k - 1
            while b >= 0 and self.toks[b].kind is Kind.WORD and b >= k - 4 and self.toks[b].low not in _BE:
                b -= 1
            if b >= 1 and self.toks[b].low in _BE and _is_name(self.t(b - 1)) and not any(
                    self.kin_at(x) for x in range(b, k)):
                return self.t(b - 1).text
        if k >= 0 and self.toks[k].is_word("and") and len(self.phrases) >= 2 and self.phrases[-2].holders \
                and self.w(self.phrases[-2].pos + 1, "of", "to"):
            return self.phrases[-2].holders[0]  # "[R] is grandson of [G] and brother of [J]"
        if s >= 2 and self.w(s - 1, "and") and self.t(s).kind is Kind.NAME and len(self.phrases) >= 2:
            prev = self.phrases[-2]  # "[A] is [B]'s mother and [C]'s grandmother": A holds both
            at = next((x for x, t in enumerate(self.toks[:prev.start]) if prev.holders and t.kind is Kind.NAME
                       and t.text == prev.holders[0]), None)
            if prev.pos == s - 2 and at is not None and self.w(at + 1, *_BE):
                return prev.holders[0]
        if k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in _BE:
            b = k - 1
            if self.w(b, "and"):  # "[L] is a female and is the granddaughter of [J]"
                b -= 1
                while b >= 0 and self.toks[b].kind is Kind.WORD and b >= k - 6 and self.toks[b].low not in _BE:
                    b -= 1
                if b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _BE:
                    b -= 1
            if self.toks[k].low == "been":  # "[J] has been a lovely father of [S]"
                while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _HAVE | _MODALS | _ADVERBS:
                    b -= 1
            while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _ADVERBS | {"who", "that", "which"}:
                b -= 1
            if b >= 0 and self.toks[b].text == "," and self._before_apposition(b) != b:
                b = self._before_apposition(b)  # "[C], a tall man (of [D]), is the father of [L]"
            elif b >= 0 and self.toks[b].text == "," and self.t(b - 1) and self.t(b - 1).kind is Kind.NAME:
                b -= 1
            return self._named_at(b) or self._unnamed_subject_at(b)
        if k >= 3 and self.w(k, "name") and self.w(k - 1, "the") and self.toks[k - 2].low in _BE \
                and self.w(s - 1, "of") and (self.toks[s].low in self.lex.pronouns or self.toks[s].kind is Kind.NAME):
            return self._named_at(k - 3)  # "[T] is the name of his granddaughter / of [C]'s father"
        return None

    def _of_owner(self, i: int, exclude: tuple = ()) -> tuple[list[Person], bool]:
        """"<word> of [A]" / "<word> to [A]" (articles, adjectives and "a son named" may come between),
        "<word> of [A] and [B]" (both), "<word> of [A]'s <word2>" / "<word> of her <word2>" (an unnamed
        person: "the sister of her grandson")."""
        if not self.w(i + 1, "of", "to"):
            return [], False
        m = i + 2
        while m < len(self.toks) and m - i <= 7 and self.toks[m].kind is Kind.WORD \
                and self.toks[m].low not in self.lex.pronouns:
            m += 1
        t = self.t(m)
        if t is None:
            return [], False
        between = [x.low for x in self.toks[i + 2:m]]
        named_kin = between and t.kind is Kind.NAME and self.kin_at(m - 1) is not None  # "of one wife [M]"
        if named_kin:
            between = between[:-1]
        if between and between[-1] not in _NAMING and any(x not in _ARTICLES and not _adjective(x) for x in between):
            return [], False  # "the proud [O]", "the amazing [S]"; not "the man who met [O]"
        if t.kind is Kind.WORD and t.low in self.lex.pronouns:
            k = m + 1
            while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k) and k <= m + 3:
                k += 1
            inner = self.kin_at(k)
            if inner is None or self._holder_right(k):
                return [], False
            owners = self._antecedents(m, self.lex.pronouns[t.low], exclude=exclude)
            return [_through(p, inner) for p in owners], False
        if t.kind is not Kind.NAME:
            return [], False
        if self.t(m + 1) is not None and self.t(m + 1).kind is Kind.POSS:
            k = m + 2
            while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k) and k <= m + 4:
                k += 1
            inner = self.kin_at(k)
            if inner is None:
                return [], False
            held = self._holder_right(k)
            if held:  # "the daughter of [Lou]'s brother [Max]": Max
                return ([held[0]], False) if len(held) == 1 else ([], False)
            return [_through(t.text, inner)], False  # "the daughter of [Dwight]'s wife"
        names = [t.text]
        while self.w(m + 1, "and") and _is_name(self.t(m + 2)) and not (
                self.t(m + 3) is not None and (self.t(m + 3).kind is Kind.POSS or self.t(m + 3).kind is Kind.WORD
                                               and finite_verb(self.t(m + 3).low))):
            m += 2
            names.append(self.toks[m].text)  # "the proud mother of [Karen] and [Darnell]"
        return names, len(names) > 1

    def _has_subject(self, j: int) -> tuple[list[Person], bool]:
        """The subject of "has/had (a) <word>": a name, a pronoun, "who" (the phrase before), or a group."""
        b = j - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _ADVERBS | {"also", "not", "does"}:
            b -= 1
        if b >= 1 and self.toks[b].text == ",":
            b -= 1
        if b >= 2 and self.w(b, "and") and self.w(b - 1, "did", "does", "do") and _is_name(self.t(b - 2)):
            b -= 2  # "[Dwight] did and had a daughter"
        elif self.w(b, "and") and len(self.subject) == 1 and isinstance(self.subject[0], str) \
                and not any(x.kind is Kind.NAME and x.text != self.subject[0] for x in self.toks[:b]):
            return [self.subject[0]], False  # "[A] is older than his sister, and has a daughter …"
        if self.w(b, "to") and len(self.subject) == 1 and isinstance(self.subject[0], str) and not any(
                x.kind is Kind.NAME and x.text != self.subject[0] or x.kind is Kind.WORD and self.kin_at(k)
                for k, x in enumerate(self.toks[:b])):
            return [self.subject[0]], False  # "[M] is happy to have a daughter …": the subject's
        t = self.t(b)
        if t is None:
            return [], False
        if t.kind is Kind.WORD and self.kin_at(b) and self.w(b - 1, "the") and self.ctx.pending is not None \
                and self.ctx.pending.word.lower() == t.low:
            p = self.ctx.pending.person()  # "… has a brother who … . The brother has a sister …"
            return ([p], False) if p is not None else ([], False)
        if t.kind is Kind.WORD and self.kin_at(b):
            ph = next((x for x in self.phrases if x.pos == b), None)
            p = ph.person() if ph is not None and ph.start == 0 and not ph.group else None
            if p is not None:  # "[C]'s father has a sister named [S]": through the unnamed father
                return [p], False
        if t.kind is Kind.NAME:
            if self.w(b - 1, "and") and _is_name(self.t(b - 2)):
                return [self.t(b - 2).text, t.text], True
            return [t.text], False
        if t.low in self.lex.subject_pronouns:
            got = self.resolved.get(b) or self._antecedents(b, self.lex.subject_pronouns[t.low], (), True)
            self.resolved[b] = got
            return got, False
        if t.low in ("who", "that") and self.phrases[:-1]:
            prev = self.phrases[-2]
            p = prev.person()
            if p is not None:
                return [p], False
            if prev.group or not prev.possessors:
                return [x for x in self.subject], True
        if t.low in ("who", "that") and len(self.subject) > 1:
            return list(self.subject), True
        if t.low == "they":
            return list(self.subject) or list(self.ctx.subject), True
        return [], False

    def _group_before(self, j: int) -> list[Person]:
        """Who "their" at ``j`` refers to: the one group named before it in the sentence (a coordinated
        subject, the holders of a plural phrase), else the sentence's subject, else the previous
        sentence's one group; nobody when there are several groups."""
        groups = self._groups(j)
        if len(groups) == 1:
            return groups[0]
        if groups or len(self.ctx.groups) > 1:
            return []
        if self.ctx.groups:
            return self.ctx.groups[0]
        return [p for p in self.subject if isinstance(p, str)]

    def _groups(self, j: int) -> list[list[str]]:
        out = []
        subject = [p for p in self.subject if isinstance(p, str)]
        if len(subject) >= 2:
            out.append(subject)
        elif self.toks and self.toks[0].low in _SUBORDINATORS:
            c = next((x for x, t in enumerate(self.toks) if t.text == ","), None)
            if c is not None and c + 3 < j and _is_name(self.t(c + 1)) and self.w(c + 2, "and") \
                    and _is_name(self.t(c + 3)):  # "Although …, [R] and [L] were going home to their mother"
                out.append([self.t(c + 1).text, self.t(c + 3).text])
        elif subject and (s0 := next((x for x, t in enumerate(self.toks[:4]) if t.kind is Kind.NAME), None)) \
                is not None and self.toks[s0].text == subject[0] and self.w(s0 + 1, "and") \
                and all(t.kind is Kind.WORD and t.low in _ADVERBS | _CONNECTIVES for t in self.toks[:s0]):
            with_kin = next((ph for ph in self.phrases if ph.start == s0 + 2 and ph.holders and ph.pos < j), None)
            if with_kin is not None:  # "(So) [Marian] and her husband [Elliott] …"
                out.append([self.toks[s0].text, with_kin.holders[0]])
        for ph in self.phrases:
            if ph.pos < j and ph.kin.plural and len(ph.holders) >= 2 and ph.holders not in out:
                out.append(list(ph.holders))
        return out

    def _plural_predicate(self, ph: _Phrase) -> None:
        """"[A] and [B] are sisters", "[A] and [B] were twins", "the siblings, [A] and [B], …": a symmetric
        relation within the group."""
        if ph.kin.plural and ph.kin.relation == "ex:sibling" and (ph.pos == 0 or self.w(ph.pos - 1, "the")):
            names = self._holder_right(ph.pos)
            for a in names:
                for b in names:
                    if a != b:
                        self.out.append((ph.kin.relation, (a,), b, "", ""))
            if names:
                return
        if not ph.kin.plural and len(self.subject) == 2 and self.w(ph.pos - 1, *_BE) and self.w(ph.pos + 1, "and") \
                and self.kin_at(ph.pos + 2) is not None and self.kin_at(ph.pos + 2).relation == ph.kin.relation \
                and ph.kin.relation in ("ex:sibling", "ex:spouse") and all(isinstance(p, str) for p in self.subject):
            a, b = self.subject  # "[A] and [B] are brother and sister / husband and wife"
            self.out.extend([(ph.kin.relation, (a,), b, "", ""), (ph.kin.relation, (b,), a, "", "")])
            return
        if not ph.kin.plural or len(self.subject) < 2:
            return
        k = ph.pos - 1
        while k >= 0 and self.toks[k].kind is Kind.WORD and (self.toks[k].low in _ARTICLES | _ADVERBS or
                                                            self.kin_at(k) and k not in self.kin_words):
            k -= 1
        while k >= 1 and self.toks[k].kind is Kind.WORD and (self.toks[k].low in ("although", "though")
                                                            or _modifier(self.toks[k].low)) and ph.pos - k <= 4:
            k -= 1  # "[D] and [G], although once close brothers, …"
        apposed = k >= 1 and self.toks[k].text == "," and _is_name(self.t(k - 1)) and self.t(k - 1).text in self.subject
        if not (k >= 0 and self.toks[k].low in _BE) and not apposed:  # "[D] and [G], both brothers, …"
            return
        rel = ph.kin.relation
        if rel not in ("ex:sibling", "ex:spouse"):
            return
        names = [p for p in self.subject if isinstance(p, str)]
        for a in names:
            for b in names:
                if a != b:
                    self.out.append((rel, (a,), b, "", ""))

    # -- coreference ------------------------------------------------------------------------------
    def _antecedents(self, pos: int, gender: str, exclude: tuple, subject_first: bool = False) -> list[Person]:
        """The people a pronoun of ``gender`` at ``pos`` may refer to, the likeliest first."""
        here: list[tuple[Person, bool]] = []   # (person, only a possessor inside an NP)
        for k in range(pos):
            t = self.toks[k]
            if t.kind is Kind.NAME:
                embedded = self.t(k + 1) is not None and self.t(k + 1).kind is Kind.POSS
                here.append((t.text, embedded))
            elif self.plain_name(k):
                here.append((self.plain_name(k), False))
            elif k in self.resolved:
                here.extend((p, False) for p in self.resolved[k])
            else:
                ph = next((p for p in self.phrases if p.pos == k), None)
                if ph is not None and not ph.holders and not ph.kin.plural:
                    p = ph.person()
                    if p is not None:
                        here.append((p, False))
        fits = [(p, e) for p, e in here if self.fits(p, gender) and p not in exclude]
        if not fits:
            named = [t.text for t in self.toks[:pos] if t.kind is Kind.NAME and t.text not in exclude]
            if named:
                # "[Kirk] and her sister …" with Kirk male in the record: the text and the record
                # disagree about the genders (names swapped in the story) or "her" is someone of the
                # previous sentence; each is a reading, the sentence's subject first
                before = [p for p in self.ctx.subject + self.ctx.mentions
                          if isinstance(p, str) and self.fits(p, gender) and p not in exclude]
                order = [p for p in self.subject if p in named] + named[::-1] + before
                return list(dict.fromkeys(order))
            prev = list(dict.fromkeys(p for p in self.ctx.subject + self.ctx.mentions
                                      if isinstance(p, str) and self.fits(p, gender) and p not in exclude))
            if not prev:
                # "[L] talks to his sister. Her daughter is [M].": the one unnamed person of the gender
                unnamed = list(dict.fromkeys(p for p in self.ctx.mentions if isinstance(p, Unnamed)
                                             and p.gender == gender and p.anchor not in exclude))
                if len(unnamed) == 1:
                    return unnamed
            subj = self.ctx.subject
            if len(prev) > 1 and len(subj) == 1 and subj[0] in prev and \
                    all(p in self.ctx.owned.get(subj[0], ()) for p in prev if p != subj[0]):
                # "[Myrna] is going to visit her mother, [Gabrielle]. Her daughter, [Anna], …": the
                # previous subject, not someone introduced as the subject's own kin
                return [subj[0]]
            if not prev and not here and not self.ctx.mentions and self.toks and self.toks[0].low in _SUBORDINATORS:
                main = self._main_subject(pos)
                if main is not None and self.fits(main, gender) and main not in exclude:
                    return [main]  # "After leaving his mom's house [C] called …": the main clause's subject
            return prev
        people = list(dict.fromkeys(p for p, _ in fits))
        if len(people) > 1:
            parallel = self._parallel(pos, people)
            if parallel is not None:
                return [parallel]
        # the likeliest first: the antecedent of the same pronoun before, the subject, the nearest
        same = [ph.possessors[0] for ph in self.phrases if ph.possessors and 0 <= ph.start < pos
                and self.toks[ph.start].low == self.toks[pos].low and ph.start != pos]
        order = [p for p in same if p in people] + [p for p in self.subject if p in people] + people[::-1]
        people = list(dict.fromkeys(order))
        return people

    def _main_subject(self, pos: int) -> str | None:
        """The subject of the main clause after a fronted subordinate clause: the first name after
        ``pos`` that a finite verb (or a modal) follows."""
        for k in range(pos + 1, len(self.toks)):
            t, nxt = self.toks[k], self.t(k + 1)
            if t.kind is Kind.NAME and nxt is not None and nxt.kind is Kind.WORD and (
                    finite_verb(nxt.low) or nxt.low in _MODALS):
                return t.text
        return None

    def _parallel(self, pos: int, people: list[Person]) -> Person | None:
        """"[J] invited her grandmother [G] and her sister [A]": a pronoun coordinated right after
        the same pronoun's phrase refers to the same person (the other candidates being that
        person's own kin named so far), unless its phrase starts a new clause ("… his brother [J]
        yesterday and his daughter [A] wanted to come")."""
        b = pos - 1
        if not self.w(b, "and"):
            return None
        b -= 1
        if self.t(b) is not None and self.t(b).text == ",":
            b -= 1
        before = next((ph for ph in reversed(self.phrases) if ph.holders and self.t(b) is not None
                       and self.t(b).kind is Kind.NAME and self.t(b).text == ph.holders[-1]), None)
        if before is None or len(before.possessors) != 1 or before.group or \
                self.toks[before.start].low != self.toks[pos].low:
            return None
        who = before.possessors[0]
        owned = {h for ph in self.phrases if ph.possessors == [who] for h in ph.holders}
        if who not in people or any(p != who and p not in owned for p in people):
            return None
        k = pos + 1
        while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k):
            k += 1
        k += 1
        while self.t(k) is not None and (self.t(k).kind is Kind.NAME or self.t(k).text == ","):
            k += 1
        nxt = self.t(k)
        if nxt is not None and nxt.kind is Kind.WORD and finite_verb(nxt.low):
            return None
        return who

    # -- couples, births, names given later ---------------------------------------------------------
    def _events(self) -> None:
        toks = self.toks
        lows = [t.low for t in toks]
        subject = [p for p in self.subject if isinstance(p, str)]
        # "[A] and [B] are married": no kinship word anywhere ("… wish their parents [C] and [D] a happy
        # anniversary" is about another couple)
        first_kin = min(self.kin_words, default=len(toks))
        couple_here = len(subject) == 2 and self.w(1, "and") and not any(
            self.kin_at(k) for k in range(first_kin) if k < 4)
        # the couple words of the subject's own clause: before any kinship word ("[A] and [B], a married
        # couple, took [B]'s mother …"; not "… wish their parents [C] and [D] a happy anniversary")
        if couple_here and self._subjects_couple_word(first_kin, subject):
            self.out.append(("ex:spouse", (subject[0],), subject[1], "", ""))
            self.ctx.couple = subject
        elif not couple_here and not self.kin_words and self._their_couple_word():
            # "[Jeff] surprised [Heidi] … on their 10 year marriage anniversary": the two people named
            pair = [x.text for x in toks if x.kind is Kind.NAME]
            self.out.append(("ex:spouse", (pair[0],), pair[1], "", ""))
            self.ctx.couple = pair
        for k, t in enumerate(toks):
            if (t.low in self.lex.marry_words or t.low in self.lex.birth_words) and self._negated_clause(k):
                continue  # "[A] never married [B]", "[A] did not adopt [C]"
            if t.low in self.lex.marry_words:
                a = self._name_before(k)
                b = k + 1
                if self.w(b, "to"):
                    b += 1
                if _is_name(self.t(b)) and self.t(b + 1) is not None and self.t(b + 1).kind is Kind.POSS:
                    # "[H] married [I]'s daughter [J]": the spouse is the phrase's holder, not I
                    ph = next((x for x in self.phrases if x.start == b and x.pos > b), None)
                    if a is not None and ph is not None and len(ph.holders) == 1 and ph.holders[0] != a:
                        self.out.append(("ex:spouse", (a,), ph.holders[0], "", ""))
                        self.ctx.couple = [a, ph.holders[0]]
                elif a is not None and _is_name(self.t(b)) and a != self.t(b).text:
                    self.out.append(("ex:spouse", (a,), self.t(b).text, "", ""))
                    self.ctx.couple = [a, self.t(b).text]
                elif a is None and not couple_here and self._two_named_marry(k):
                    pair = [x.text for x in toks[:k] if x.kind is Kind.NAME]
                    self.out.append(("ex:spouse", (pair[0],), pair[1], "", ""))
                    self.ctx.couple = pair
                elif a is not None and not couple_here:
                    self.ctx.couple = [a]
                    noun = self._person_noun(b)
                    if noun is not None and not any(x.kind is Kind.NAME for x in toks[b:]):
                        # "[Dan] is married to a special woman. Her name is [Marci]."
                        self.ctx.pending = _Phrase(k, KinWord("ex:spouse", noun), "spouse", possessors=[a])
            if t.low in self.lex.birth_words and self._passive(k):
                # "[C] was adopted by [A]", "[C] was born to [A]": the object is the parent
                child = self._name_before(k)
                if child is not None and self.w(k + 1, "by", "to") and _is_name(self.t(k + 2)) \
                        and self.t(k + 2).text != child:
                    self.out.append(("ex:child", (self.t(k + 2).text,), child, "", ""))
            elif t.low in self.lex.birth_words and t.low != "born":
                m = k + 1
                while m < len(toks) and m - k <= 6 and toks[m].kind is Kind.WORD:
                    m += 1
                if _is_name(self.t(m)) and (t.low != "welcomed" or "world" in lows[m:]):
                    child = self.t(m).text
                    parents = self._parents_of_birth(k)
                    for p in parents:
                        if p != child:
                            self.out.append(("ex:child", (p,), child, "", ""))

    def _passive(self, k: int) -> bool:
        """Whether the verb at ``k`` follows a form of "be" ("was adopted", "were born")."""
        b = k - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _ADVERBS:
            b -= 1
        return b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _BE

    def _subjects_couple_word(self, end: int, subject: list[str]) -> bool:
        """A couple word before token ``end`` that is the subjects' own: not after a third person's name,
        not owned by "his"/"her"/someone's ("[A] and [B] went to see [C] on his honeymoon")."""
        for k in range(end):
            if self.toks[k].low not in self.lex.couple_words:
                continue
            if self._negated_clause(k) or self.toks[k].low in self.lex.marry_words and any(
                    self.toks[x].low == "to" or self.toks[x].low in _MODALS - {"did", "does", "do"}
                    for x in range(max(0, k - 3), k)):
                return False  # "[A] and [B] are not married", "… plan to get married", "… will be married"
            if any(t.kind is Kind.NAME and t.text not in subject for t in self.toks[:k]):
                return False
            if not any(t.kind is Kind.POSS or t.low in self.lex.pronouns for t in self.toks[max(0, k - 3):k]):
                return True
        return False

    def _their_couple_word(self) -> bool:
        """"their (…) anniversary / marriage" in a sentence naming exactly two people, both before "their"."""
        names = [x for x in self.toks if x.kind is Kind.NAME]
        if len(names) != 2 or names[0].text == names[1].text:
            return False
        for k, t in enumerate(self.toks):
            if t.is_word("their") and t.start > names[1].start and not self._negated_clause(k):
                m = k + 1
                while m < len(self.toks) and m - k <= 4 and self.toks[m].kind is Kind.WORD:
                    if self.toks[m].low in self.lex.couple_words:
                        return True
                    m += 1
        return False

    def _two_named_marry(self, k: int) -> bool:
        """"[D] became friends with [A] …, and later the two were married", "… and soon after they
        wed": "they" / "the two" before the marry word, exactly two people named before it, no
        kinship word and nothing named after it."""
        b = k - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _BE | _HAVE | _ADVERBS:
            b -= 1
        if not (self.w(b, "they") or self.w(b, "two") and self.w(b - 1, "the")):
            return False
        names = {x.text for x in self.toks[:k] if x.kind is Kind.NAME}
        return len(names) == 2 and len([x for x in self.toks[:k] if x.kind is Kind.NAME]) == 2 \
            and not self.kin_words and not any(x.kind is Kind.NAME for x in self.toks[k:])

    def _person_noun(self, b: int) -> str | None:
        """The gender of "a (special) woman" starting at ``b`` (rules/kinship.toml ``[person_nouns]``)."""
        k = b
        while self.t(k) is not None and self.t(k).kind is Kind.WORD and k <= b + 3:
            g = self.lex.person_nouns.get(self.t(k).low)
            if g is not None:
                return g
            k += 1
        return None

    def _parents_of_birth(self, k: int) -> list[Person]:
        """Who gave birth / welcomed the child: the name or pronoun right before the verb, a kinship
        phrase there ("his daughter Alice gave birth to [V]": the daughter), or the couple."""
        b = k - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _BE | _HAVE | _ADVERBS | {"gave", "give"}:
            b -= 1
        t = self.t(b)
        if t is None:
            return []
        if t.kind is Kind.WORD and t.text[:1].isupper() and b > 0 and self.kin_at(b - 1):
            b -= 1  # an unbracketed name after the phrase: "his daughter Alice"
            t = self.t(b)
        if t.kind is Kind.NAME:
            return [t.text]
        if self.kin_at(b):
            ph = next((p for p in self.phrases if p.pos == b), None)
            person = ph.person() if ph is not None else None
            return [person] if person is not None else []
        if t.low in self.lex.group_words or t.low == "they":
            return list(self.ctx.couple)
        if t.low in self.lex.subject_pronouns:
            got = self.resolved.get(b) or self._antecedents(b, self.lex.subject_pronouns[t.low], (), True)
            return got[:1] if len(got) == 1 else []
        return []

    def _name_before(self, k: int) -> str | None:
        b = k - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in _BE | _HAVE | _ADVERBS | {"gave", "give"}:
            b -= 1
        if self.t(b) is not None and self.t(b).text == ",":
            ph = next((x for x in self.phrases if x.pos == b - 1 and x.start >= 2 and x.holders), None)
            if ph is not None and self.t(ph.start - 1).text == "," and _is_name(self.t(ph.start - 2)) \
                    and self.t(ph.start - 2).text == ph.holders[0] and ph.start == 2:
                return ph.holders[0]  # "[B], [A]'s son, is married to [C]": B
        return self._named_at(b)

    def _unnamed_subject_at(self, b: int) -> Unnamed | None:
        """The unnamed person of a kinship phrase that starts the sentence and ends at ``b`` ("[A]'s
        mother is the child of [B]": A's mother), when it names nobody itself."""
        ph = next((x for x in self.phrases if x.pos == b), None)
        if ph is None or ph.start != 0 or ph.holders or ph.group or len(ph.possessors) != 1:
            return None
        p = ph.person()
        return p if isinstance(p, Unnamed) else None

    def _named_at(self, b: int) -> str | None:
        """The name at token ``b``, or the one certain antecedent of a subject pronoun there."""
        t = self.t(b)
        if t is not None and t.kind is Kind.NAME:
            return t.text
        if t is not None and t.low in self.lex.subject_pronouns:
            got = self.resolved.get(b) or self._antecedents(b, self.lex.subject_pronouns[t.low], (), True)
            if len(got) == 1 and isinstance(got[0], str):
                return got[0]
        return None

    def _pending_named(self) -> bool:
        """"His name is [B].", "The son is named [B].", "[B] is the son's name.": the holder of the
        previous sentence's phrase that had none."""
        ph = self.ctx.pending
        assert ph is not None
        toks = self.toks
        name = None
        for k, t in enumerate(toks):
            if t.kind is not Kind.NAME:
                continue
            before = [x.low for x in toks[max(0, k - 3):k]]
            after = [x.low for x in toks[k + 1:k + 7]]
            if before[-2:] in (["name", "is"], ["name", "was"]) \
                    or before[-2:] in (["is", "named"], ["was", "named"], ["is", "called"], ["named", "him"],
                                       ["named", "her"], ["name", "him"], ["name", "her"]) \
                    or after[:1] in (["is"], ["was"]) and "name" in after \
                    or before[-2:] in ([ph.word.lower(), "is"], [ph.word.lower(), "was"]):  # "Her son is [B]"
                name = t.text
                break
        if name is None:
            return False
        if any(self.toks[k].low != ph.word.lower() for k in self.kin_words):
            return False  # "The brother has a sister whose name is [M]": the name belongs to this sentence's phrase
        self.ctx.pending = None
        pron = next((k for k, t in enumerate(toks) if t.low in self.lex.pronouns), None)
        if pron is not None:
            # "His name is [B]": the pronoun is the holder; "Her son is named [B]": the possessor
            owner = self.kin_at(pron + 1) is not None
            want = [self.gender(p) for p in ph.possessors] if owner else [ph.kin.gender]
            if any(g and self.lex.pronouns[toks[pron].low] != g for g in want):
                return False
        if ph.group:
            for p in ph.possessors:
                self.out.append((ph.kin.relation, (p,), name, ph.word, ""))
        elif ph.possessors:
            self.out.append((ph.kin.relation, tuple(ph.possessors), name, ph.word, ph.reason))
        return True

    def _naming_later(self) -> None:
        """"… a baby girl that he has named [Anna]", "… had a baby boy and named him [X]": a phrase
        without a holder gets the name given later in the same sentence."""
        ph = self.ctx.pending
        if ph is None or ph not in self.phrases:
            return
        for k in range(ph.pos + 1, len(self.toks)):
            if self.kin_at(k) and k in self.kin_words:
                return  # "… his sister, … an infant daughter of his own named [X]": the name is the daughter's
            if self.w(k, "named", "name", "called") and (_is_name(self.t(k + 1)) or
                                                         self.w(k + 1, "him", "her") and _is_name(self.t(k + 2))):
                name = self.t(k + 1).text if _is_name(self.t(k + 1)) else self.t(k + 2).text
                self.emit(ph, name, ph.possessors, ph.group, ph.reason)
                self.ctx.pending = None
                return

    def _leave_context(self) -> None:
        ctx = self.ctx
        people: list[Person] = []
        for k, t in enumerate(self.toks):
            if t.kind is Kind.NAME:
                people.append(t.text)
            elif self.plain_name(k):
                people.append(self.plain_name(k))
            ph = next((p for p in self.phrases if p.pos == k), None)
            if ph is not None and not ph.holders and not ph.kin.plural:
                p = ph.person()
                if p is not None:
                    people.append(p)
        if people or self.subject:
            ctx.mentions = list(dict.fromkeys(people))
            ctx.subject = list(self.subject) or people[:1]
            ctx.owned = {}
            ctx.groups = self._groups(len(self.toks))
            for ph in self.phrases:
                if len(ph.possessors) == 1 and not ph.group:
                    ctx.owned.setdefault(ph.possessors[0], set()).update(ph.holders)
        if ctx.pending is not None and ctx.pending is self.pending_before and not self._keeps_pending():
            ctx.pending = None

    def _keeps_pending(self) -> bool:
        return not any(t.kind is Kind.NAME for t in self.toks)


#: Function words a sentence may start with (morphology has no entry for them).
_CLOSED = frozenset({"the", "a", "an", "and", "but", "or", "nor", "if", "so", "as", "his", "her", "their", "he", "she",
                     "they", "it", "we", "i", "you", "my", "our", "its", "your", "after", "before", "when", "while",
                     "since", "because", "although", "though", "once", "unless", "until", "on", "in", "at", "for",
                     "with", "to", "from", "of", "by", "about", "this", "that", "these", "those", "there", "here",
                     "who", "what", "which", "where", "why", "how", "every", "each", "all", "some", "no", "not",
                     "both", "either", "neither", "upon", "during", "without", "within", "into", "onto", "than", "despite"})


def _unknown(p: Person) -> bool:
    return isinstance(p, str) and p.startswith("?")


@lru_cache(maxsize=65536)
def _known_word(low: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(low))


@lru_cache(maxsize=65536)
def _modifier(low: str) -> bool:
    """A word morphology knows as an adjective or adverb (also when it is a noun or verb too: "close",
    "once"), for the words of an apposition before a kinship word."""
    from lemminflect import getAllLemmas

    pos = getAllLemmas(low)
    return "ADJ" in pos or "ADV" in pos


def _adjective(low: str) -> bool:
    """A word morphology knows as an adjective and not as a noun ("proud", "amazing"), or one of the
    adjectives that are also nouns seen before names ("lovely", "little")."""
    from lemminflect import getAllLemmas

    pos = getAllLemmas(low)
    return "ADJ" in pos and "NOUN" not in pos or low in ("lovely", "little")


def _merge_compounds(toks: list[Tok], lex: KinshipLexicon) -> list[Tok]:
    """"grand parent" → grandparent, "father in law" → father-in-law (one kinship word)."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.is_word("grand", "great") and i + 1 < len(toks) and toks[i + 1].kind is Kind.WORD \
                and lex.kin("grand" + toks[i + 1].low) and t.low == "grand":
            n = toks[i + 1]
            out.append(Tok(Kind.WORD, "grand" + n.low, t.start, n.end))
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


def _through(p: Person, kin: KinWord) -> Unnamed:
    """The person ``kin`` of ``p`` names ("his sister" → Unnamed(his referent, (sibling,)))."""
    if isinstance(p, Unnamed):
        return Unnamed(p.anchor, p.path + (kin.relation,), kin.gender)
    return Unnamed(p, (kin.relation,), kin.gender)


def _show(p: Person) -> str:
    return p if isinstance(p, str) else f"{p.anchor}'s " + "'s ".join(r.rsplit(":", 1)[-1] for r in p.path)
