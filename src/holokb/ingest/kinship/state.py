"""What the kinship reader keeps while it reads: one kinship phrase of a sentence (its holders and
possessors) and the context a sentence leaves for the next (subject, mentions, a holder to come)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .lexicon import KinWord
from .story import Person
from .words import through


@dataclass
class Phrase:
    """One kinship word in a sentence and what the reader found for it."""

    pos: int
    kin: KinWord
    word: str
    start: int = 0                                   # first token of the phrase (determiner)
    holders: list[str] = field(default_factory=list)
    possessors: list[Person] = field(default_factory=list)   # readings, preferred first
    group: bool = False                              # possessors are a group (all hold), not readings
    reason: str = ""

    def person(self) -> Person | None:
        """Who this phrase names: its holder, else an unnamed person reached from a named possessor."""
        if self.holders:
            return self.holders[0]
        if len(self.possessors) == 1:
            return through(self.possessors[0], self.kin)
        return None


@dataclass
class Context:
    """What the sentences so far leave for the next one: its subject, its people, a holder to come."""

    subject: list[Person] = field(default_factory=list)
    mentions: list[Person] = field(default_factory=list)
    pending: Phrase | None = None
    couple: list[str] = field(default_factory=list)
    owned: dict = field(default_factory=dict)   # person → holders of the phrases they certainly own
    subject_owner: str = ""                     # "[A]'s daughter, [B], …": A, who only owns the subject
    groups: list = field(default_factory=list)  # the groups of people the sentence named ("their")
    pairs: dict = field(default_factory=dict)   # {a, b} → the symmetric relations stated between two names

