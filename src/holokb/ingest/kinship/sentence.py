"""One sentence of a kinship story: its tokens, its subject, and the statements its kinship phrases,
couples and births make; the steps live in mixins (negation, phrases, coreference, events)."""
from __future__ import annotations

from .coreference import Coreference
from .events import Events
from .headed import HeadedLists
from .lexicon import KinshipLexicon, KinWord
from .negation import Negation
from .owners import Owners
from .phrases import KinshipPhrases
from .state import Context, Phrase
from .story import Person, Unnamed
from .text import Kind, Tok, finite_verb
from .titles import Titles
from .words import CLOSED, NAMING, SUBORDINATORS, is_name, is_unknown, known_word, merge_compounds


class Sentence(Negation, KinshipPhrases, Coreference, Events, Titles, HeadedLists, Owners):
    """One sentence: its tokens, the people mentioned so far, and the kinship phrases found."""

    def __init__(self, lexicon: KinshipLexicon, toks: list[Tok], genders: dict[str, str], ctx: Context):
        self.lex = lexicon
        self.toks = merge_compounds(toks, self.lex)
        self.genders = genders
        self.ctx = ctx
        self.phrases: list[Phrase] = []
        compares = self._counterfactual()
        # "her step son", "[A] is not [B]'s mother": kinship words that state nothing here
        self.blocked: set[int] = {i for i, t in enumerate(self.toks) if i >= 1 and t.kind is Kind.WORD
                                  and self.lex.kin(t.text) and self.toks[i - 1].low in self.lex.other_kin}
        self.blocked |= {i for i, t in enumerate(self.toks) if t.kind is Kind.WORD and self.lex.kin(t.text)
                         and (self._negated(i) or self._all_but(i))}
        self.kin_words = [i for i, t in enumerate(self.toks) if t.kind is Kind.WORD and self.lex.kin(t.text)
                          and not (i + 1 < len(self.toks) and self.toks[i + 1].kind is Kind.WORD
                                   and self.lex.kin(self.toks[i + 1].text))  # "twin sister": one word
                          and i not in compares and i not in self.blocked]
        self.subject: list[Person] = []
        self.resolved: dict[int, list[Person]] = {}   # pronoun position → readings
        self.out: list[tuple[str, tuple[Person, ...], str, str, str]] = []
        self.pending_before = ctx.pending   # a holder to come from an earlier sentence

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
        return self.gender(p) == gender or is_unknown(p)

    def plain_name(self, k: int) -> str | None:
        """"?Brandon" for a capitalised word no dictionary knows ("dearly.Brandon shared …", "his
        daughter Alice gave birth"): a person the record does not name, who may be a pronoun's antecedent."""
        t = self.t(k)
        if t is None or t.kind is not Kind.WORD or not t.text[:1].isupper() or t.low in CLOSED or t.text.isupper():
            return None  # "straight C's", "TV": not names
        if self.lex.kin(t.text) or t.low in self.lex.pronouns or t.low in self.lex.subject_pronouns:
            return None
        if known_word(t.low):
            return None
        prev, nxt = self.t(k - 1), self.t(k + 1)
        clause = prev is not None and prev.low in SUBORDINATORS | {"and", "but", "or", "so"} and nxt is not None \
            and nxt.kind is Kind.WORD and finite_verb(nxt.low)  # "When Rachel had her son [M], …"
        if prev is not None and prev.kind is Kind.WORD and (prev.low in CLOSED or prev.low in ("last", "next")) \
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
        if low in CLOSED or self.lex.kin(t.text) or low in self.lex.pronouns or low in self.lex.subject_pronouns \
                or low in self.lex.person_nouns:
            return None
        after_kin = k >= 1 and (self.kin_at(k - 1) is not None or self.w(k - 1, *NAMING) or
                                k >= 2 and self.t(k - 1).text == "," and self.kin_at(k - 2) is not None)
        nxt = self.t(k + 1)
        owns_kin = False
        if nxt is not None and nxt.kind is Kind.POSS:  # "Jesse's older brother", not "straight C's to his father"
            m = k + 2
            while m < min(k + 5, len(self.toks)) and self.kin_at(m) is None and self.toks[m].kind is Kind.WORD \
                    and self.toks[m].low not in CLOSED:
                m += 1
            owns_kin = self.kin_at(m) is not None
        return "?" + t.text if after_kin or owns_kin else None

    def kin_after_owner(self, k: int) -> int | None:
        """The position of the kinship word after the possessive at ``k`` ("[A]'s (lovely) son"), over
        at most two other words; None when there is none."""
        j = k + 1
        while self.t(j) is not None and self.t(j).kind is Kind.WORD and not self.kin_at(j) and j < k + 4:
            j += 1
        return j if self.kin_at(j) else None

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
        self._titles()
        self._events()
        self._naming_later()
        self._leave_context()
        return self.out

    def emit(self, ph: Phrase, holder: str, possessors: list[Person], group: bool, reason: str = "") -> None:
        if group:
            if holder in possessors:
                return  # "[W] and his sister [C] got their mother [C] …": the group's own member, the text broken
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
                j = self.kin_after_owner(i + 1)
                if j is not None:
                    h = self._holder_right(j)
                    if h:
                        return [h[0]]
                    return [Unnamed(t.text, (self.kin_at(j).relation,), self.kin_at(j).gender)]
                return [t.text]
            if self.w(i + 1, "and") and is_name(self.t(i + 2)):
                return [t.text, self.t(i + 2).text]
            return [t.text]
        if t.low in self.lex.subject_pronouns:
            got = self._antecedents(i, self.lex.subject_pronouns[t.low], exclude=(), subject_first=True)
            self.resolved[i] = got
            return got[:1] if len(got) == 1 else []
        if t.low in ("they",) or (t.low == "the" and self.w(i + 1, *self.lex.group_words)):
            return list(self.ctx.couple or [p for p in self.ctx.subject if isinstance(p, str)])
        return []

