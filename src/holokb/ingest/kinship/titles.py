"""Kinship words used as titles: "[A] adored visiting grandma [B]'s house", "[A] was happy that grandpa
[B] could come": a kinship word right before a name, with no determiner, possessive or adjective of its
own, names the holder by the relation it has to the one person the sentence speaks from, its only
named person before the title (a subject pronoun in between, "[J] said that she was at Grandma [S]'s",
leaves it unread).  The words a title may follow are data: rules/kinship.toml ``[titles] before``."""
from __future__ import annotations

from lemminflect import getAllLemmas

from .text import Kind


class Titles:
    """The title reader of :class:`~.sentence.Sentence` (a mixin)."""

    def _titles(self) -> None:
        for ph in self.phrases:
            if ph.possessors or ph.holders or ph.kin.plural:
                continue
            i = ph.pos
            name, prev = self.t(i + 1), self.t(i - 1)
            if name is None or name.kind is not Kind.NAME or prev is None or prev.kind is not Kind.WORD \
                    or prev.low not in self.lex.title_before or "ADJ" in getAllLemmas(prev.low):
                continue
            before = [t for t in self.toks[:i] if t.kind is Kind.NAME]
            if len({t.text for t in before}) != 1 or before[0].text == name.text or any(
                    t.kind is Kind.WORD and t.low in self.lex.subject_pronouns for t in self.toks[:i]):
                continue
            ph.holders = [name.text]
            self.emit(ph, name.text, [before[0].text], False)
