"""Possessors and holders that a phrase's determiner does not give: the person a noun phrase describes
("… in ages [E] is a man with a daughter named [G]", also where a missing full stop joins two
sentences), a name before a kinship word whose "'s" is missing ("took [D] kids [J] and [A]"), the
subjects of a second verb or a gerund ("[A] and [B] married and had two kids", "proud of his son, [J],
for … having a kid named [S]"), the group of "their" a list of names makes, a plural written with "'s"
("his son's [J] and [N]"), and a pronoun whose gender the record overrules where the sentence names
its possessor by structure ("[Kirk] and her sister [L]", Kirk male)."""
from __future__ import annotations

from .text import Kind, finite_verb
from .words import ADVERBS, ARTICLES, BE, CLOSED, CONNECTIVES, is_name


class Owners:
    """The possessor readers of :class:`~.sentence.Sentence` (a mixin) beside the determiner's."""

    def _described_by(self, j: int) -> str | None:
        """The name that "[X] is a <person noun>" before "with" at ``j`` describes: "[X] is a man with a
        son named [Y]" gives X, the possessor of "a son", whoever the sentence's first subject is."""
        if self.w(j - 1, *self.lex.person_nouns) and self.w(j - 2, "a", "an") and self.w(j - 3, *BE) \
                and is_name(self.t(j - 4)):
            return self.t(j - 4).text
        return None

    def _unnamed_owner(self, j: int) -> bool:
        """Whether "with" at ``j`` follows a person the text does not name ("[A] told [E] about a man with a
        daughter named [G]": the man's daughter, not A's), outside "[X] is a man with …"."""
        return self.w(j - 1, *self.lex.person_nouns) and self.w(j - 2, "a", "an", "the", "this", "that") \
            and self._described_by(j) is None

    def _bare_owner(self, j: int) -> bool:
        """Whether the name at ``j``, right before a kinship word and its holder's name, owns that word with
        its "'s" missing ("took [D] kids [J] and [A]", "[M] wife [A] said …"): not after "and" / "or",
        where it may close a coordination whose members all own the word ("[A] and [B] son [C]")."""
        return not self.w(j - 1, "and", "or", "nor")

    def _subject_of_second_verb(self, b: int) -> list[str]:
        """The two names of a sentence that opens "[A] and [B] <verb> … and" when "and" at ``b`` joins a
        second verb phrase to theirs ("[A] and [B] married and had two kids"): both are its subject;
        nobody when another name, a pronoun or a clause boundary comes between."""
        if not (self.w(b, "and") and is_name(self.t(0)) and self.w(1, "and") and is_name(self.t(2))
                and self.t(3) is not None and self.t(3).kind is Kind.WORD and finite_verb(self.t(3).low)):
            return []
        if any(t.kind is not Kind.WORD or t.low in CLOSED or self.kin_at(k) is not None
               for k, t in enumerate(self.toks[3:b], 3)):
            return []
        return [self.t(0).text, self.t(2).text] if self.t(0).text != self.t(2).text else []

    def _subject_with_spouse(self, ph) -> list[str]:
        """"[A] and her husband [J] are the parents of [C]": A and the spouse both hold a plural kinship
        word whose copula follows the spouse's name (a name the record does not bracket too)."""
        if not ph.kin.plural or not (is_name(self.t(0)) and self.w(1, "and") and self.w(2, *self.lex.pronouns)):
            return []
        spouse = self.kin_at(3)
        k = 5 if self.t(4) is not None and self.t(4).text == "," else 4
        who = self.t(k).text if is_name(self.t(k)) else self.plain_person(k)
        k += 2 if self.t(k + 1) is not None and self.t(k + 1).text == "," else 1
        if spouse is None or spouse.relation != "ex:spouse" or who is None or not self.w(k, *BE) \
                or not all(t.kind is Kind.WORD and (t.low in ARTICLES or t is self.toks[ph.pos])
                           for t in self.toks[k + 1:ph.pos + 1]):
            return []
        return [self.t(0).text, who]

    def _coordinated_owner(self, pos: int, exclude: tuple) -> str | None:
        """The name that opens the sentence's coordinated subject "[X] and <pronoun> <word> …" when the
        pronoun at ``pos`` fits nobody of its gender before it: the coordination names its possessor and
        the record's gender of X wins over the pronoun's ("[Kirk] and her sister [Lisa] went to Mexico",
        Kirk male: Kirk's sister, as the record decides the gender of a kinship word's holder)."""
        x = pos - 2
        if x < 0 or not is_name(self.t(x)) or not self.w(pos - 1, "and") or self.t(x).text in exclude \
                or self.kin_at(pos + 1) is None:
            return None
        if not all(t.kind is Kind.WORD and t.low in CONNECTIVES for t in self.toks[:x]):
            return None
        return self.t(x).text

    def _slipped_subject(self, pos: int, exclude: tuple) -> str | None:
        """The name opening the sentence as the subject of the verb whose object the pronoun at ``pos``
        opens, when the pronoun fits nobody of its gender in the sentence ("[James] took her daughter
        [D] for ice cream", James male in the record): the subject's, the record deciding the gender as
        it does for a kinship word's holder; the sentence names nobody else before the pronoun, and the
        sentence before is not about someone of the pronoun's gender ("[Ellen] was ill. [Peter] was
        proud of her son [D]": Ellen's, or a choice)."""
        x = self._opening(pos)
        if x is None or not is_name(self.t(x)) or self.t(x).text in exclude or self.kin_at(pos + 1) is None \
                or pos - x > 4 or pos - x < 2 or not finite_verb(self.t(x + 1).low if self.t(x + 1).kind is Kind.WORD else ""):
            return None
        gender = self.lex.pronouns.get(self.t(pos).low, "")
        if any(isinstance(p, str) and self.fits(p, gender) for p in self.ctx.subject):
            return None  # "[Ellen] was ill. [Peter] was proud of her son": the sentence before is about her
        if any(t.kind is not Kind.WORD or t.low in CLOSED - {"to", "for", "with", "of", "at", "on"} or self.kin_at(k) is not None
               or t.low in self.lex.object_pronouns or t.low in self.lex.subject_pronouns
               for k, t in enumerate(self.toks[x + 1:pos], x + 1)):
            return None
        return self.t(x).text

    def _listed_names_subject(self, j: int) -> list[str]:
        """The names of a list of three or more opening the sentence as the subject of a verb, before
        position ``j`` ("[A], [B], and [C] planned a party for their mother"): the group "their" is of."""
        names: list[str] = []
        k = 0
        while is_name(self.t(k)):
            names.append(self.t(k).text)
            if self.w(k + 1, "and") and is_name(self.t(k + 2)) and len(names) >= 2:
                names.append(self.t(k + 2).text)
                k += 3
                break
            if self.t(k + 1) is not None and self.t(k + 1).text == "," and self.w(k + 2, "and") \
                    and is_name(self.t(k + 3)) and len(names) >= 2:
                names.append(self.t(k + 3).text)
                k += 4
                break
            if self.t(k + 1) is None or self.t(k + 1).text != ",":
                return []
            k += 2
        else:
            return []
        while self.t(k) is not None and self.t(k).kind is Kind.WORD and self.t(k).low in ADVERBS | {"all", "both"}:
            k += 1
        verb = self.t(k)
        if k >= j or verb is None or verb.kind is not Kind.WORD or not finite_verb(verb.low) \
                or len(set(names)) != len(names):
            return []
        return names

    def _apostrophe_plural(self, i: int) -> list[str]:
        """The names after a kinship word written with "'s" for its plural, before a list of names that
        nothing owns ("his son's [J] and [N]", "her two kid's, [L] and [K], …"): two names or more."""
        if self.kin_at(i) is None or self.kin_at(i).plural or self.t(i + 1) is None \
                or self.t(i + 1).kind is not Kind.POSS or self.t(i + 1).text.lower() not in ("'s", "’s"):
            return []
        k = i + 3 if self.t(i + 2) is not None and self.t(i + 2).text == "," else i + 2
        names = self._name_list(k) if is_name(self.t(k)) else []
        return names if len(names) >= 2 else []

    def _object_of_preposition(self, k: int) -> bool:
        """Whether the name at ``k`` is the object of "of" / "to" / "for" / "with" and owns nothing after it
        ("[J] has been a lovely father of [D] and has a wife named [R]": D is no subject of "has")."""
        nxt = self.t(k + 1)
        return self.w(k - 1, "of", "to", "for", "with") and not (nxt is not None and nxt.kind is Kind.POSS) \
            and not (nxt is not None and nxt.kind is Kind.WORD and finite_verb(nxt.low))

    def _gerund_subject_after_for(self, j: int) -> str | None:
        """The subject of the gerund "having" at ``j`` in "… [J], for <verb>ing … (and) having …" when a
        name is the object right before "for" ("proud of his son, [J], for marrying a woman and having a
        kid named [S]": J has the kid); the words between name nobody."""
        if not self.w(j, "having"):
            return None
        f = j - 1
        while f >= 0 and self.toks[f].kind is Kind.WORD and not self.w(f, "for") and j - f <= 8 \
                and self.toks[f].low not in self.lex.pronouns and self.kin_at(f) is None \
                and self.toks[f].low not in self.lex.object_pronouns:
            f -= 1
        if not self.w(f, "for") or not (f + 1 == j or self.t(f + 1).low.endswith("ing")):
            return None
        n = f - 2 if self.t(f - 1) is not None and self.t(f - 1).text == "," else f - 1
        return self.t(n).text if is_name(self.t(n)) else None
