"""Kinship stated without a kinship word: couples ("[A] and [B] are married", "[A] married [B]", "their
anniversary") and births or adoptions ("[A] gave birth to [C]", "[C] was adopted by [A]")."""
from __future__ import annotations

from .lexicon import KinWord
from .state import Phrase
from .story import Person, Unnamed
from .text import Kind, finite_verb
from .words import ADVERBS, BE, HAVE, MODALS, SUBORDINATORS, adjective, is_name


class Events:
    """The couple and birth readers of :class:`~.sentence.Sentence` (a mixin)."""

    # -- couples, births, names given later ---------------------------------------------------------
    def _events(self) -> None:
        toks = self.toks
        lows = [t.low for t in toks]
        subject = [p for p in self.subject if isinstance(p, str)]
        # "[A] and [B] are married": no kinship word anywhere ("… wish their parents [C] and [D] a happy
        # anniversary" is about another couple)
        first_kin = min(self.kin_words, default=len(toks))
        s0 = 1 if self.toks and self.toks[0].low in SUBORDINATORS else 0  # "Because [A] and [B] got married, …"
        couple_here = len(subject) == 2 and self.w(s0 + 1, "and") and is_name(self.t(s0)) and not any(
            self.kin_at(k) for k in range(first_kin) if k < 4 + s0)
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
            if t.low in self.lex.union_words and self.w(k + 1, "of") and not self._negated_clause(k):
                a, b = self.t(k + 2), self.t(k + 4)   # "at the marriage of [A] and [B]"
                if is_name(a) and self.w(k + 3, "and") and is_name(b) and a.text != b.text \
                        and not (self.t(k + 5) is not None and self.t(k + 5).kind is Kind.POSS):
                    self.out.append(("ex:spouse", (a.text,), b.text, "", ""))
            if (t.low in self.lex.marry_words or t.low in self.lex.birth_words) and self._negated_clause(k):
                continue  # "[A] never married [B]", "[A] did not adopt [C]"
            if t.low in self.lex.marry_words:
                a = self._name_before(k)
                b = k + 1
                if self.w(b, "to"):
                    b += 1
                if is_name(self.t(b)) and self.t(b + 1) is not None and self.t(b + 1).kind is Kind.POSS:
                    # "[H] married [I]'s daughter [J]": the spouse is the phrase's holder, not I
                    ph = next((x for x in self.phrases if x.start == b and x.pos > b), None)
                    if a is not None and ph is not None and len(ph.holders) == 1 and ph.holders[0] != a:
                        self.out.append(("ex:spouse", (a,), ph.holders[0], "", ""))
                        self.ctx.couple = [a, ph.holders[0]]
                elif a is not None and is_name(self.t(b)) and a != self.t(b).text:
                    self.out.append(("ex:spouse", (a,), self.t(b).text, "", ""))
                    self.ctx.couple = [a, self.t(b).text]
                elif a is not None and self._someone_named(b) is not None and self._someone_named(b) != a:
                    # "[A] is married to someone named [D]", "… to a nice man by the name of [D]"
                    self.out.append(("ex:spouse", (a,), self._someone_named(b), "", ""))
                    self.ctx.couple = [a, self._someone_named(b)]
                elif a is None and not couple_here and self._two_named_marry(k):
                    pair = [x.text for x in toks[:k] if x.kind is Kind.NAME]
                    self.out.append(("ex:spouse", (pair[0],), pair[1], "", ""))
                    self.ctx.couple = pair
                elif a is not None and not couple_here:
                    self.ctx.couple = [a]
                    noun = self._person_noun(b)
                    if noun is not None and not any(x.kind is Kind.NAME for x in toks[b:]):
                        # "[Dan] is married to a special woman. Her name is [Marci]."
                        self.ctx.pending = Phrase(k, KinWord("ex:spouse", noun), "spouse", possessors=[a])
            if t.low in self.lex.birth_words and self._passive(k):
                # "[C] was adopted by [A]", "[C] was born to [A]": the object is the parent
                child = self._name_before(k)
                if child is not None and self.w(k + 1, "by", "to") and is_name(self.t(k + 2)) \
                        and self.t(k + 2).text != child:
                    self.out.append(("ex:child", (self.t(k + 2).text,), child, "", ""))
            elif t.low in self.lex.birth_words and t.low != "born":
                m = k + 1
                while m < len(toks) and m - k <= 6 and toks[m].kind is Kind.WORD:
                    m += 1
                if self.t(m) is not None and self.t(m).text == "," and (
                        self.kin_at(m - 1) is not None or self.toks[m - 1].low in self.lex.person_nouns) \
                        and is_name(self.t(m + 1)) and not self._starts_clause(m + 1):
                    m += 1  # "[A] gave birth to a son, [C]": the son in apposition
                if is_name(self.t(m)) and (t.low != "welcomed" or "world" in lows[m:]):
                    child = self.t(m).text
                    parents = self._parents_of_birth(k)
                    for p in parents:
                        if p != child:
                            self.out.append(("ex:child", (p,), child, "", ""))

    def _starts_clause(self, k: int) -> bool:
        """Whether the name at ``k`` is a subject: a finite verb, a modal or a possessive follows it."""
        nxt = self.t(k + 1)
        return nxt is not None and (nxt.kind is Kind.POSS or nxt.kind is Kind.WORD and (
            finite_verb(nxt.low) or nxt.low in MODALS))

    def _passive(self, k: int) -> bool:
        """Whether the verb at ``k`` follows a form of "be" ("was adopted", "were born")."""
        b = k - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in ADVERBS:
            b -= 1
        return b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in BE

    def _subjects_couple_word(self, end: int, subject: list[str]) -> bool:
        """A couple word before token ``end`` that is the subjects' own: not after a third person's name,
        not owned by "his"/"her"/someone's ("[A] and [B] went to see [C] on his honeymoon")."""
        for k in range(end):
            if self.toks[k].low not in self.lex.couple_words:
                continue
            if self._negated_clause(k) or self.toks[k].low in self.lex.marry_words and any(
                    self.toks[x].low == "to" or self.toks[x].low in MODALS - {"did", "does", "do"}
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
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in BE | HAVE | ADVERBS:
            b -= 1
        if not (self.w(b, "they") or self.w(b, "two") and self.w(b - 1, "the")):
            return False
        names = {x.text for x in self.toks[:k] if x.kind is Kind.NAME}
        return len(names) == 2 and len([x for x in self.toks[:k] if x.kind is Kind.NAME]) == 2 \
            and not self.kin_words and not any(x.kind is Kind.NAME for x in self.toks[k:])

    def _someone_named(self, b: int) -> str | None:
        """The name of "someone named [D]" / "a (nice) man called [D]" / "a woman by the name of [D]"
        starting at ``b``."""
        k = b
        if self.w(k, "someone", "somebody"):
            k += 1
        elif self.w(k, "a", "an"):
            k += 1
            while self.t(k) is not None and self.t(k).kind is Kind.WORD and k <= b + 3 \
                    and self.t(k).low not in self.lex.person_nouns and adjective(self.t(k).low):
                k += 1
            if not self.w(k, *self.lex.person_nouns):
                return None
            k += 1
        else:
            return None
        if self.w(k, "named", "called"):
            k += 1
        elif self.w(k, "by") and self.w(k + 1, "the") and self.w(k + 2, "name") and self.w(k + 3, "of"):
            k += 4
        else:
            return None
        return self.t(k).text if is_name(self.t(k)) and not self._starts_clause(k) else None

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
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in BE | HAVE | ADVERBS | {"gave", "give"}:
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
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in BE | HAVE | ADVERBS | {"gave", "give"}:
            b -= 1
        if self.w(b, "who") and b >= 1:
            n = b - 2 if self.t(b - 1).text == "," else b - 1
            if is_name(self.t(n)):
                return self.t(n).text  # "[B], who is married to [C], …"
        if self.t(b) is not None and self.t(b).text == ",":
            ph = next((x for x in self.phrases if x.pos == b - 1 and x.start >= 2 and x.holders), None)
            if ph is not None and self.t(ph.start - 1).text == "," and is_name(self.t(ph.start - 2)) \
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

