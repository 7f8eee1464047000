"""Names listed after a kinship noun that heads them: "(The) (three) sisters [A], [B] and [C] …",
"the siblings, [A] and [B], …", "Husband and wife [A] and [B] …".  The noun opens the sentence (after
an article or a number at most) and the names are its apposition: the relation, a symmetric one, holds
between every two of them.  The listed names are the phrase's holders, a group that a later "their"
refers to ("Brothers [A] and [B] take after their dad [C]")."""
from __future__ import annotations

from .state import Phrase
from .text import Kind
from .words import ARTICLES, is_name

#: Relations that hold both ways, the only ones a list of names can state between its members (a plural
#: noun only for siblings: "the husbands [A] and [B]" are each someone's).
SYMMETRIC = ("ex:sibling", "ex:spouse")


class HeadedLists:
    """The headed-list reader of :class:`~.sentence.Sentence` (a mixin)."""

    def _opens_sentence(self, k: int) -> bool:
        """Whether only articles and numbers ("The three", "Two") come before position ``k``."""
        return all(t.kind is Kind.WORD and t.low in ARTICLES for t in self.toks[:k])

    def _headed_list(self, ph: Phrase) -> bool:
        """Read a list of names headed by the kinship noun of ``ph``; True when it was read."""
        if ph.kin.relation not in SYMMETRIC:
            return False
        if ph.kin.plural and ph.kin.relation == "ex:sibling" and (self._opens_sentence(ph.pos)
                                                                  or self.w(ph.pos - 1, "the")):
            names = self._holder_right(ph.pos)   # "The three sisters [A], [B], and [C] …" ("husbands": each one's)
            if len(names) == 1:
                return True
        elif not ph.kin.plural and ph.pos >= 2 and self.w(ph.pos - 1, "and") and self._opens_sentence(ph.pos - 2) \
                and self.kin_at(ph.pos - 2) is not None and self.kin_at(ph.pos - 2).relation == ph.kin.relation \
                and not self.kin_at(ph.pos - 2).plural:
            names = self._pair_after(ph.pos)     # "Husband and wife [A] and [B] …"
        else:
            return False
        if len(names) < 2 or len(set(names)) != len(names):
            return False
        for a in names:
            for b in names:
                if a != b:
                    self.out.append((ph.kin.relation, (a,), b, "", ""))
        ph.holders = list(names)
        return True

    def _pair_after(self, i: int) -> list[str]:
        """"[A] and [B]" right after position ``i``, neither of them owning what follows ("… [B]'s son")."""
        a, b, after = self.t(i + 1), self.t(i + 3), self.t(i + 4)
        if not (is_name(a) and self.w(i + 2, "and") and is_name(b)) or after is not None and after.kind is Kind.POSS:
            return []
        return [a.text, b.text]
