"""Kinship words that state nothing: the complement of a negated copula ("[A] is not [B]'s mother",
"[A] has no brother named [B]"), clauses that only compare ("as if he were her own child"), negated
couple and birth clauses ("[A] never married [B]")."""
from __future__ import annotations

from .text import Kind
from .words import ADVERBS, ARTICLES, BE, HAVE, STOP, adjective, modifier


class Negation:
    """The negation and counterfactual tests of :class:`~.sentence.Sentence` (a mixin: it reads the
    sentence's tokens and lexicon)."""

    def _counterfactual(self) -> set[int]:
        """Positions in a clause that only compares ("raising him as if he were her own child",
        rules/kinship.toml ``[counterfactual]``): to the clause's end, they state nothing."""
        out: set[int] = set()
        spec = self.lex.data.get("counterfactual", {})
        belief = frozenset(spec.get("belief", ()))
        subjunctive = frozenset(spec.get("subjunctive", ()))
        for k, t in enumerate(self.toks):
            m = k + 1 + self.w(k + 1, "that")
            if t.kind is Kind.WORD and (t.low in belief and self.w(m + 1, *BE)
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
                self.toks[k].low in ARTICLES | {"no", "any"} or adjective(self.toks[k].low)):
            k -= 1
        if k >= 0 and self.toks[k].kind is Kind.WORD and self.toks[k].low in HAVE:
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
            elif t.kind is Kind.WORD and t.low in BE:
                return neg
            elif t.kind is Kind.POSS or t.kind is Kind.NAME and self.t(k + 1) is not None \
                    and self.t(k + 1).kind is Kind.POSS:
                pass  # "[B]'s", "mother's": a possessor inside the phrase
            elif t.kind is Kind.WORD and (t.low in ARTICLES or t.low in self.lex.pronouns or t.low in ADVERBS
                                          or t.low in ("longer", "n") or self.lex.kin(t.text)
                                          or t.low not in STOP and modifier(t.low)):
                pass
            else:
                return neg and t.kind is Kind.WORD and t.low in ("and", "but")  # "…, and not the aunt of [C]"
            k -= 1
        return False

    def _all_but(self, i: int) -> bool:
        """"[A] is a sister to [B] in all but blood / name": "in all but …" after the kinship word, in
        its clause, denies the kinship it qualifies."""
        k = i + 1
        while k + 2 < len(self.toks) and self.toks[k].kind is not Kind.PUNCT:
            if self.w(k, "in") and self.w(k + 1, "all") and self.w(k + 2, "but"):
                return True
            k += 1
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

