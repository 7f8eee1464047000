"""Possessors that a phrase's determiner does not give: the person a noun phrase describes ("… in ages
[E] is a man with a daughter named [G]": E's daughter, also where a missing full stop joins two
sentences), a name before a kinship word whose "'s" is missing ("took [D] kids [J] and [A]")."""
from __future__ import annotations

from .words import BE, is_name


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
