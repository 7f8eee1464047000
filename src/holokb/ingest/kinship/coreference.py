"""Who a pronoun refers to (gender and salience, the sentence before), and holders named later: "…
with her son. His name is [Tom].", "… a baby girl that he has named [Anna]"; what a sentence leaves
for the next one."""
from __future__ import annotations

from .story import Person, Unnamed
from .text import Kind, finite_verb
from .words import ADVERBS, BE, CONNECTIVES, DETERMINERS, MODALS, SUBORDINATORS, is_name


class Coreference:
    """The pronoun and naming steps of :class:`~.sentence.Sentence` (a mixin)."""

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
            first = self._coordinated_owner(pos, exclude) or self._slipped_subject(pos, exclude)
            if first is not None:
                return [first]  # "[Kirk] and her sister [L] …" opening the sentence: Kirk's (module owners)
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
                    all(p in self.ctx.owned.get(subj[0], ()) or p == self.ctx.subject_owner
                        for p in prev if p != subj[0]):
                # "[Myrna] is going to visit her mother, [Gabrielle]. Her daughter, [Anna], …": the
                # previous subject, not someone introduced as the subject's own kin; "[M]'s daughter,
                # [C], went swimming. Her brother …": nor the one who only owns the subject
                return [subj[0]]
            slip = self._gender_slip(pos, here)
            if slip is not None:
                return [slip]
            if not prev and not here and not self.ctx.mentions and self.toks and self.toks[0].low in SUBORDINATORS:
                main = self._main_subject(pos)
                if main is not None and self.fits(main, gender) and main not in exclude:
                    return [main]  # "After leaving his mom's house [C] called …": the main clause's subject
            return prev
        people = list(dict.fromkeys(p for p, _ in fits))
        if len(people) > 1:
            parallel = self._parallel(pos, people)
            if parallel is not None:
                return [parallel]
            own = self._own_clause_subject(pos, people) or self._own_or_other(pos, people) \
                or self._controller(pos, people) or self._shared_subject(pos, people) \
                or self._next_clause_subject(pos, people) or self._apposed_subject(pos, people) \
                or self._continued_subject(pos, people) or self._parallel_subjects(pos, people)
            if own is not None:
                return [own]
        # the likeliest first: the antecedent of the same pronoun before, the subject, the nearest
        same = [ph.possessors[0] for ph in self.phrases if ph.possessors and 0 <= ph.start < pos
                and self.toks[ph.start].low == self.toks[pos].low and ph.start != pos]
        order = [p for p in same if p in people] + [p for p in self.subject if p in people] + people[::-1]
        people = list(dict.fromkeys(order))
        return people

    def _gender_slip(self, pos: int, here: list) -> str | None:
        """"[A] was sick. He stayed home and his grandmother, [G], watched him." with A female in the record:
        a pronoun no one of its gender can be is the one person the sentence before names (its subject,
        named, and nobody else), when this sentence names nobody before the pronoun but that person
        through pronouns; the text slipped on the gender."""
        ctx = self.ctx
        if len(ctx.mentions) != 1 or ctx.subject != ctx.mentions or not isinstance(ctx.mentions[0], str) \
                or ctx.mentions[0].startswith("?") or ctx.pending is not None:
            return None
        only = ctx.mentions[0]
        if any(p != only for p, _ in here) or any(t.kind is Kind.NAME for t in self.toks[:pos]):
            return None
        lex = self.lex
        own = self.gender(only)
        if not own or any(t.kind is Kind.WORD and own in (lex.pronouns.get(t.low), lex.subject_pronouns.get(t.low),
                                                           lex.object_pronouns.get(t.low)) for t in self.toks):
            return None  # "[A] was sick. He brought her soup": "her" is A, so "he" is someone else
        return only

    def _own_clause_subject(self, pos: int, people: list[Person]) -> str | None:
        """"… because [Alma] was sitting next to her twin sister [D]", "…, so [Dale] asked his sister [A]":
        a possessive pronoun in a subordinate clause whose subject is a name of its gender refers to that
        subject when the clause names nobody else before the pronoun (the other candidates are named
        before the clause)."""
        b = pos - 1
        fronted = next((k for k, t in enumerate(self.toks[:pos]) if t.text == ","), None) \
            if self.toks[0].low in SUBORDINATORS else None
        while b >= 0 and not (self.toks[b].kind is Kind.WORD and self.toks[b].low in SUBORDINATORS | {"so"}) \
                and b != fronted:
            b -= 1  # "When [M] passed, [R] leaned on her brother [A]": the main clause after the fronted one
        s = b + 1
        while self.t(s) is not None and self.t(s).kind is Kind.WORD and self.t(s).low in ADVERBS | {"suddenly"}:
            s += 1  # "when suddenly [J] got a call from his son"
        subject, verb = self.t(s), self.t(s + 1)
        if b < 0 or subject is None or subject.kind is not Kind.NAME or subject.text not in people \
                or verb is None or verb.kind is not Kind.WORD \
                or not (finite_verb(verb.low) or verb.low in MODALS or verb.low in BE):
            return None
        for k in range(s + 1, pos):
            t = self.toks[k]
            if t.kind is Kind.NAME or self.plain_name(k) or self.kin_at(k) is not None or t.kind is Kind.WORD and (
                    t.low in self.lex.pronouns or t.low in self.lex.subject_pronouns
                    or t.low in self.lex.object_pronouns or t.low in self.lex.plural_pronouns):
                return None
        return subject.text

    def _clause_words(self, a: int, b: int) -> bool:
        """Whether tokens a..b-1 name nobody: no name, kinship word or pronoun."""
        return not any(self.toks[k].kind is Kind.NAME or self.plain_name(k) or self.kin_at(k) is not None
                       or self.toks[k].kind is Kind.WORD and self.toks[k].low in self._pronoun_words()
                       for k in range(a, b))

    def _pronoun_words(self) -> frozenset:
        lex = self.lex
        return frozenset(lex.pronouns) | frozenset(lex.subject_pronouns) | frozenset(lex.object_pronouns) \
            | lex.plural_pronouns

    def _controller(self, pos: int, people: list[Person]) -> str | None:
        """"she asked [Y] to ask her sister [Z]": a pronoun in an infinitive whose subject is the object
        of "ask / tell / want …" (rules/kinship.toml ``[control] object``) is that object."""
        b = pos - 1
        while b >= 0 and self.toks[b].kind is Kind.WORD and not self.w(b, "to") and pos - b <= 5 \
                and not (self.toks[b].low in self.lex.object_pronouns and self.w(b - 1, *self.lex.control_bare)):
            b -= 1
        bare = self.t(b) is not None and self.toks[b].low in self.lex.object_pronouns
        if not (self.w(b, "to") or bare) or not self._clause_words(b + 1, pos):
            return None
        verb_after = self.t(b + 1)
        if verb_after is None or verb_after.kind is not Kind.WORD or verb_after.low in DETERMINERS \
                or verb_after.low in self._pronoun_words():
            return None  # "invited him to his son's game": "to" is a preposition
        at = b if bare else b - 1   # "helped him pick …" / "asked [Y] to …", "asked him to …"
        obj, verb = self.t(at), self.t(at - 1)
        if obj is None or verb is None or verb.kind is not Kind.WORD or not (
                bare or verb.low in self.lex.control_object):
            return None
        if obj.kind is Kind.NAME:
            return obj.text if obj.text in people else None
        if obj.kind is Kind.WORD and obj.low in self.lex.object_pronouns:
            # the object is not the subject of its own clause (that would be "himself")
            got = self.resolved.get(at) or self._antecedents(at, self.lex.object_pronouns[obj.low],
                                                             tuple(p for p in self.subject))
            if len(got) == 1 and got[0] in people:
                return got[0]
        return None

    def _lead_subject(self, people: list[Person]) -> str | None:
        """The sentence's subject when it is a name starting the sentence and a candidate."""
        toks = self.toks
        if toks and toks[0].kind is Kind.NAME and self.subject == [toks[0].text] and toks[0].text in people:
            return toks[0].text
        return None

    def _over_own_kin(self, subject: str, pos: int, people: list[Person], end: int) -> str | None:
        """``subject`` when the other candidates are its own kin named in this sentence before ``pos`` and
        no clause boundary comes before ``end``."""
        if any(self.w(x, *SUBORDINATORS, "that", "who", "which", "so", "but", "and") for x in range(1, end)):
            return None
        own = {h for ph in self.phrases if ph.pos < pos and ph.possessors == [subject] and not ph.group
               for h in ph.holders}
        return subject if all(p == subject or p in own for p in people) else None

    def _shared_subject(self, pos: int, people: list[Person]) -> str | None:
        """"[X] visited her mother [Y] and introduced her newborn daughter [Z] to her": a pronoun in a
        verb phrase joined by "and" to the first one (no subject of its own) is their shared subject, a
        name that starts the sentence."""
        toks = self.toks
        if self._lead_subject(people) is None:
            return None
        first = self.t(1)
        if first is None or first.kind is not Kind.WORD or not (finite_verb(first.low) or first.low in MODALS):
            return None
        b = pos - 1
        while b > 1 and not self.w(b, "and"):
            b -= 1
        k = b + 1
        if self.w(k, "then"):
            k += 1
        nxt = self.t(k)
        if b <= 1 or nxt is None or nxt.kind is not Kind.WORD or not finite_verb(nxt.low) \
                or not self._clause_words(k, pos) or any(
                    self.toks[x].kind is Kind.PUNCT and self.toks[x].text not in (",",)
                    or self.w(x, *SUBORDINATORS, "that", "who", "which", "so", "but") for x in range(1, b)):
            return None
        return toks[0].text

    def _next_clause_subject(self, pos: int, people: list[Person]) -> str | None:
        """"[X] went to visit his brother [Y] yesterday and his daughter [Z] wanted to come along": a
        pronoun opening the subject of the next clause ("and his <word> [Z] <verb>") continues the first
        clause's subject, a name starting the sentence, over the people that clause introduced as the
        subject's own kin."""
        subject = self._lead_subject(people)
        if not self.w(pos - 1, "and") or subject is None or not self._opens_clause_subject(pos):
            return None
        return self._over_own_kin(subject, pos, people, pos - 1)

    def _opens_clause_subject(self, pos: int) -> bool:
        """Whether the pronoun at ``pos`` opens a clause's subject: "<pronoun> (…) <word>(,) [Z](,) <verb>"."""
        k = pos + 1
        while self.t(k) is not None and self.t(k).kind is Kind.WORD and self.kin_at(k) is None and k <= pos + 3:
            k += 1
        if self.kin_at(k) is None:
            return False
        k += 1
        if self.t(k) is not None and self.t(k).text == ",":
            k += 1
        if not is_name(self.t(k)):
            return False
        k += 1
        if self.t(k) is not None and self.t(k).text == ",":
            k += 1
        verb = self.t(k)
        return verb is not None and verb.kind is Kind.WORD and (finite_verb(verb.low) or verb.low in MODALS)

    def _parallel_subjects(self, pos: int, people: list[Person]) -> Person | None:
        """"Her mother [S] had turned up earlier that day, but her brother [P] was still missing", "Her
        daughter, [C], lives in California and her son, [M] lives in New York": the same pronoun opening
        the subjects of two joined clauses is the same person, not the first subject itself."""
        toks = self.toks
        if not self.w(pos - 1, "and", "but") or toks[0].low != toks[pos].low or not self._opens_clause_subject(0) \
                or not self._opens_clause_subject(pos):
            return None
        first = next((ph for ph in self.phrases if ph.start == 0), None)
        if first is None or len(first.possessors) != 1 or first.group or first.possessors[0] not in people:
            return None
        owner = first.possessors[0]
        return owner if all(p == owner or p in first.holders for p in people) else None

    def _continued_subject(self, pos: int, people: list[Person]) -> str | None:
        """"[C] did n't want to take a trip with his father [M], so instead he went on a trip with his
        wife [A]": "he" opening a clause joined by "so" / "and" / "but" continues the first clause's
        subject, a name starting the sentence, over that clause's own kin of the subject."""
        toks = self.toks
        subject = self._lead_subject(people)
        if subject is None:
            return None
        h = pos - 1   # "he" of the pronoun's clause (the pronoun itself or before it: "he went … his wife")
        while h > 0 and toks[h].kind is Kind.WORD and toks[h].low not in self.lex.subject_pronouns \
                and self._clause_words(h, h + 1) and toks[h].low not in SUBORDINATORS | {"so", "and", "but"}:
            h -= 1
        if toks[pos].low in self.lex.subject_pronouns:
            h = pos
        if not self.w(h, *self.lex.subject_pronouns) or self.lex.subject_pronouns[toks[h].low] != self.gender(
                self.subject[0]):
            return None
        b = h - 1
        while b > 0 and self.toks[b].kind is Kind.WORD and self.toks[b].low in ADVERBS | {"instead", "then"}:
            b -= 1
        if not self.w(b, "so", "and", "but"):
            return None
        return self._over_own_kin(subject, pos, people, b)

    def _apposed_subject(self, pos: int, people: list[Person]) -> str | None:
        """"[E]'s father, [P], always seemed to favor him over his daughter, [M]", "[R], [S]'s
        granddaughter, had gotten into a fight with her sister": the subject with an apposition between
        commas, over the possessor inside the apposition, in the subject's own clause."""
        toks = self.toks
        if len(toks) < 7 or toks[0].kind is not Kind.NAME or self.t(5).text != ",":
            return None
        if self.t(1).kind is Kind.POSS and self.kin_at(2) is not None and self.t(3).text == "," \
                and is_name(self.t(4)):
            subject, inner = toks[4].text, toks[0].text   # "[E]'s father, [P], …"
        elif self.t(1).text == "," and is_name(self.t(2)) and self.t(3).kind is Kind.POSS and self.kin_at(4):
            subject, inner = toks[0].text, toks[2].text   # "[R], [S]'s granddaughter, …"
        else:
            return None
        if set(people) != {subject, inner} or any(
                self.toks[k].kind is Kind.NAME or self.toks[k].kind is Kind.PUNCT
                or self.w(k, *SUBORDINATORS, "that", "who", "which", "so", "but", "and") and not self._same_subject(k, pos)
                for k in range(6, pos)):
            return None
        return subject

    def _same_subject(self, k: int, pos: int) -> bool:
        """Whether the word at ``k`` keeps the clause's subject up to the pronoun at ``pos``: "and" before
        a finite verb (one subject, two verb phrases: "… became ill and requested …"), or "that" right
        before the pronoun after a verb of request (rules/kinship.toml ``[control] mandative``:
        "requested that his daughter …", the pronoun opening the request's subject)."""
        nxt = self.t(k + 1)
        if self.w(k, "and"):
            return nxt is not None and nxt.kind is Kind.WORD and finite_verb(nxt.low)
        if self.w(k, "that"):
            return k == pos - 1 and self.w(k - 1, *self.lex.control_mandative)
        return False

    def _own_or_other(self, pos: int, people: list[Person]) -> Person | None:
        """"[T], [A]'s daughter, was having trouble with her own daughter": "own" is the subject's, when
        the sentence has one subject and nothing but its apposition before the pronoun's clause;
        "[X] favored his son [Y] over his other son [Z]": "other" is the possessor of the phrase before
        with the same kinship word (one possessor)."""
        if self.w(pos + 1, "own") and len(self.subject) == 1 and self.subject[0] in people and not any(
                self.w(k, *SUBORDINATORS, "and", "but", "so") or self.t(k).text == ";" for k in range(pos)):
            return self.subject[0]
        if self.w(pos + 1, "other") and self.kin_at(pos + 2) is not None:
            word = self.toks[pos + 2].low
            before = [ph for ph in self.phrases if ph.pos < pos and self.toks[ph.pos].low == word]
            if len(before) == 1 and len(before[0].possessors) == 1 and not before[0].group \
                    and before[0].possessors[0] in people:
                return before[0].possessors[0]
        return None

    def _main_subject(self, pos: int) -> str | None:
        """The subject of the main clause after a fronted subordinate clause: the first name after
        ``pos`` that a finite verb (or a modal) follows."""
        for k in range(pos + 1, len(self.toks)):
            t, nxt = self.toks[k], self.t(k + 1)
            if t.kind is Kind.NAME and nxt is not None and nxt.kind is Kind.WORD and (
                    finite_verb(nxt.low) or nxt.low in MODALS):
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
            if self.w(k, *DETERMINERS) and not self.w(k + 1, "own"):
                return  # "[A] has a sister who has a friend named [B]": the name is the friend's, a new noun phrase
            if self.w(k, "named", "name", "called") and (is_name(self.t(k + 1)) or
                                                         self.w(k + 1, "him", "her") and is_name(self.t(k + 2))):
                name = self.t(k + 1).text if is_name(self.t(k + 1)) else self.t(k + 2).text
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
        if self._subject_pronoun() and not self.subject:
            # "He listened to [C]'s stories." with "he" undecided: each reading stays someone the next
            # sentence may speak of, not the named C alone
            people = [p for p in self.resolved.get(self._opening(), ()) if isinstance(p, str)] + people
        if people or self.subject:
            # a subject pronoun that continues the sentence before's subject keeps what that sentence
            # gave the subject as its own kin ("[T] … his grandfather [C]'s house. He would listen to
            # [C]'s stories. … he works with his brother [B]": T's brother, C being T's own kin)
            continued = self._subject_pronoun() and len(self.subject) == 1 and self.subject == ctx.subject
            owned = {p: set(h) for p, h in ctx.owned.items()} if continued else {}
            ctx.mentions = list(dict.fromkeys(people))
            ctx.subject = list(self.subject) or ([] if self._subject_pronoun() else people[:1])
            ctx.subject_owner = self._subject_owner()
            ctx.owned = owned
            ctx.groups = self._groups(len(self.toks))
            for ph in self.phrases:
                if len(ph.possessors) == 1 and not ph.group:
                    ctx.owned.setdefault(ph.possessors[0], set()).update(ph.holders)
        if ctx.pending is not None and ctx.pending is self.pending_before and not self._keeps_pending():
            ctx.pending = None
        for rel, possessors, holder, _, _ in self.out:
            if rel in ("ex:sibling", "ex:spouse") and len(possessors) == 1 and isinstance(possessors[0], str) \
                    and isinstance(holder, str):
                ctx.pairs.setdefault(frozenset((possessors[0], holder)), set()).add(rel)

    def _opening(self, end: int | None = None) -> int | None:
        """The position of the sentence's first token after its opening connectives ("so", "then", …),
        looking before ``end`` only when given; None when there is none."""
        return next((k for k, t in enumerate(self.toks[:end]) if not (t.kind is Kind.WORD and t.low in CONNECTIVES)),
                    None)

    def _subject_pronoun(self) -> bool:
        """Whether the sentence's subject is a subject pronoun opening it (after connectives)."""
        k = self._opening()
        return k is not None and self.toks[k].kind is Kind.WORD and self.toks[k].low in self.lex.subject_pronouns

    def _subject_owner(self) -> str:
        """The name that only owns the subject inside the subject's noun phrase: A of "[A]'s (older)
        daughter(,) [B] <verb> …" with B the subject; "" when there is none."""
        toks = self.toks
        if len(self.subject) != 1 or len(toks) < 4 or toks[0].kind is not Kind.NAME or toks[1].kind is not Kind.POSS:
            return ""
        j = self.kin_after_owner(1)
        if j is None:
            return ""
        k = j + 1 + (self.t(j + 1) is not None and self.t(j + 1).text == ",")
        if not is_name(self.t(k)) or self.subject != [self.toks[k].text] or toks[k].text == toks[0].text:
            return ""
        return toks[0].text

    def _keeps_pending(self) -> bool:
        return not any(t.kind is Kind.NAME for t in self.toks)

