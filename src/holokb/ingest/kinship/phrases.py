"""One kinship phrase at a time: its determiner, its possessor (a name's possessive, a pronoun, "their",
the subject of "has a <word>", "<word> of [A]", possessive chains through unnamed people such as "his
sister's son") and its holder (the name after it, the subject of the copula, an apposition)."""
from __future__ import annotations

from .lexicon import KinWord
from .state import Phrase
from .story import Person
from .text import Kind, complement_verb, finite_verb
from .words import (ADVERBS, ARTICLES, BE, BRIDGE, CONNECTIVES, HAVE, MODALS, NAMING, STOP, SUBORDINATORS,
                    adjective, is_name, modifier, show_person, through)


class KinshipPhrases:
    """The phrase readers of :class:`~.sentence.Sentence` (a mixin)."""

    # -- one kinship phrase -----------------------------------------------------------------------
    def _phrase(self, i: int) -> None:
        kin = self.kin_at(i)
        assert kin is not None
        ph = Phrase(i, kin, self.toks[i].text)
        self.phrases.append(ph)
        # the determiner: walk left over modifiers ("[A]'s lovely little daughter")
        j = i - 1
        while j >= 0 and self.toks[j].kind is Kind.WORD and self.toks[j].low not in STOP \
                and self.toks[j].low not in self.lex.pronouns and self.toks[j].low not in self.lex.plural_pronouns \
                and (not self.kin_at(j) or j == i - 1 and j not in self.kin_words) and i - j <= 5:
            j -= 1
            if self.t(j) is not None and self.t(j).text == "," and j < i - 1 and self.t(j - 1) is not None \
                    and self.t(j - 1).kind is Kind.WORD and not self.kin_at(j - 1) and self.t(j - 1).low not in STOP \
                    and self.t(j - 1).low not in ARTICLES and self.t(j - 2) is not None \
                    and self.t(j - 2).low in ARTICLES | self.lex.pronouns.keys():
                j -= 1  # coordinated adjectives: "the drunken, deadbeat uncle of [P]"
        det = self.t(j)
        ph.start = j + 1  # the determiner is not part of the phrase unless it names the possessor
        holders = self._holder_right(i)
        if det is not None and det.low in HAVE and self._have_phrase(ph, i, j, holders):
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
                        through(p, prev.kin) for p in prev.possessors]
                    ph.group, ph.reason = prev.group, prev.reason
                ph.start = prev.start if prev is not None else j - 1
        elif det is not None and det.kind is Kind.NAME and j == i - 1 and not self.w(i + 1, "of", "to") \
                and (not is_name(self.t(i + 1)) or self._bare_owner(j)):
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
                    and (self.w(j - 3, "with", "for", "at", "to", "from", "by") or self.t(j - 3) is not None
                         and self.t(j - 3).kind is Kind.WORD and finite_verb(self.t(j - 3).low)) \
                    and self._one_clause(j - 2):
                # "She … lunch with her and her husband", "[J]'s grandfather [S] took him and his sister":
                # the object's own kin; the object is not the subject of its own clause ("herself")
                ph.possessors = self._antecedents(j, self.lex.pronouns[det.low], exclude=ex + tuple(self.subject))
            self.resolved[j] = list(ph.possessors)
            ph.reason = f"'{det.text}' may refer to " + " or ".join(show_person(p) for p in ph.possessors)
        elif det is not None and det.low in self.lex.plural_pronouns:
            ph.start = j
            ph.possessors = self._group_before(j)
            ph.group = True
            partner = self._their_partner(j, ph.kin)
            if partner is not None:
                ph.possessors = partner  # "[A] and her friend took their sons [B] and [C]": maybe each one's
            if self._each_their_own(ph.possessors, ph.kin):
                ph.possessors = []  # "[A] and [B] are siblings. They took their kids [C] and [D] …"
        elif det is not None and det.low == "whose" and j >= 1:
            b = j - 1 if self.t(j - 1).text != "," else j - 2
            if is_name(self.t(b)):
                ph.possessors = [self.t(b).text]  # "[G], whose husband is named [J], …"
                ph.start = j
        elif det is not None and det.low in HAVE:
            ph.possessors, ph.group = self._has_subject(j)
        elif det is not None and det.low in ("for", "as") and j >= 2 and self._have_for(ph, j):
            return
        elif det is not None and det.low == "with" and (self._named_after(i) or j == i - 1 and holders):
            described = self._described_by(j)  # "[E] is a man with a daughter named [G]" (module owners)
            ph.possessors = [described] if described else [] if self._unnamed_owner(j) else [
                p for p in self.subject if isinstance(p, str)][:1]
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
                    ph.reason = "the owner may be " + " or ".join(show_person(p) for p in owners)
                if holders and holders[0] in owners:
                    holders = []
        if not ph.possessors and det is not None and det.low == "and" and j == i - 1 and j == 1 and holders \
                and is_name(self.t(0)) and holders[0] != self.t(0).text:
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
                    and is_name(self.t(0)) and is_name(self.t(2)) and self.w(3, *BE):
                holders = names  # "[A] and [B] are the parents of [C]": each of them
            couple = self._subject_with_spouse(ph)
            if couple:
                h, holders = couple[1], couple  # "[A] and her husband [J] are the parents of [C]"
            listed = self._listed_subject() if h is not None and ph.kin.plural else []
            if h in listed:
                holders = listed  # "[A], [B] and [C] are [D]'s children"
        ph.holders = holders
        if not holders:
            self.ctx.pending = ph  # "… with her son. His name is [Tom]."
            return
        for h in holders:
            self.emit(ph, h, ph.possessors, ph.group, ph.reason)

    def _have_phrase(self, ph: Phrase, i: int, j: int, holders: list[str]) -> bool:
        """Phrases after "have" that name the holder elsewhere: "[G] has a great father relationship
        with [J]" (G is J's father), "[M] is happy to have such a great daughter in/as/like [A]" (A is
        M's daughter; "a daughter like [A]" without "such" may be someone else), "[N] is happy to have
        [B] for/as a mother" (B is N's mother).  True when the phrase was read (or cannot be)."""
        subject, group = self._has_subject(j)
        one = subject[0] if len(subject) == 1 and not group and isinstance(subject[0], str) else None
        if self.w(i + 1, "relationship", "relationships", "bond") and self.w(i + 2, "with"):
            m = i + 3
            while self.t(m) is not None and self.t(m).kind is Kind.WORD and m <= i + 6 \
                    and (self.t(m).low in ARTICLES or adjective(self.t(m).low)):
                m += 1
            if one is not None and is_name(self.t(m)) and self.t(m).text != one:
                ph.possessors, ph.holders = [self.t(m).text], [one]
                self.emit(ph, one, ph.possessors, False)
            return True
        if not holders and self.w(i + 1, "like", "in", "as") and is_name(self.t(i + 2)) \
                and any(self.w(k, "such") for k in range(j + 1, i)) and one is not None:
            ph.possessors, ph.holders = [one], [self.t(i + 2).text]
            self.emit(ph, ph.holders[0], ph.possessors, False)
            return True
        return False

    def _have_for(self, ph: Phrase, j: int) -> bool:
        """"[N] is happy to have [B] for a mother": B is N's mother."""
        if not (self.w(j, "for", "as") and is_name(self.t(j - 1)) and self.t(j - 2) is not None
                and self.t(j - 2).low in HAVE and all(self.w(k, *ARTICLES) or self.t(k).kind is Kind.WORD
                                                       and adjective(self.t(k).low) for k in range(j + 1, ph.pos))):
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
                and adjective(self.t(k).low) and k < i + 5:
            k += 1
        return self.kin_at(k) is not None

    def _one_clause(self, k: int) -> bool:
        """Whether tokens before ``k`` are one clause with the sentence's subject: no other name, no
        kinship word, no infinitive or subordinate clause ("… invited her mother to spend a day with
        her": "her" is in the mother's clause); a subject "[J]'s grandfather [S]" is one phrase."""
        first = next((x for x, t in enumerate(self.toks[:k]) if t.kind is Kind.NAME and t.text in self.subject), 0)
        if first and not (self.t(1) is not None and self.t(1).kind is Kind.POSS and self.kin_at(2) is not None
                          and first == 3 and self.toks[0].kind is Kind.NAME):
            first = 0
        return not any(t.kind is Kind.NAME and t.text not in self.subject or t.kind is Kind.PUNCT
                       or t.kind is Kind.WORD and (t.low in ("to", "who", "that", "because", "so", "and")
                                               or t.low in SUBORDINATORS or self.kin_at(x) is not None)
                       for x, t in enumerate(self.toks[first + 1:k], first + 1))

    def _named_after(self, i: int) -> bool:
        return any(self.w(k, *NAMING) and is_name(self.t(k + 1)) for k in range(i + 1, min(i + 7, len(self.toks))))

    def _holder_right(self, i: int) -> list[str]:
        """The name right after the kinship word ("[A]'s son, [B]", "a son named [B]"), with names
        coordinated to it for a plural word ("his daughters [S] and [T]")."""
        toks = self.toks
        j = i + 1
        plural = self._apostrophe_plural(i)
        if plural:
            return plural  # "his son's [J] and [N]": sons (module owners)
        if self.t(j) is not None and self.t(j).kind is Kind.POSS and (self.w(j + 1, "name") or
                                                                      (self.t(j + 1) and self.t(j + 1).text == ",")):
            j += 1  # "[A]'s father's name is [B]", "her grandson's, [J], party"
        run = j
        named = self._someone_named(j + 1) if self.t(j) is not None and self.t(j).text == "," else None
        if named is not None:
            return [named]  # "[C]'s grandfather, a man by the name of [S]" (events)
        kin = self.kin_at(i)
        if kin is not None and kin.plural and (self.w(j, "are", "were") or self.t(j) is not None
                                               and self.t(j).text == ":") and is_name(self.t(j + 1)) \
                and not (self.t(j + 2) is not None and self.t(j + 2).kind is Kind.POSS):
            j += 1  # "[S]'s parents are [P] and [R]", "two sisters: [B] and [C]" (not "… are [P]'s friends")
        while j < len(toks) and j - run < 6 and (toks[j].text == "," or toks[j].is_word(*BRIDGE)):
            j += 1
        words = [t for t in toks[run:j] if t.kind is Kind.WORD]
        if any(t.is_word("he", "she", "has", "had", "by", "the", "of") for t in words) and not any(
                t.is_word(*NAMING) for t in words):
            return []  # "… her son, she has …": not a naming run
        if j < len(toks) and toks[j].kind is Kind.WORD:
            plain = self.plain_person(j)
            if plain is not None:
                return [plain]  # "her son Micheal"
        if j >= len(toks) or toks[j].kind is not Kind.NAME:
            return []
        if toks[j - 1].text == "," and self.toks[0].low in SUBORDINATORS and self.t(j + 1) is not None \
                and self.t(j + 1).kind is Kind.WORD and (finite_verb(self.t(j + 1).low) or self.t(j + 1).low in MODALS):
            return []  # "While watching his son, [A] could n't help …": [A] is the main clause's subject
        if self.t(j + 1) is not None and self.t(j + 1).kind is Kind.POSS and toks[j - 1].kind is Kind.WORD \
                and toks[j - 1].low in BE:
            return []  # "[A]'s son is [B]'s friend": the son is someone of B's, not B
        if self.t(j + 1) is not None and self.t(j + 1).kind is Kind.POSS and toks[j - 1].text == ",":
            k = self.kin_after_owner(j + 1)
            if k is not None:
                inner = self._holder_right(k)
                if inner:
                    return inner[:1]  # "a son, [Theresa]'s brother [Kevin]": in apposition, the holder is Kevin
        out = [toks[j].text]
        if kin is not None and kin.plural:
            k = j
            while k + 2 < len(toks) and (toks[k + 1].is_word("and") or toks[k + 1].text == ",") and \
                    (toks[k + 2].kind is Kind.NAME or (toks[k + 2].is_word("and") and is_name(self.t(k + 3)))):
                k = k + 2 if toks[k + 2].kind is Kind.NAME else k + 3
                out.append(toks[k].text)
        return out

    def _holder_left(self, ph: Phrase) -> str | None:
        """"[B] is (the) <word> of …", "[B] is [A]'s <word>", "[B], [A]'s <word>,", "[B] who is …"."""
        s = ph.start
        if s >= 2 and self.t(s - 1).text == "," and is_name(self.t(s - 2)):
            return self.t(s - 2).text  # apposition
        if s >= 2 and is_name(self.t(s - 1)) and self.t(s).kind is Kind.NAME and self.t(s - 2).kind is Kind.WORD \
                and complement_verb(self.t(s - 2).low):
            return self.t(s - 1).text  # "… which makes [Michael] [Marci]'s uncle": the object
        if s >= 1 and is_name(self.t(s - 1)) and self.w(s, "the") and self.w(ph.pos + 1, "of"):
            return self.t(s - 1).text  # "[Matthew] the uncle of [Donna]"
        own = s >= 1 and self.toks[s].low in self.lex.pronouns
        if own and is_name(self.t(s - 1)) and (s == 1 or self.t(s - 2).kind is Kind.PUNCT or self.w(
                s - 2, "and", "so", "but", "then", *SUBORDINATORS)) and self.t(ph.pos + 1) is not None \
                and self.t(ph.pos + 1).kind is Kind.WORD and (finite_verb(self.t(ph.pos + 1).low)
                                                             or self.t(ph.pos + 1).low in MODALS):
            return self.t(s - 1).text  # "… so [John] his son had to help him": a subject in apposition
        if own and s >= 2 and is_name(self.t(s - 1)) and self.w(s - 2, "for", "with", "to", "at", "from", "by") \
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
        while k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in ARTICLES | ADVERBS | {"of"}:
            k -= 1
        if k >= 1 and self.toks[k].kind is Kind.POSS and self.toks[k].text[-1:] == "s" \
                and self.toks[k - 1].low in self.lex.subject_pronouns:
            return self._named_at(k - 1)  # "since she's his daughter": "'s" is "is"
        if k >= 1 and self.toks[k].is_word("and") and self.w(ph.pos + 1, "of", "to"):
            b = k - 1
            while b >= 0 and self.toks[b].kind is Kind.WORD and b >= k - 4 and self.toks[b].low not in BE:
                b -= 1
            if b >= 1 and self.toks[b].low in BE and is_name(self.t(b - 1)) and not any(
                    self.kin_at(x) for x in range(b, k)):
                return self.t(b - 1).text
        if k >= 0 and self.toks[k].is_word("and") and len(self.phrases) >= 2 and self.phrases[-2].holders \
                and self.w(self.phrases[-2].pos + 1, "of", "to"):
            return self.phrases[-2].holders[0]  # "[R] is grandson of [G] and brother of [J]"
        if s >= 2 and self.w(s - 1, "and") and self.t(s).kind is Kind.NAME and len(self.phrases) >= 2:
            prev = self.phrases[-2]  # "[A] is [B]'s mother and [C]'s grandmother": A holds both
            at = next((x for x, t in enumerate(self.toks[:prev.start]) if prev.holders and t.kind is Kind.NAME
                       and t.text == prev.holders[0]), None)
            if prev.pos == s - 2 and at is not None and self.w(at + 1, *BE):
                return prev.holders[0]
        if k >= 1 and self.w(k, "being") and self.toks[s].low in self.lex.pronouns:
            return self._gerund_subject(k)
        if k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in BE:
            b = k - 1
            if self.w(b, "and"):  # "[L] is a female and is the granddaughter of [J]"
                b -= 1
                while b >= 0 and self.toks[b].kind is Kind.WORD and b >= k - 6 and self.toks[b].low not in BE:
                    b -= 1
                if b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in BE:
                    b -= 1
            if self.toks[k].low == "been":  # "[J] has been a lovely father of [S]"
                while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in HAVE | MODALS | ADVERBS:
                    b -= 1
            while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in ADVERBS | {"who", "that", "which"}:
                b -= 1
            if b >= 0 and self.toks[b].text == "," and self._before_apposition(b) != b:
                b = self._before_apposition(b)  # "[C], a tall man (of [D]), is the father of [L]"
            elif b >= 0 and self.toks[b].text == "," and self.t(b - 1) and self.t(b - 1).kind is Kind.NAME:
                b -= 1
            return self._named_at(b) or self._unnamed_subject_at(b)
        if k >= 3 and self.w(k, "name") and self.w(k - 1, "the") and self.toks[k - 2].low in BE \
                and self.w(s - 1, "of") and (self.toks[s].low in self.lex.pronouns or self.toks[s].kind is Kind.NAME):
            return self._named_at(k - 3)  # "[T] is the name of his granddaughter / of [C]'s father"
        return None

    def _gerund_subject(self, k: int) -> str | None:
        """The holder of "being his <word>" at ``k``: the subject of the verb it completes ("[B] did n't
        like being his dad": B), when that verb states a fact — no modal ("would hate being"), no
        preposition before "being" ("dreamed of being"), no belief word."""
        b = k - 1
        belief = frozenset(self.lex.data.get("counterfactual", {}).get("belief", ()))
        while b >= 0 and k - b <= 5 and self.toks[b].kind is not Kind.NAME and self.toks[b].text not in (",", ";"):
            t = self.toks[b]
            if t.kind is Kind.WORD and (t.low in MODALS - {"did", "does", "do"} or t.low in belief or t.low in (
                    "of", "about", "from", "without", "at", "to", "for", "in", "after", "before", "by", "imagine",
                    "imagined", "imagines", "pretend", "pretended", "consider", "considered", "avoid", "avoided")):
                return None
            b -= 1
        if b < 0 or self.toks[b].kind is not Kind.NAME or b == k - 1:
            return None
        return self.toks[b].text

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
        if between and between[-1] not in NAMING and any(x not in ARTICLES and not adjective(x) for x in between):
            return [], False  # "the proud [O]", "the amazing [S]"; not "the man who met [O]"
        if t.kind is Kind.WORD and t.low in self.lex.pronouns:
            k = m + 1
            while self.t(k) is not None and self.t(k).kind is Kind.WORD and not self.kin_at(k) and k <= m + 3:
                k += 1
            inner = self.kin_at(k)
            if inner is None or self._holder_right(k):
                return [], False
            owners = self._antecedents(m, self.lex.pronouns[t.low], exclude=exclude)
            return [through(p, inner) for p in owners], False
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
            return [through(t.text, inner)], False  # "the daughter of [Dwight]'s wife"
        names = self._name_list(m)  # "the proud mother of [Karen] and [Darnell]", "… of [A], [B] and [C]"
        return names, len(names) > 1

    def _name_list(self, m: int) -> list[str]:
        """The names coordinated from the name at ``m``: "[A] and [B]", "[A], [B](,) and [C]" (a list ends
        with "and"); just [A] when a name of the list is a possessor or starts a clause ("… of [A] and [B]'s
        son", "… of [A] and [B] went home")."""
        def ends_here(k: int) -> bool:
            nxt = self.t(k + 1)
            return nxt is not None and (nxt.kind is Kind.POSS or nxt.kind is Kind.WORD and finite_verb(nxt.low))

        names, k, commas = [self.toks[m].text], m, False
        while True:
            if self.w(k + 1, "and") and is_name(self.t(k + 2)):
                if ends_here(k + 2):
                    return names[:1] if commas else names  # "[A] and [B] and [C]'s son": A and B
                names.append(self.toks[k + 2].text)
                if commas or not self.w(k + 3, "and"):
                    return names
                k += 2
                continue
            if not commas and len(names) > 1 or self.t(k + 1) is None or self.t(k + 1).text != ",":
                return names if not commas else names[:1]
            if self.w(k + 2, "and") and is_name(self.t(k + 3)) and len(names) >= 2:
                return names[:1] if ends_here(k + 3) else names + [self.toks[k + 3].text]
            if not is_name(self.t(k + 2)) or ends_here(k + 2):
                return names[:1]
            names.append(self.toks[k + 2].text)
            k, commas = k + 2, True

    def _has_subject(self, j: int) -> tuple[list[Person], bool]:
        """The subject of "has/had (a) <word>": a name, a pronoun, "who" (the phrase before), or a group."""
        gerund = self._gerund_subject_after_for(j)
        if gerund is not None:
            return [gerund], False  # "proud of his son, [J], for … having a kid named [S]" (module owners)
        b = j - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in ADVERBS | {"also", "not", "does"}:
            b -= 1
        if b >= 1 and self.toks[b].text == ",":
            b -= 1
        if b >= 2 and self.w(b, "and") and self.w(b - 1, "did", "does", "do") and is_name(self.t(b - 2)):
            b -= 2  # "[Dwight] did and had a daughter"
        elif self.w(b, "and") and len(self.subject) == 1 and isinstance(self.subject[0], str) \
                and not any(x.kind is Kind.NAME and x.text != self.subject[0] and not self._object_of_preposition(k)
                            for k, x in enumerate(self.toks[:b])):
            return [self.subject[0]], False  # "[A] is older than his sister, and has a daughter …"
        if self.w(b, "to") and len(self.subject) == 1 and isinstance(self.subject[0], str) and not any(
                x.kind is Kind.NAME and x.text != self.subject[0] or x.kind is Kind.WORD and self.kin_at(k)
                for k, x in enumerate(self.toks[:b])):
            return [self.subject[0]], False  # "[M] is happy to have a daughter …": the subject's
        shared = self._subject_of_second_verb(b)
        if shared:
            return shared, True  # "[A] and [B] married and had two kids" (module owners)
        t = self.t(b)
        if t is None:
            return [], False
        if t.kind is Kind.WORD and self.plain_name(b) is not None and b == 0:
            return [self.plain_name(b)], False  # "Mary had two daughters [A] and [B]": a person not bracketed
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
            if self.w(b - 1, "and") and is_name(self.t(b - 2)):
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

    def _their_partner(self, j: int, kin: KinWord) -> list[Person] | None:
        """Who "their <word>" at ``j`` certainly refers to when the sentence's subject is one name and a
        kinship phrase or a noun ("[A] and her husband [H] …", "[A] and her friend …"); None when the
        subject is not such a pair.  A couple shares its descendants ("[A] and her husband … their
        sons"), siblings their elders and siblings ("[A] and her brother … their mother"); a couple's
        "their father" is someone's of a sibling pair named before it ("[A] and his wife [W] … visit
        [A]'s sister [S], while their father [F] …": A and S), else nobody's; anyone else's "their
        <word>" may be each one's own ("[A] and her friend … their sons"): nobody's."""
        subject = [p for p in self.subject if isinstance(p, str)]
        s0 = next((x for x, t in enumerate(self.toks[:4]) if t.kind is Kind.NAME), None)
        if len(subject) != 1 or s0 is None or self.toks[s0].text != subject[0] or not self.w(s0 + 1, "and") \
                or is_name(self.t(s0 + 2)) or s0 + 2 >= j:
            return None
        a = subject[0]
        other = next((self.kin_at(m) for m in range(s0 + 2, min(s0 + 6, j)) if self.kin_at(m) is not None), None)
        if other is not None and other.relation == "ex:spouse":
            if kin.relation in ("ex:child", "ex:grandchild"):
                return None
            siblings = [h for ph in self.phrases if ph.pos < j and ph.possessors == [a] and not ph.group
                        and ph.kin.relation == "ex:sibling" for h in ph.holders]
            return [a] + siblings if siblings else []
        if other is not None and other.relation == "ex:sibling" \
                and kin.relation in ("ex:parent", "ex:grandparent", "ex:sibling", "ex:uncleOrAunt"):
            return None
        return []

    def _each_their_own(self, group: list[Person], kin: KinWord) -> bool:
        """Whether "their <word>" of ``group`` may be each member's own rather than shared, by what the
        story states between two members: siblings do not share descendants or spouses ("[A] and [B]
        are siblings. They took their kids …"), a couple does not share elders or siblings ("[A] and
        [B] are married. They visited their mother …")."""
        names = [p for p in group if isinstance(p, str)]
        here: dict = {}
        for rel, possessors, holder, _, _ in self.out:
            if len(possessors) == 1 and isinstance(possessors[0], str) and isinstance(holder, str):
                here.setdefault(frozenset((possessors[0], holder)), set()).add(rel)
        for x, a in enumerate(names):
            for b in names[x + 1:]:
                rels = self.ctx.pairs.get(frozenset((a, b)), set()) | here.get(frozenset((a, b)), set())
                if "ex:sibling" in rels and kin.relation in ("ex:child", "ex:grandchild", "ex:spouse",
                                                             "ex:childInLaw", "ex:nephewOrNiece"):
                    return True
                if "ex:spouse" in rels and kin.relation in ("ex:parent", "ex:grandparent", "ex:sibling",
                                                            "ex:uncleOrAunt", "ex:parentInLaw"):
                    return True
        return False

    def _groups(self, j: int) -> list[list[str]]:
        out = []
        subject = [p for p in self.subject if isinstance(p, str)]
        listed = self._listed_names_subject(j)
        if len(subject) >= 2:
            out.append(subject)
        elif listed:
            out.append(listed)  # "[A], [B], and [C] planned a party for their mother" (module owners)
        elif self.toks and self.toks[0].low in SUBORDINATORS:
            c = next((x for x, t in enumerate(self.toks) if t.text == ","), None)
            if c is not None and c + 3 < j and is_name(self.t(c + 1)) and self.w(c + 2, "and") \
                    and is_name(self.t(c + 3)):  # "Although …, [R] and [L] were going home to their mother"
                out.append([self.t(c + 1).text, self.t(c + 3).text])
        elif subject and (s0 := next((x for x, t in enumerate(self.toks[:4]) if t.kind is Kind.NAME), None)) \
                is not None and self.toks[s0].text == subject[0] and self.w(s0 + 1, "and") \
                and all(t.kind is Kind.WORD and t.low in ADVERBS | CONNECTIVES for t in self.toks[:s0]):
            with_kin = next((ph for ph in self.phrases if ph.start == s0 + 2 and ph.holders and ph.pos < j), None)
            if with_kin is not None:  # "(So) [Marian] and her husband [Elliott] …"
                out.append([self.toks[s0].text, with_kin.holders[0]])
        for ph in self.phrases:
            if ph.pos < j and (ph.kin.plural or ph.kin.relation == "ex:spouse") and len(ph.holders) >= 2 \
                    and ph.holders not in out:  # "Husband and wife [A] and [B] … their daughter" (headed)
                out.append(list(ph.holders))
        return out

    def _listed_subject(self) -> list[str]:
        """The names of a list of three or more that starts the sentence and ends its subject: "[A], [B]
        and [C] are siblings", "[A], [B], and [C] were all brothers" (the verb right after the last name)."""
        names: list[str] = []
        k, last = 0, False
        while is_name(self.t(k)):
            names.append(self.t(k).text)
            if last:
                ok = len(names) >= 3 and self.w(k + 1, *BE) and len(set(names)) == len(names)
                return names if ok else []
            if self.t(k + 1) is not None and self.t(k + 1).text == ",":
                k += 2
                if self.w(k, "and"):  # "[A], [B], and [C]"
                    k, last = k + 1, True
            elif self.w(k + 1, "and"):
                k, last = k + 2, True
            else:
                return []
        return []

    def _plural_predicate(self, ph: Phrase) -> None:
        """"[A] and [B] are sisters", "[A] and [B] were twins", "the siblings, [A] and [B], …" (module
        headed): a symmetric relation within the group."""
        if self._headed_list(ph):
            return
        if not ph.kin.plural and len(self.subject) == 2 and self.w(ph.pos - 1, *BE) and self.w(ph.pos + 1, "and") \
                and self.kin_at(ph.pos + 2) is not None and self.kin_at(ph.pos + 2).relation == ph.kin.relation \
                and ph.kin.relation in ("ex:sibling", "ex:spouse") and all(isinstance(p, str) for p in self.subject):
            a, b = self.subject  # "[A] and [B] are brother and sister / husband and wife"
            self.out.extend([(ph.kin.relation, (a,), b, "", ""), (ph.kin.relation, (b,), a, "", "")])
            return
        subject = self.subject if len(self.subject) >= 2 else self._listed_subject()
        if not ph.kin.plural or len(subject) < 2:
            return
        k = ph.pos - 1
        while k >= 0 and self.toks[k].kind is Kind.WORD and (self.toks[k].low in ARTICLES | ADVERBS | {"all"} or
                                                            self.kin_at(k) and k not in self.kin_words):
            k -= 1  # "[A], [B] and [C] are all siblings"
        while k >= 1 and self.toks[k].kind is Kind.WORD and (self.toks[k].low in ("although", "though")
                                                            or modifier(self.toks[k].low)) and ph.pos - k <= 4 \
                and self.toks[k].low not in ("like", "as"):  # "[A] and [B] are like sisters": a comparison
            k -= 1  # "[D] and [G], although once close brothers, …"
        apposed = k >= 1 and self.toks[k].text == "," and is_name(self.t(k - 1)) and self.t(k - 1).text in subject
        if not (k >= 0 and self.toks[k].low in BE) and not apposed:  # "[D] and [G], both brothers, …"
            return
        rel = ph.kin.relation
        if rel not in ("ex:sibling", "ex:spouse") or rel == "ex:spouse" and len(subject) != 2:
            return  # "[A], [B] and [C] are married" pairs nobody
        names = [p for p in subject if isinstance(p, str)]
        for a in names:
            for b in names:
                if a != b:
                    self.out.append((rel, (a,), b, "", ""))

