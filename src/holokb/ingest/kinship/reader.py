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
record decides the gender, as it does for the answer word), or names the holder and the one possessor
is the sentence's subject ("[A] was ill. She was with her mother [B]."); through another pronoun
resolved outside the sentence it is skipped (``gender_mismatch``): the mismatch may mean the pronoun
was misread.

This module assembles a story's readings (sentences → facts, choices, skips); one sentence is read by
:class:`~.sentence.Sentence`, whose steps live in ``negation``, ``phrases`` (possessors, holders,
possessive chains), ``coreference`` (pronouns, names given later) and ``events`` (couples, births);
``words`` holds the word classes, ``state`` the phrase and the context between sentences.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from ...core import IRI, Fact, Interval
from ...resources import data_dir
from ..english.reading import ReadFact, Reading, ReadSkip, SkipCode, SourceSpan
from .compose import compose, inverse
from .lexicon import KinshipLexicon, kinship_lexicon
from .sentence import Sentence
from .state import Context
from .story import Person, ReadChoice, StoryReading, Unnamed
from .text import sentences, tokens
from .typos import correct


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
        ctx = Context()
        for i, (a, b) in enumerate(sentences(text, self._names_a_person)):
            span = SourceSpan(a, b, i)
            spans.append(span)
            toks = tokens(text, a, b)
            fixed = correct(toks, self.lexicon) if self.typos else toks
            if fixed != toks:
                # a corrected kinship word is kept only when the corrected sentence states something
                before = copy.deepcopy(ctx)
                s = Sentence(self.lexicon, fixed, genders, ctx)
                stated = s.read()
                if not stated:
                    ctx = before
                    s = Sentence(self.lexicon, toks, genders, ctx)
                    stated = s.read()
            else:
                s = Sentence(self.lexicon, toks, genders, ctx)
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
                if mismatch and not s.names_all(possessors) and not self._record_decides(s, possessors, holder):
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

    @staticmethod
    def _record_decides(s: Sentence, possessors, holder: str) -> bool:
        """Whether a kinship word's gender against the record's is a slip of the word, not a misread
        pronoun: the sentence names the holder, and the one possessor is the sentence's own subject
        ("She was with her mother [B]." after "[A] was ill.": B is A's parent, of the record's gender)."""
        return len(possessors) == 1 and s.names_all((holder,)) and possessors[0] in s.subject

    def _gender_mismatch(self, word: str, holder: str, genders: dict[str, str]) -> str | None:
        k = self.lexicon.kin(word)
        want = k.gender if k is not None else ""
        have = genders.get(holder, "")
        if want and have and want != have:
            return f"'{word}' is {want} but the record says {holder} is {have}"
        return None

